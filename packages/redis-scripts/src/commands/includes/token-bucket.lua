--[[
  A token bucket computed as GCRA: one number per bucket, the time (epoch ms, Redis TIME) at which it would be
  full again. A bucket of burst b refilling every i ms admits b at once, then one per i.

  The stored time is read against the policy of the call, which an operator may have changed since it was
  written. Under one policy it is never more than burst * interval ahead (an empty bucket); a time further
  ahead is the debt of a tighter policy since replaced. It is cut to an empty bucket of the current policy and
  stored so, which refills at the current rate from now: a restored policy takes effect at once, not after the
  old debt runs out (it could be minutes).

  A client address's bucket may also owe: take-token-1.lua charges a request it could not refuse (its route's
  script, sent beside it, had already accepted) by moving the time one interval further, at most debtMs past an
  empty bucket, so the address's later requests pay for it. Only a time beyond that debt is a replaced policy's.

  token_bucket_peek(key, intervalMs, burst, nowMs[, debtMs][, stored]) decides, writing only to cut an old
  policy's debt; `stored` is the key's value when the caller already read it (false: no key), saving the GET;
  it returns
    ok          whether a token is there now
    nextTat     what to store when the token is taken (nil when there is no limit or no token)
    remaining   tokens left once it is taken (-1: no limit)
    resetMs     ms until the bucket is full again once it is taken
    retryMs     when refused, ms until a token is there
  token_bucket_take(key, nextTat, resetMs) stores the taking; the key expires when the bucket is full again.
  token_bucket_charge(key, intervalMs, burst, nowMs, debtMs) stores a token taken from an empty bucket (at most
  debtMs of debt); it returns ms until the bucket is full again.
]]
-- The stored time, in ms to the microsecond and rounded down. Lua's tostring keeps 14 significant digits, a
-- tenth of a ms for an epoch time, and rounded half the times up: a take microseconds after another then read
-- a time up to 0.05 ms later than was meant and found a full bucket empty. Down by under a microsecond errs,
-- by that much, towards the client.
local function token_bucket_time(ms)
  return string.format("%.3f", math.floor(ms * 1000) / 1000)
end

local function token_bucket_peek(key, interval, burst, nowMs, debtMs, stored)
  if interval <= 0 then
    return true, nil, -1, 0, 0
  end
  if stored == nil then
    stored = redis.call("GET", key)
  end
  local tat = tonumber(stored) or nowMs
  if tat < nowMs then
    tat = nowMs
  end
  local tolerance = interval * burst
  if tat > nowMs + tolerance + (debtMs or 0) then
    tat = nowMs + tolerance
    redis.call("SET", key, token_bucket_time(tat), "PX", math.max(1, math.ceil(tolerance)))
  end
  local nextTat = tat + interval
  local allowAt = nextTat - tolerance
  if nowMs < allowAt then
    return false, nil, 0, math.ceil(tat - nowMs), math.ceil(allowAt - nowMs)
  end
  local remaining = math.floor((tolerance - (nextTat - nowMs)) / interval)
  return true, nextTat, remaining, math.ceil(nextTat - nowMs), 0
end

local function token_bucket_take(key, nextTat, resetMs)
  if nextTat then
    redis.call("SET", key, token_bucket_time(nextTat), "PX", math.max(1, resetMs))
  end
end

local function token_bucket_charge(key, interval, burst, nowMs, debtMs)
  local tat = tonumber(redis.call("GET", key)) or nowMs
  if tat < nowMs then
    tat = nowMs
  end
  tat = math.min(tat + interval, nowMs + interval * burst + debtMs)
  local resetMs = math.max(1, math.ceil(tat - nowMs))
  redis.call("SET", key, token_bucket_time(tat), "PX", resetMs)
  return resetMs
end
