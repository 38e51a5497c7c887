--[[
  The second step of an order on a Redis Cluster, in the user's partition slot once every product's slot holds
  the order's units (reserve-stock-2.lua, which answered each product's price and cap): the per-user cap, the
  coupon's owner and use, the amount, then the user's unpaid units, the coupon's mark, the order's state, the
  pending status, the stream entry and the Idempotency-Key's record, as reserve-order-n.lua writes them on one
  Redis (the key's replay, the coupon, the amount and those writes: includes/order-record.lua, shared with it).
  A refusal here is the request's answer (recorded under its key); the intake then gives the units back. A
  commit later than the window after the earliest reservation writes nothing (see commit-coupon-issue-4.lua).

  KEYS[1]    idempotency key     {p}:idem:<userId>:<Idempotency-Key> (ignored when ARGV[4] is "0")
  KEYS[2]    status hash         {p}:op:<orderId>
  KEYS[3]    partition stream    {p}:ops
  KEYS[4]    order state         {p}:order:<orderId>
  KEYS[5]    coupon redemption   {p}:cis:<couponIssueId> (a key that never exists when the order has none; the
                                 intake refuses another user's coupon before: its record is in another slot)
  The user's unpaid units of each product, {p}:unpaid:<productId>:<userId>, are named from KEYS[4] (same slot):
  the keys stay a fixed five, because the intake's auto-pipelined cluster connection routes a script by its
  first argument, which for a variable number of keys would be that number, not a key.

  ARGV[1..12] as reserve-order-n.lua's: order id, user id, fingerprint, idempotency TTL, order state TTL,
              createdAt, expiresAt, currency, coupon issue id ("" none), largest amount, default cap, counter TTL
  ARGV[13] earliest reserved-at of the order's products (epoch ms, their masters' TIME)
  ARGV[14] commit window ms
  ARGV[15] number of lines n, then for line i: ARGV[15+4i-3..15+4i] product id, quantity, unit price, the
           product's own cap ("" for none)
  ARGV[16+4n..18+4n] a one-shot room's token (includes/one-shot-pass.lua): the room's queueing mirror
           {p}:gate:<roomId>, the user's passes {p}:pass:<roomId>:<userId> (both in the user's slot, named here
           for the reason above), the ticket id ("" when the order carries no one-shot token)
  ARGV[19+4n] ARGV[20+4n] the order's waiting-room session: room id and ticket id of the verified admission
           token ("" "" without one), carried in the stream message (includes/order-record.lua)

  Returns as reserve-order-n.lua (codes -4 .. -8 only: the products' slots answered -2 and -3), plus
    {-101, ""}  too late: nothing written
    {-91, "used"} the one-shot token was used by another request since the first step: nothing written
]]
--- @include "idempotency-record"
--- @include "order-record"
--- @include "commit-window"
--- @include "one-shot-pass"
local userId = ARGV[2]
local fingerprint = ARGV[3]
local idempotencyTtl = tonumber(ARGV[4])
local defaultCap = tonumber(ARGV[11])

local replay = order_replay(KEYS, ARGV, nil)
if replay then
  return replay
end
if commit_too_late(ARGV[13], ARGV[14]) then
  return {-101, ""}
end
local function refuse(code, value)
  return idempotency_refuse(KEYS[1], idempotencyTtl, fingerprint, code, value)
end

local lines = tonumber(ARGV[15])
local oneShot = 15 + 4 * lines
local used, pass = one_shot_commit(ARGV[oneShot + 1], ARGV[oneShot + 2], ARGV[oneShot + 3])
if used then
  return used
end
local items = {}
local needed = {}
local firstLine = {}
local products = {}
local counters = {}
local caps = {}
local subtotal = 0
for i = 1, lines do
  local base = 15 + 4 * (i - 1)
  local productId = ARGV[base + 1]
  local quantity = tonumber(ARGV[base + 2])
  local price = tonumber(ARGV[base + 3])
  if not firstLine[productId] then
    firstLine[productId] = i
    products[#products + 1] = productId
    counters[#products] = string.gsub(KEYS[4], "order:[^:]+$", "unpaid:" .. productId .. ":" .. userId)
    caps[productId] = tonumber(ARGV[base + 4]) or defaultCap
  end
  needed[productId] = (needed[productId] or 0) + quantity
  subtotal = subtotal + price * quantity
  items[i] = {productId = productId, quantity = quantity, unitPrice = price}
end
-- The per-user cap, per product, reported on the product's first line (as reserve-order-n.lua does).
local overCap = {}
local quantities = {}
for i, productId in ipairs(products) do
  quantities[i] = needed[productId]
  local held = tonumber(redis.call("GET", counters[i]) or "0")
  if held + quantities[i] > caps[productId] then
    overCap[#overCap + 1] = firstLine[productId] .. ":" .. held .. ":" .. caps[productId]
  end
end
if #overCap > 0 then
  return refuse(-8, table.concat(overCap, ","))
end

local refused, discount, amount = order_amount(KEYS, ARGV, subtotal)
if refused then
  return refuse(refused[1], refused[2])
end
order_record(KEYS, ARGV, items, discount, amount, counters, quantities)
one_shot_pass_consume(pass)
return {1, tostring(amount)}
