--[[
  One product's half of an order on a Redis Cluster (the first step, sent beside admit-request-4.lua and the
  order's other products' reservations): the product known, its stock enough for the order's units of it, then
  those units held for the order, in the product's slot. The units are the order's only if the user's slot
  records the order within the commit window (commit-order-5.lua); otherwise release-stock-2.lua gives them
  back, sent by the intake when the order is refused, or by a worker's sweep of reservations older than any
  commit can be. The per-user cap is the commit's to check (the counters are in the user's slot): this answers
  the product's price and cap for it. The units count as unpaid in the product's state from here
  (includes/product-unpaid-units.lua) until the order is paid or ends; the amount is not known yet, so the
  intake settles an order with nothing to pay after its commit.

  KEYS[1] product state  {prd_...}:product        price, available, maxUnitsPerUser
  KEYS[2] reservations   {prd_...}:reservations   "<order id> <user id> <units>" -> reserved at (epoch ms, this
                                                  master's TIME)
  ARGV[1] order id   ARGV[2] user id   ARGV[3] units of this product in the order (all its lines)

  Returns
    { 1, price, cap, reservedAtMs}  held (cap "" when the product has none of its own)
    {-2, ""}                        unknown product
    {-3, available}                 not enough stock: what is left
]]
--- @include "product-unpaid-units"
local state = redis.call("HMGET", KEYS[1], "price", "available", "maxUnitsPerUser")
if not state[1] then
  return {-2, ""}
end
local units = tonumber(ARGV[3])
local available = tonumber(state[2])
if units > available then
  return {-3, tostring(available)}
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call("HINCRBY", KEYS[1], "available", -units)
product_unpaid_hold(KEYS[1], ARGV[1], units)
redis.call("ZADD", KEYS[2], nowMs, ARGV[1] .. " " .. ARGV[2] .. " " .. ARGV[3])
return {1, state[1], state[3] or "", nowMs}
