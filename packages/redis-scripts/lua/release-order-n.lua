--[[
  Give back what an order reserved (stock, coupon) once the shard says it ended without a sale (cancelled,
  expired, failed). Exactly once: `released` is set with HSETNX, so a redelivered batch releases nothing.

  KEYS[1]    order state        {p}:order:<orderId>
  KEYS[2]    coupon redemption  {p}:cis:<couponIssueId> (a key that never exists when the order has none)
  KEYS[3..]  product states     {prd_...}:product, one per line
  ARGV[1]    order id
  ARGV[1+i]  quantity of line i

  Returns 1 released now, 0 released before, -1 no order state (nothing touched: reconcile repairs counters
  that a lost Redis state leaves behind).
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
if redis.call("HSETNX", KEYS[1], "released", "1") == 0 then
  return 0
end
for i = 3, #KEYS do
  -- A product whose state is gone is not recreated with a partial hash.
  if redis.call("EXISTS", KEYS[i]) == 1 then
    redis.call("HINCRBY", KEYS[i], "available", tonumber(ARGV[i - 1]))
  end
end
if redis.call("HGET", KEYS[2], "orderId") == ARGV[1] then
  redis.call("HDEL", KEYS[2], "orderId")
end
return 1
