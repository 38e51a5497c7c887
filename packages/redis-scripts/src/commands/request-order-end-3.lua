--[[
  Ask for an order to end (a cancel by its user, or its expiry job): one `order_cancel` message on the order's
  partition stream, behind anything already queued for that user (a payment queued first is applied first).
  Only the first request counts; later ones (a second cancel, an expiry after a cancel) get its id back, or,
  once the order has ended and given its reservation back, a refusal. The
  worker decides: an order still awaiting payment ends, any other is left as it is.

  KEYS[1] order state   {p}:order:<orderId>   (written by reserve-order-n.lua)
  KEYS[2] status hash   {p}:op:<endId>
  KEYS[3] stream        {p}:ops
  (all carry the order's partition tag: the order id names its bucket)

  ARGV[1] end request id (ocx_..., minted by the caller)
  ARGV[2] order id
  ARGV[3] reason: "cancelled" | "expired"
  ARGV[4] createdAt, epoch ms
  ARGV[5] the user the caller acts for, or "" (the shop's server, the expiry job): an order of another user
          answers as unknown, so a shopper cannot probe or end someone else's order

  Returns
    { 1, endId}      requested
    { 0, endId}      already requested (by that id)
    {-1, ""}         no such order in Redis (never accepted, or its state expired long after it ended)
    {-2, ""}         the order already ended without a sale (released)
]]
local state = redis.call("HMGET", KEYS[1], "userId", "endId", "released")
if not state[1] or (ARGV[5] ~= "" and ARGV[5] ~= state[1]) then
  return {-1, ""}
end
if state[3] then
  return {-2, ""}
end
if state[2] then
  return {0, state[2]}
end
local message = cjson.encode({
  v = 1, kind = "order_cancel", id = ARGV[1], userId = state[1], orderId = ARGV[2], reason = ARGV[3],
  createdAt = tonumber(ARGV[4]),
})
redis.call("HSET", KEYS[1], "endId", ARGV[1])
redis.call("HSET", KEYS[2], "status", "pending", "message", message)
redis.call("XADD", KEYS[3], "*", "id", ARGV[1], "m", message)
return {1, ARGV[1]}
