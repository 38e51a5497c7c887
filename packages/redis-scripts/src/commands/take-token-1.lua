--[[
  Take one token from a client address's bucket: the side command the intake sends beside a guarded route's
  script (or join-room's), in the same round trip, because the address's bucket has a slot of its own
  (apps/intake/src/admission/address-buckets.ts; docs/api.md, Rate limits). GCRA on Redis TIME, the policy
  of the call: includes/token-bucket.lua.

  KEYS[1] the address's bucket  {ip-<ip>}:rl:<class>  (a string: the bucket's theoretical arrival time)

  ARGV[1] ms between tokens (> 0: the intake sends nothing for a class without an address limit)
  ARGV[2] burst (tokens the bucket holds)

  Returns {ok, remaining, resetMs}
    {1, remaining, resetMs}  a token was taken; `remaining` are left, the bucket is full again in resetMs
    {0, 0, resetMs}          the bucket was empty. The request's own script ran beside this call and may have
                             accepted it, which nothing can undo, so it is charged anyway: the time moves one
                             interval on, owing at most one burst past empty, and the address's later requests
                             wait for it. A request its script refused pays the same (the intake sends this
                             only when its own view of the bucket holds a token, so that is rare).
]]
--- @include "token-bucket"
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local debtMs = interval * burst
local ok, nextTat, remaining, resetMs = token_bucket_peek(KEYS[1], interval, burst, nowMs, debtMs)
if ok then
  token_bucket_take(KEYS[1], nextTat, resetMs)
  return {1, remaining, resetMs}
end
return {0, 0, token_bucket_charge(KEYS[1], interval, burst, nowMs, debtMs)}
