--[[
  An order was paid: its units stop counting against the user's per-product cap (includes/unpaid-units.lua).
  Exactly once: only while the order's state holds its `unpaid` mark, which this or release-order-n.lua deletes.
  The worker sends it after the shard committed the payment, for every order a batch's payments name that is
  paid (a redelivery sends it again and lowers nothing).

  n is the number of order lines.
  KEYS[1]    order state   {p}:order:<orderId>
  KEYS[1+i]  unpaid units  {p}:unpaid:<productId>:<userId> of line i's product
  ARGV[i]    quantity of line i

  Returns 1 lowered now, 0 nothing to lower (settled or released before, or never counted: nothing to pay),
  -1 no order state (nothing touched; the counters' TTL catches what it held).
]]
--- @include "unpaid-units"
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
local counters = {}
local quantities = {}
for i = 2, #KEYS do
  counters[i - 1] = KEYS[i]
  quantities[i - 1] = tonumber(ARGV[i - 1])
end
return settle_unpaid_units(KEYS[1], counters, quantities)
