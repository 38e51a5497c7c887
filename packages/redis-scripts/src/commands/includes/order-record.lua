--[[
  What reserve-order-n.lua (one Redis) and commit-order-5.lua (the second step on a Redis Cluster) share: the
  Idempotency-Key's replay first (order_replay), then, once the lines are checked, the coupon's owner and use and
  the amount (order_amount), and the order's record (order_record): the user's unpaid units, the coupon's mark,
  the Idempotency-Key's record, the order's state, the pending status and the stream entry.

  Both scripts pass their own KEYS and ARGV (reserve-order-n.lua's as it sees them once the admission gate's are
  taken), whose first entries mean the same in both:
    keys[1] idempotency key  keys[2] status hash  keys[3] partition stream  keys[4] order state
    keys[5] coupon redemption record (a key that never exists when the order has none)
    args[1] order id  args[2] user id  args[3] fingerprint  args[4] idempotency TTL s  args[5] order state TTL s
    args[6] createdAt  args[7] expiresAt  args[8] currency  args[9] coupon issue id ("" none)
    args[10] largest amount  args[12] unpaid-units counter TTL s
  and each script's last two ARGV are the order's waiting-room session (order_session): the room id and the
  ticket id of the request's verified admission token, "" and "" without one.
  Needs includes/idempotency-record.lua.
]]
--- @include "idempotency-record"
--- @include "ended-session-pass"

-- The answer of an order whose Idempotency-Key already holds a record, or nil (idempotency_replay, conflict
-- code -1): an accepted order replays "<orderId> <amount>", the amount read from {p}:order:<orderId> (named from
-- this request's order state key, same slot), "" once that state is gone. admissionInfo: nil without admission.
local function order_replay(keys, args, admissionInfo)
  return idempotency_replay(keys[1], tonumber(args[4]), args[3], -1, admissionInfo, function(orderId)
    local amount = redis.call("HGET", string.gsub(keys[4], "[^:]+$", orderId), "amount")
    return orderId .. " " .. (amount or "")
  end)
end

-- The order's discount and amount from its lines' subtotal. Returns nil, discount, amount; or a refusal
-- {code, value} for the script to record: -4 unknown coupon issue, -5 the coupon is someone else's, -6 already
-- redeemed by that order, -7 the amount is above the largest allowed.
local function order_amount(keys, args, subtotal)
  local discount = 0
  if args[9] ~= "" then
    local coupon = redis.call("HMGET", keys[5], "userId", "discountType", "discountValue", "orderId")
    if not coupon[1] then
      return {-4, ""}
    end
    if coupon[1] ~= args[2] then
      return {-5, ""}
    end
    if coupon[4] then
      return {-6, coupon[4]}
    end
    local value = tonumber(coupon[3])
    if coupon[2] == "percent" then
      discount = math.floor(subtotal * value / 100)
    else
      discount = math.min(value, subtotal)
    end
  end
  local amount = subtotal - discount
  if amount > tonumber(args[10]) then
    return {-7, tostring(amount)}
  end
  return nil, discount, amount
end

-- The order's waiting-room session from the script's last two arguments, nil without one: it rides in the
-- stream message, so the worker ends the session when the order ends (a sale or none).
local function order_session(args)
  local roomId, ticketId = args[#args - 1], args[#args]
  if roomId == "" or ticketId == "" then
    return nil
  end
  return {roomId = roomId, ticketId = ticketId}
end

-- Records an accepted order: counterKeys[i] (the user's unpaid units of a product) goes up by quantities[i],
-- in that order, when the order has something to pay; items are the stream message's lines.
local function order_record(keys, args, items, discount, amount, counterKeys, quantities)
  local orderId = args[1]
  local userId = args[2]
  local couponIssueId = args[9]
  -- An order with nothing to pay is paid once recorded: its units never count as unpaid.
  local unpaid = amount > 0
  if unpaid then
    for i, counter in ipairs(counterKeys) do
      redis.call("INCRBY", counter, quantities[i])
      redis.call("EXPIRE", counter, tonumber(args[12]))
    end
  end
  if couponIssueId ~= "" then
    redis.call("HSET", keys[5], "orderId", orderId)
  end
  idempotency_remember_accepted(keys[1], tonumber(args[4]), args[3], orderId)
  local message = {
    v = 1, kind = "order", id = orderId, userId = userId, createdAt = tonumber(args[6]), items = items,
    discount = discount, amount = amount, currency = args[8], expiresAt = tonumber(args[7]),
  }
  if couponIssueId ~= "" then
    message.couponIssueId = couponIssueId
  end
  message.session = order_session(args)
  if message.session and not unpaid then
    -- Nothing to pay: checkout is done now, so the session's token stops admitting here (its pass, in this slot,
    -- named from the order state's key as the unpaid counters are); the worker ends it in the room.
    local passes = string.gsub(keys[4], "order:[^:]+$", function()
      return "pass:" .. message.session.roomId .. ":" .. userId
    end)
    ended_session_pass(passes, message.session.ticketId)
  end
  local encoded = cjson.encode(message)
  redis.call("HSET", keys[4], "userId", userId, "amount", amount, "couponIssueId", couponIssueId)
  if unpaid then
    redis.call("HSET", keys[4], "unpaid", "1")
  end
  redis.call("EXPIRE", keys[4], tonumber(args[5]))
  -- Pending status has no TTL: it must outlive any backlog. The worker sets the TTL when the status is final.
  redis.call("HSET", keys[2], "status", "pending", "message", encoded)
  redis.call("XADD", keys[3], "*", "id", orderId, "m", encoded)
end
