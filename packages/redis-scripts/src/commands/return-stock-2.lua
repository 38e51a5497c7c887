--[[
  On a Redis Cluster, gives an ended order's units of one product back to its stock, once per order and
  product: release-order-n.lua, run in the user's slot, marks the order released and lowers the user's unpaid
  units, and cannot reach the product's slot; the worker then sends this for each product. A redelivered
  release sends it again: the marker makes the second one change nothing. The order's units stop counting as
  unpaid (includes/product-unpaid-units.lua).

  KEYS[1] product state  {prd_...}:product
  KEYS[2] marker         {prd_...}:returned:<orderId>
  ARGV[1] units   ARGV[2] marker TTL in seconds (longer than any redelivery)   ARGV[3] order id

  Returns 1 returned now, 0 returned before.
]]
--- @include "product-unpaid-units"
if not redis.call("SET", KEYS[2], "1", "NX", "EX", tonumber(ARGV[2])) then
  return 0
end
if redis.call("EXISTS", KEYS[1]) == 1 then
  redis.call("HINCRBY", KEYS[1], "available", tonumber(ARGV[1]))
  product_unpaid_settle(KEYS[1], ARGV[3])
end
return 1
