--[[
  The second step of an order on a Redis Cluster, in the user's partition slot once every product's slot holds
  the order's units (reserve-stock-2.lua, which answered each product's price and cap): the per-user cap, the
  coupon's owner and use, the amount, then the user's unpaid units, the coupon's mark, the order's state, the
  pending status, the stream entry and the Idempotency-Key's record, as reserve-order-n.lua writes them on one
  Redis. A refusal here is the request's answer (recorded under its key); the intake then gives the units back.
  A commit later than the window after the earliest reservation writes nothing (see commit-coupon-issue-4.lua).

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

  Returns as reserve-order-n.lua (codes -4 .. -8 only: the products' slots answered -2 and -3), plus
    {-101, ""}  too late: nothing written
]]
--- @include "idempotency-record"
local orderId = ARGV[1]
local userId = ARGV[2]
local fingerprint = ARGV[3]
local idempotencyTtl = tonumber(ARGV[4])
local defaultCap = tonumber(ARGV[11])

if idempotencyTtl > 0 then
  local record = idempotency_lookup(KEYS[1], fingerprint)
  if record then
    if record.kind == "accepted" then
      local amount = redis.call("HGET", string.gsub(KEYS[4], "[^:]+$", record.id), "amount")
      return {0, record.id .. " " .. (amount or "")}
    end
    if record.kind == "refused" then
      return idempotency_replayed_refusal(record)
    end
    return {-1, record.id}
  end
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if nowMs - tonumber(ARGV[13]) > tonumber(ARGV[14]) then
  return {-101, ""}
end
local function refuse(code, value)
  return idempotency_refuse(KEYS[1], idempotencyTtl, fingerprint, code, value)
end

local lines = tonumber(ARGV[15])
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
    counters[productId] = string.gsub(KEYS[4], "order:[^:]+$", "unpaid:" .. productId .. ":" .. userId)
    caps[productId] = tonumber(ARGV[base + 4]) or defaultCap
  end
  needed[productId] = (needed[productId] or 0) + quantity
  subtotal = subtotal + price * quantity
  items[i] = {productId = productId, quantity = quantity, unitPrice = price}
end
-- The per-user cap, per product, reported on the product's first line (as reserve-order-n.lua does).
local overCap = {}
for _, productId in ipairs(products) do
  local held = tonumber(redis.call("GET", counters[productId]) or "0")
  if held + needed[productId] > caps[productId] then
    overCap[#overCap + 1] = firstLine[productId] .. ":" .. held .. ":" .. caps[productId]
  end
end
if #overCap > 0 then
  return refuse(-8, table.concat(overCap, ","))
end

local couponIssueId = ARGV[9]
local discount = 0
if couponIssueId ~= "" then
  local coupon = redis.call("HMGET", KEYS[5], "userId", "discountType", "discountValue", "orderId")
  if not coupon[1] then
    return refuse(-4, "")
  end
  if coupon[1] ~= userId then
    return refuse(-5, "")
  end
  if coupon[4] then
    return refuse(-6, coupon[4])
  end
  local value = tonumber(coupon[3])
  if coupon[2] == "percent" then
    discount = math.floor(subtotal * value / 100)
  else
    discount = math.min(value, subtotal)
  end
end
local amount = subtotal - discount
if amount > tonumber(ARGV[10]) then
  return refuse(-7, tostring(amount))
end

-- An order with nothing to pay is paid once recorded: its units never count as unpaid.
local unpaid = amount > 0
if unpaid then
  for _, productId in ipairs(products) do
    redis.call("INCRBY", counters[productId], needed[productId])
    redis.call("EXPIRE", counters[productId], tonumber(ARGV[12]))
  end
end
if couponIssueId ~= "" then
  redis.call("HSET", KEYS[5], "orderId", orderId)
end
idempotency_remember_accepted(KEYS[1], idempotencyTtl, fingerprint, orderId)
local message = {
  v = 1, kind = "order", id = orderId, userId = userId, createdAt = tonumber(ARGV[6]), items = items,
  discount = discount, amount = amount, currency = ARGV[8], expiresAt = tonumber(ARGV[7]),
}
if couponIssueId ~= "" then
  message.couponIssueId = couponIssueId
end
local encoded = cjson.encode(message)
redis.call("HSET", KEYS[4], "userId", userId, "amount", amount, "couponIssueId", couponIssueId)
if unpaid then
  redis.call("HSET", KEYS[4], "unpaid", "1")
end
redis.call("EXPIRE", KEYS[4], tonumber(ARGV[5]))
-- Pending status has no TTL: it must outlive any backlog. The worker sets the TTL when the status is final.
redis.call("HSET", KEYS[2], "status", "pending", "message", encoded)
redis.call("XADD", KEYS[3], "*", "id", orderId, "m", encoded)
return {1, tostring(amount)}
