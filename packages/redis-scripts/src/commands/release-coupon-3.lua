--[[
  Gives back the unit a coupon issue's first step held (reserve-coupon-3.lua) when the issue was not recorded:
  the intake's request was refused after the reservation, or the intake never committed it (a worker's sweep).
  Only a listed reservation is released, once: a second release, or one after the issue was confirmed, finds
  nothing and changes nothing.

  KEYS[1] coupon state hash   KEYS[2] coupon holders hash   KEYS[3] reservations   (the coupon's slot)
  ARGV[1] issue id            ARGV[2] user id

  Returns 1 released, 0 nothing to release.
]]
if redis.call("ZREM", KEYS[3], ARGV[1] .. " " .. ARGV[2]) == 0 then
  return 0
end
redis.call("HINCRBY", KEYS[1], "issued", -1)
if redis.call("HGET", KEYS[2], ARGV[2]) == ARGV[1] then
  redis.call("HDEL", KEYS[2], ARGV[2])
end
return 1
