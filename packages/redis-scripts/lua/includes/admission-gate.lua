--[[
  Admission control, run first by every script that accepts work on a guarded route class (payments,
  deposits, coupon issues, orders), so limits and the waiting room cost no extra round trip. It takes the first
  3 KEYS and 5 ARGV; the including script then shadows KEYS and ARGV with the rest (see ADMISSION_KEYS).

  KEYS[1] the user's token bucket   {p}:rl:<class>:u:<userId>  (a string: the bucket's theoretical arrival time)
  KEYS[2] the guarding room's state {room-<id>}:state  (unused when ARGV[3] is "0": then the user's stream)
  KEYS[3] the room's tickets        {room-<id>}:tickets (likewise)

  ARGV[1] user bucket: ms between tokens ("0": no user limit)   ARGV[2] user bucket: burst (tokens it holds)
  ARGV[3] "1" when a room guards the route class, else "0"
  ARGV[4] the request's user id
  ARGV[5] the ticket id of the request's verified admission token, "" for none

  The client address's bucket is not here: it has its own slot, so the intake takes it with take-token-1.lua,
  sent beside this script in the same round trip (apps/intake/src/admission/address-buckets.ts). Without a
  room every key of the including script is in the user's partition slot; the room keys leave it until the
  room's gate is mirrored into that slot.

  Token buckets are GCRA on Redis TIME (includes/token-bucket.lua), so intake processes with skewed clocks
  agree. The room's ticket records are described in includes/room-tickets.lua.

  A refusal returns from the including script before it reads or writes anything of its own:
    {-90, "user,<retryAfterMs>"}                         over the user's limit; nothing consumed
    {-91, "<reason>"}                                     the room queues and the request holds no admission:
                                                          no_token | unknown_ticket | wrong_user | revoked | expired
  A pass consumes one token from the user's bucket and sets ADMISSION_INFO, which the script appends to its
  accepting answer: "<userRemaining>,<userResetMs>" (-1 without a user limit).
]]
--- @include "token-bucket"
local ADMISSION_KEYS = 3
local ADMISSION_ARGS = 5
local ADMISSION_INFO = ""

local function admission_gate()
  local time = redis.call("TIME")
  local nowMs = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
  local userOk, userTat, userLeft, userReset, userRetry =
    token_bucket_peek(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), nowMs)
  if not userOk then
    return {-90, "user," .. userRetry}
  end

  if ARGV[3] == "1" then
    local state = redis.call("HMGET", KEYS[2], "queueing", "trafficSec", "trafficCount")
    -- Guarded traffic per second, for the leader's `auto` mode: the current second and the one before it.
    local second = math.floor(nowMs / 1000)
    if tonumber(state[2]) == second then
      redis.call("HINCRBY", KEYS[2], "trafficCount", 1)
    else
      local previous = 0
      if tonumber(state[2]) == second - 1 then
        previous = tonumber(state[3]) or 0
      end
      redis.call("HSET", KEYS[2], "trafficSec", second, "trafficCount", 1, "trafficPrev", previous)
    end
    if state[1] == "1" then
      if ARGV[5] == "" then
        return {-91, "no_token"}
      end
      local record = redis.call("HGET", KEYS[3], ARGV[5])
      if not record then
        return {-91, "unknown_ticket"}
      end
      local status, owner, expiresAt = string.match(record, "^(%a+)|([^|]*)|[^|]*|[^|]*|[^|]*|([^|]*)$")
      if owner ~= ARGV[4] then
        return {-91, "wrong_user"}
      end
      if status == "revoked" then
        return {-91, "revoked"}
      end
      if status ~= "admitted" or (tonumber(expiresAt) or 0) <= nowMs then
        return {-91, "expired"}
      end
    end
  end

  token_bucket_take(KEYS[1], userTat, userReset)
  ADMISSION_INFO = userLeft .. "," .. userReset
  return nil
end
