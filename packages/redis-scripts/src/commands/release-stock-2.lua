--[[
  Gives back the units an order's first step held in one product's slot (reserve-stock-2.lua) when the order
  was not recorded: refused after the reservation, or never committed (a worker's sweep). Only a listed
  reservation is released, once, and its units stop counting as unpaid (includes/product-unpaid-units.lua).

  KEYS[1] product state   KEYS[2] reservations   (the product's slot)
  ARGV[1] order id   ARGV[2] user id   ARGV[3] units held

  Returns 1 released, 0 nothing to release.
]]
--- @include "product-unpaid-units"
if redis.call("ZREM", KEYS[2], ARGV[1] .. " " .. ARGV[2] .. " " .. ARGV[3]) == 0 then
  return 0
end
-- A product whose state is gone is not recreated with a partial hash.
if redis.call("EXISTS", KEYS[1]) == 1 then
  redis.call("HINCRBY", KEYS[1], "available", tonumber(ARGV[3]))
  product_unpaid_settle(KEYS[1], ARGV[1])
end
return 1
