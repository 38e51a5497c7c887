--[[
  The coupon's half of a coupon issue on a Redis Cluster (the first step, sent beside admit-request-4.lua): the
  window, one per user and count < quantity, then one unit held for this issue, all in the coupon's slot. The
  unit is the issue's from here on only if the user's slot records the issue within the commit window
  (commit-coupon-issue-4.lua); otherwise release-coupon-3.lua gives it back, sent by the intake when it learns
  the request is refused, or by a worker's sweep of reservations older than any commit can be.

  KEYS[1] coupon state hash   {cpn_...}:coupon        quantity, startsAt, endsAt, issued
  KEYS[2] coupon holders hash {cpn_...}:holders       userId -> issue id
  KEYS[3] reservations        {cpn_...}:reservations  "<issue id> <user id>" -> reserved at (epoch ms, this
                                                      master's TIME)

  ARGV[1] issue id
  ARGV[2] user id

  Returns
    { 1, reservedAtMs}  held: issued + 1, the user a holder, the reservation listed
    {-1, ""}            unknown: no coupon state in Redis
    {-2, startsAt}      not open yet
    {-3, endsAt}        closed
    {-4, existingId}    the user already holds this coupon (or an issue of theirs holds a unit right now)
    {-5, ""}            sold out (units held by requests still being recorded count as issued)
]]
local state = redis.call("HMGET", KEYS[1], "quantity", "startsAt", "endsAt", "issued")
local quantity = tonumber(state[1])
if not quantity then
  return {-1, ""}
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local startsAt = tonumber(state[2])
local endsAt = tonumber(state[3])
if startsAt and nowMs < startsAt then
  return {-2, state[2]}
end
if endsAt and nowMs >= endsAt then
  return {-3, state[3]}
end
local existing = redis.call("HGET", KEYS[2], ARGV[2])
if existing then
  return {-4, existing}
end
if (tonumber(state[4]) or 0) >= quantity then
  return {-5, ""}
end
redis.call("HINCRBY", KEYS[1], "issued", 1)
redis.call("HSET", KEYS[2], ARGV[2], ARGV[1])
redis.call("ZADD", KEYS[3], nowMs, ARGV[1] .. " " .. ARGV[2])
return {1, nowMs}
