--[[
  An order's units of one product stop counting as unpaid (includes/product-unpaid-units.lua): it was paid, or
  (on a Redis Cluster) it was committed with nothing to pay. Exactly once per order and product: the order's
  `unpaid:<orderId>` field in the product's state is the marker, so a redelivered batch lowers nothing.

  KEYS[1] product state  {prd_...}:product
  ARGV[1] order id

  Returns 1 lowered now, 0 nothing to lower (settled or released before, never held, or no product state).
]]
--- @include "product-unpaid-units"
return product_unpaid_settle(KEYS[1], ARGV[1])
