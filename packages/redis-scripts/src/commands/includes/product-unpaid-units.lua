-- A product's units in orders that may still come back to its stock: `unpaid` in its state ({prd_...}:product),
-- the sum of one `unpaid:<orderId>` field per such order (its units of the product). A waiting room selling the
-- product is sold out only when `available` and `unpaid` are both 0 (admission-leader's room-stock.ts): the
-- per-user counters (includes/unpaid-units.lua) are in the users' slots, where the room's leader cannot add them
-- up. Raised when an order of amount > 0 reserves (reserve-order-n.lua; on a cluster reserve-stock-2.lua, before
-- the amount is known: the intake settles an order with nothing to pay after its commit). Lowered once per order
-- and product, whichever comes first: paid (settle-product-units-1.lua), ended without a sale
-- (release-order-n.lua, return-stock-2.lua) or never committed (release-stock-2.lua). The order's field is the
-- marker: a second settlement finds none and lowers nothing.

--- Counts an order's units of a product as unpaid.
local function product_unpaid_hold(productKey, orderId, units)
  redis.call("HSET", productKey, "unpaid:" .. orderId, units)
  redis.call("HINCRBY", productKey, "unpaid", units)
end

--- The order's units of the product stop counting as unpaid. Returns 1 lowered now, 0 nothing held (settled
--- before, never held, or no product state: nothing is created).
local function product_unpaid_settle(productKey, orderId)
  local units = redis.call("HGET", productKey, "unpaid:" .. orderId)
  if not units then
    return 0
  end
  redis.call("HDEL", productKey, "unpaid:" .. orderId)
  -- At zero the field goes: a product with no unpaid order holds only its own fields.
  if redis.call("HINCRBY", productKey, "unpaid", -tonumber(units)) <= 0 then
    redis.call("HDEL", productKey, "unpaid")
  end
  return 1
end
