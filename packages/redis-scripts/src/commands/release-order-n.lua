--[[
  Give back what an order reserved (stock, coupon, the user's unpaid units) once the shard says it ended without
  a sale (cancelled, expired, failed). Exactly once: `released` is set with HSETNX, so a redelivered batch
  releases nothing; the unpaid units go down only if settle-unpaid-units-n.lua has not lowered them (the
  order's `unpaid` mark, includes/unpaid-units.lua), and so do the product's (includes/product-unpaid-units.lua;
  on a cluster the products are stand-ins here and return-stock-2.lua does it).

  n is the number of order lines.
  KEYS[1]      order state        {p}:order:<orderId>
  KEYS[2]      coupon redemption  {p}:cis:<couponIssueId> (a key that never exists when the order has none)
  KEYS[2+i]    product state      {prd_...}:product of line i
  KEYS[2+n+i]  unpaid units       {p}:unpaid:<productId>:<userId> of line i's product
  KEYS[3+2n]   the user's passes of the order's waiting room {p}:pass:<roomId>:<userId>, only when ARGV[2+n]
               is not "": the session ended with the order (includes/ended-session-pass.lua), on every call
  ARGV[1]      order id
  ARGV[1+i]    quantity of line i
  ARGV[2+n]    the ticket id of the order's waiting-room session, "" for none

  Returns 1 released now, 0 released before, -1 no order state (nothing touched: reconcile repairs counters
  that a lost Redis state leaves behind; the unpaid counters expire).
]]
--- @include "unpaid-units"
--- @include "product-unpaid-units"
--- @include "ended-session-pass"
local lines = #ARGV - 2
ended_session_pass(KEYS[3 + 2 * lines], ARGV[2 + lines])
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
if redis.call("HSETNX", KEYS[1], "released", "1") == 0 then
  return 0
end
local counters = {}
local quantities = {}
for i = 1, lines do
  local quantity = tonumber(ARGV[1 + i])
  -- A product whose state is gone is not recreated with a partial hash.
  if redis.call("EXISTS", KEYS[2 + i]) == 1 then
    redis.call("HINCRBY", KEYS[2 + i], "available", quantity)
    product_unpaid_settle(KEYS[2 + i], ARGV[1])
  end
  counters[i] = KEYS[2 + lines + i]
  quantities[i] = quantity
end
settle_unpaid_units(KEYS[1], counters, quantities)
if redis.call("HGET", KEYS[2], "orderId") == ARGV[1] then
  redis.call("HDEL", KEYS[2], "orderId")
end
return 1
