--[[
  A token bucket computed as GCRA: one number per bucket, the time (epoch ms, Redis TIME) at which it would be
  full again. A bucket of burst b refilling every i ms admits b at once, then one per i.

  token_bucket_peek(key, intervalMs, burst, nowMs) reads and decides without writing; it returns
    ok          whether a token is there now
    nextTat     what to store when the token is taken (nil when there is no limit or no token)
    remaining   tokens left once it is taken (-1: no limit)
    resetMs     ms until the bucket is full again once it is taken
    retryMs     when refused, ms until a token is there
  token_bucket_take(key, nextTat, resetMs) stores the taking; the key expires when the bucket is full again.
]]
local function token_bucket_peek(key, interval, burst, nowMs)
  if interval <= 0 then
    return true, nil, -1, 0, 0
  end
  local tat = tonumber(redis.call("GET", key)) or nowMs
  if tat < nowMs then
    tat = nowMs
  end
  local tolerance = interval * burst
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
    redis.call("SET", key, tostring(nextTat), "PX", math.max(1, resetMs))
  end
end
