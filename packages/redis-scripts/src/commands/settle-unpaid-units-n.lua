--[[
  An order was paid: its units stop counting against the user's per-product cap (includes/unpaid-units.lua).
  Exactly once: only while the order's state holds its `unpaid` mark, which this or release-order-n.lua deletes.
  The worker sends it after the shard committed the payment, for every order a batch's payments name that is
  paid (a redelivery sends it again and lowers nothing).

  n is the number of order lines.
  KEYS[1]    order state   {p}:order:<orderId>
  KEYS[1+i]  unpaid units  {p}:unpaid:<productId>:<userId> of line i's product
  KEYS[2+n]  the user's passes of the order's waiting room {p}:pass:<roomId>:<userId>, only when ARGV[n+1] is
             not "": the session ended with the checkout (includes/ended-session-pass.lua), whether or not the
             units were lowered now
  ARGV[i]    quantity of line i
  ARGV[n+1]  the ticket id of the order's waiting-room session, "" for none

  Returns 1 lowered now, 0 nothing to lower (settled or released before, or never counted: nothing to pay),
  -1 no order state (nothing touched; the counters' TTL catches what it held).
]]
--- @include "unpaid-units"
--- @include "ended-session-pass"
local lines = #ARGV - 1
ended_session_pass(KEYS[2 + lines], ARGV[lines + 1])
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
local counters = {}
local quantities = {}
for i = 1, lines do
  counters[i] = KEYS[1 + i]
  quantities[i] = tonumber(ARGV[i])
end
return settle_unpaid_units(KEYS[1], counters, quantities)
