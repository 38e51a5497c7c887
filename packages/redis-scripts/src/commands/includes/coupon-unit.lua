--[[
  One unit of a first-come-first-served coupon, in the coupon's slot, as issue-coupon-n.lua (one Redis) and
  reserve-coupon-3.lua (the first step on a Redis Cluster) take it: the window (Redis TIME, one clock for every
  intake), one per user, count < quantity, then the unit held.
    stateKey   {cpn_...}:coupon   quantity, startsAt, endsAt (epoch ms, "" for none), issued
    holdersKey {cpn_...}:holders  userId -> issue id
]]

-- Whether userId may have a unit at nowMs (epoch ms; nil: now, by Redis TIME). Returns nil and the time; or a
-- refusal {code, value}: -1 unknown (no coupon state in Redis), -2 not open yet (startsAt), -3 closed (endsAt),
-- -4 the user already holds it (the holding issue's id), -5 sold out.
local function coupon_unit_check(stateKey, holdersKey, userId, nowMs)
  local state = redis.call("HMGET", stateKey, "quantity", "startsAt", "endsAt", "issued")
  local quantity = tonumber(state[1])
  if not quantity then
    return {-1, ""}
  end
  if not nowMs then
    local time = redis.call("TIME")
    nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  local startsAt = tonumber(state[2])
  local endsAt = tonumber(state[3])
  if startsAt and nowMs < startsAt then
    return {-2, state[2]}
  end
  if endsAt and nowMs >= endsAt then
    return {-3, state[3]}
  end
  local existing = redis.call("HGET", holdersKey, userId)
  if existing then
    return {-4, existing}
  end
  if (tonumber(state[4]) or 0) >= quantity then
    return {-5, ""}
  end
  return nil, nowMs
end

-- Holds one unit for issueId: one more issued, the user a holder.
local function coupon_unit_take(stateKey, holdersKey, userId, issueId)
  redis.call("HINCRBY", stateKey, "issued", 1)
  redis.call("HSET", holdersKey, userId, issueId)
end
