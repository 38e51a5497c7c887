--[[
  Place orders in the intake's single round trip: as many as the intake gathered in one turn of its event loop
  (one per call when they arrive one at a time; turn-batches.ts), each in order as if it were its own call (one
  Redis TIME reading for the call: its orders arrived together). For each: admission (rate limits, waiting room),
  idempotency, every line's stock and per-user cap (all or none), the coupon's owner and use, the amount from the
  prices in Redis, then the reservation, the user's unpaid units, the order's state, the pending status and the
  stream entry. A refusal writes nothing but its Idempotency-Key's record. The key's replay, the coupon, the
  amount and every write after the stock's are includes/order-record.lua's, shared with commit-order-5.lua.

  Each order is a block of KEYS and of ARGV, the blocks one after the other (the caller passes the number of keys
  first: all the blocks'). An order of n lines takes 3 + 5 + 2n KEYS and 1 + 7 + 12 + n + 2 ARGV: its line count
  n first, then admission's 3 KEYS and 7 ARGV (includes/admission-gate.lua), then its own, numbered below as the
  order sees them (KEYS[1] is its first key after admission's, ARGV[1] its first argument after admission's). A
  call whose blocks do not add up to its KEYS and ARGV is refused whole with an error reply before any order
  runs.

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

  Returns one answer per order, in order, {code, value}; codes are mapped by ReserveOrderCode (packages/reservations/src/reserve-order-outcome.ts)
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
    an error reply             this order's part failed (includes/each-request.lua); the others are answered
]]
--- @include "admission-gate"
--- @include "idempotency-record"
--- @include "order-record"
--- @include "product-unpaid-units"
--- @include "each-request"
-- One order, KEYS and ARGV its own (past admission's), once its gate passed with `admission` (the info) and
-- `pass` (what accepting it does to a one-shot pass: admission_check's third answer, nil for none).
local function reserve_one(KEYS, ARGV, admission, pass)
  local fingerprint = ARGV[3]
  local idempotencyTtl = tonumber(ARGV[4])
  local lines = (#KEYS - 5) / 2
  local defaultCap = tonumber(ARGV[11])

  local replay = order_replay(KEYS, ARGV, admission)
  if replay then
    return replay
  end
  local used = admission_used(pass)
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
  admission_consume(pass)
  return {1, tostring(amount), admission}
end

local BLOCK_KEYS = ADMISSION_KEYS + 5 -- and 2 per line
local BLOCK_ARGS = 1 + ADMISSION_ARGS + 12 + 2 -- and 1 per line

-- Every block's offsets, read before any order runs: a call whose blocks do not add up is refused whole.
local starts = {}
local k, a = 0, 0
while a < #ARGV do
  local lines = tonumber(ARGV[a + 1])
  if not lines or lines < 1 or lines ~= math.floor(lines) then
    break
  end
  starts[#starts + 1] = {k, a, lines}
  k, a = k + BLOCK_KEYS + 2 * lines, a + BLOCK_ARGS + lines
end
if k ~= #KEYS or a ~= #ARGV or #starts == 0 then
  return redis.error_reply("reserve-order-n: " .. #KEYS .. " keys and " .. #ARGV .. " arguments are not whole " ..
    "orders of " .. BLOCK_KEYS .. " keys and " .. BLOCK_ARGS .. " arguments, 2 keys and 1 argument more per line, " ..
    "each led by its line count")
end
-- The order whose block follows KEYS[keysBefore] and ARGV[argsBefore]: its admission part after its line count.
local function order_block(keysBefore, argsBefore, lines, nowMs)
  local refusal, admission, pass = admission_check(keysBefore, argsBefore + 1, nowMs)
  if refusal then
    return refusal
  end
  local ownKeys = {unpack(KEYS, keysBefore + ADMISSION_KEYS + 1, keysBefore + BLOCK_KEYS + 2 * lines)}
  local ownArgs = {unpack(ARGV, argsBefore + 1 + ADMISSION_ARGS + 1, argsBefore + BLOCK_ARGS + lines)}
  return reserve_one(ownKeys, ownArgs, admission, pass)
end

local nowMs = admission_now()
local answers = {}
for i, start in ipairs(starts) do
  local keysBefore, argsBefore, lines = start[1], start[2], start[3]
  answers[i] = each_request(order_block, keysBefore, argsBefore, lines, nowMs)
end
return answers
