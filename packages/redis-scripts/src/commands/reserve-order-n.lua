--[[
  Place one order in the intake's single round trip: admission (rate limits, waiting room), idempotency, every
  line's stock and per-user cap (all or none), the coupon's owner and use, the amount from the prices in Redis,
  then the reservation, the user's unpaid units, the order's state, the pending status and the stream entry. A
  refusal writes nothing but its Idempotency-Key's record. The key's replay, the coupon, the amount and every
  write after the stock's are includes/order-record.lua's, shared with commit-order-5.lua.

  KEYS[1..3] and ARGV[1..7]: admission (includes/admission-gate.lua). The numbers below are as the script sees
  them once those are taken. n is the number of order lines.

  KEYS[1]    idempotency key     {p}:idem:<userId>:<Idempotency-Key> (ignored when ARGV[4] is "0")
  KEYS[2]    status hash         {p}:op:<orderId>
  KEYS[3]    partition stream    {p}:ops
  KEYS[4]    order state         {p}:order:<orderId>  userId, amount, couponIssueId, and `unpaid` while its units
                                 count against the user's cap (amount > 0); release-order-n.lua adds `released`,
                                 request-order-end-3.lua adds `endId`
  KEYS[5]    coupon redemption   {p'}:cis:<couponIssueId>, in its holder's partition (the orderer's when it is
                                 theirs); a key that never exists when the order has none
  KEYS[5+i]  product state       {prd_...}:product  price, available, maxUnitsPerUser (absent: ARGV[11]); line i's.
                                 An order with something to pay also counts its units there as unpaid
                                 (includes/product-unpaid-units.lua)
  KEYS[5+n+i] unpaid units       {p}:unpaid:<productId>:<userId>  this user's units of line i's product in orders
                                 awaiting payment (includes/unpaid-units.lua)

  Redis Cluster: KEYS[1..5] and the unpaid counters carry the user's partition tag, each product its own; like
  issue-coupon-n.lua this script runs on one Redis (or Sentinel). On a cluster an order takes two steps
  instead: reserve-stock-2.lua in each product's slot beside admit-request-4.lua, then commit-order-5.lua in the
  user's (packages/reservations/src/reserve-order-in-two-steps.ts). (The client address's bucket is
  take-token-1.lua's, sent beside this.)

  ARGV[1] order id (new, minted by the intake)
  ARGV[2] user id
  ARGV[3] request fingerprint (compared on replays of the same Idempotency-Key)
  ARGV[4] idempotency TTL in seconds, "0" without an Idempotency-Key
  ARGV[5] order state TTL in seconds (longer than any order can stay unpaid)
  ARGV[6] createdAt, epoch ms
  ARGV[7] expiresAt, epoch ms
  ARGV[8] currency
  ARGV[9] coupon issue id, "" for none
  ARGV[10] largest amount an order may have
  ARGV[11] units of a product one user may hold unpaid, for a product without its own maxUnitsPerUser
  ARGV[12] TTL in seconds of an unpaid-units counter, renewed by each order that raises it (a safety net for a
           lost order state; the counters go down when orders are paid or end)
  ARGV[12+i] quantity of line i
  ARGV[13+n] ARGV[14+n] the order's waiting-room session: room id and ticket id of the verified admission
           token ("" "" without one), carried in the stream message (includes/order-record.lua)

  Returns {code, value}; codes are mapped by ReserveOrderCode (packages/reservations/src/reserve-order-outcome.ts)
    { 1, amount, admission}    accepted
    { 0, "<orderId> <amount>", admission} replay: same key, same body; nothing written
    {code, value, "", 1}       replay of a refusal below (-2 .. -8): the first answer, word for word
    {-1, existingId}           conflict: same key, different body ("" when the key's first request was refused)
    {-2, line}                 unknown product (1-based line number of the first)
    {-3, "line:available,..."} out of stock: every short line and what is left of its product
    {-4, ""}                   unknown coupon issue
    {-5, ""}                   the coupon belongs to someone else
    {-6, orderId}              the coupon is already redeemed by that order
    {-7, amount}               the amount is above the largest allowed
    {-8, "line:held:limit,..."} over the per-user cap: for each product whose units this user holds unpaid plus
                               this order's would exceed its cap, the product's first line, the units held and
                               the cap (checked after stock, so an order larger than the stock is still
                               out of stock)
    {-90 | -91, detail}        refused by admission control (includes/admission-gate.lua); {-91, "used"} comes
                               after the key's replay: a one-shot token this order consumes on acceptance
]]
--- @include "admission-gate"
--- @include "idempotency-record"
--- @include "order-record"
--- @include "product-unpaid-units"
local refusal, KEYS, ARGV = admission_gate()
if refusal then
  return refusal
end

local fingerprint = ARGV[3]
local idempotencyTtl = tonumber(ARGV[4])
local lines = (#KEYS - 5) / 2
local defaultCap = tonumber(ARGV[11])

local replay = order_replay(KEYS, ARGV, ADMISSION_INFO)
if replay then
  return replay
end
local used = admission_used(ADMISSION_PASS)
if used then
  return used
end
-- Every refusal from here on is the request's answer: recorded, so a retry with its key gets it again.
local function refuse(code, value)
  return idempotency_refuse(KEYS[1], idempotencyTtl, fingerprint, code, value)
end

-- Read every line first: a line may repeat a product, so stock is checked against the product's total.
local prices = {}
local needed = {}
local available = {}
local caps = {}
for i = 1, lines do
  local key = KEYS[5 + i]
  local state = redis.call("HMGET", key, "price", "available", "maxUnitsPerUser")
  if not state[1] then
    return refuse(-2, tostring(i))
  end
  prices[i] = tonumber(state[1])
  available[key] = tonumber(state[2])
  caps[key] = tonumber(state[3]) or defaultCap
  needed[key] = (needed[key] or 0) + tonumber(ARGV[12 + i])
end
local short = {}
for i = 1, lines do
  local key = KEYS[5 + i]
  if needed[key] > available[key] then
    short[#short + 1] = i .. ":" .. available[key]
  end
end
if #short > 0 then
  return refuse(-3, table.concat(short, ","))
end
-- The per-user cap, per product (a product's lines together), reported on the product's first line.
local overCap = {}
local checked = {}
for i = 1, lines do
  local key = KEYS[5 + i]
  if not checked[key] then
    checked[key] = true
    local held = tonumber(redis.call("GET", KEYS[5 + lines + i]) or "0")
    if held + needed[key] > caps[key] then
      overCap[#overCap + 1] = i .. ":" .. held .. ":" .. caps[key]
    end
  end
end
if #overCap > 0 then
  return refuse(-8, table.concat(overCap, ","))
end

local subtotal = 0
local items = {}
local counters = {}
local quantities = {}
for i = 1, lines do
  local quantity = tonumber(ARGV[12 + i])
  subtotal = subtotal + prices[i] * quantity
  -- The product id is the key's hash tag: {prd_...}.
  items[i] = {productId = string.match(KEYS[5 + i], "{(prd_[^}]+)}"), quantity = quantity, unitPrice = prices[i]}
  counters[i] = KEYS[5 + lines + i]
  quantities[i] = quantity
end

local refused, discount, amount = order_amount(KEYS, ARGV, subtotal)
if refused then
  return refuse(refused[1], refused[2])
end
for key, quantity in pairs(needed) do
  redis.call("HINCRBY", key, "available", -quantity)
  -- An order with nothing to pay is paid once recorded: its units can never come back as unpaid ones can.
  if amount > 0 then
    product_unpaid_hold(key, ARGV[1], quantity)
  end
end
order_record(KEYS, ARGV, items, discount, amount, counters, quantities)
admission_consume(ADMISSION_PASS)
return {1, tostring(amount), ADMISSION_INFO}
