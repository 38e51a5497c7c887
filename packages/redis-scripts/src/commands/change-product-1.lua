--[[
  Apply an admin change (PATCH /v1/products/:productId) to a product's Redis state, once Postgres committed it.

  Only when the state exists: plain HSET/HINCRBY would create a hash with one of its two fields, and
  reserve-order-n.lua fails on that (no price: "unknown product"; no available: a script error). A missing
  state is rebuilt from Postgres by reconcile, and Postgres already holds this change.

  KEYS[1] product state  {prd_...}:product  price, available, maxUnitsPerUser (absent: the deployment's default)

  ARGV[1] new price, "" to keep it
  ARGV[2] units to add to available, "0" for none. An increment, not a new value: units that orders reserved
          meanwhile stay reserved.
  ARGV[3] new per-user cap on unpaid units, "" to keep it. Units users hold already stay held: a lower cap only
          refuses their next orders.

  Returns
    {1, available}  changed; available afterwards
    {-1, 0}         no state for this product; nothing written
]]
local state = redis.call("HMGET", KEYS[1], "price", "available")
if not state[1] or not state[2] then
  return {-1, 0}
end
if ARGV[1] ~= "" then
  redis.call("HSET", KEYS[1], "price", ARGV[1])
end
if ARGV[3] ~= "" then
  redis.call("HSET", KEYS[1], "maxUnitsPerUser", ARGV[3])
end
return {1, redis.call("HINCRBY", KEYS[1], "available", ARGV[2])}
