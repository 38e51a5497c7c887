-- A user's live unpaid units of a product: {p}:unpaid:<productId>:<userId>, a counter in the user's partition
-- slot (beside the order's state, so settling is one slot on a Redis Cluster) that
-- reserve-order-n.lua raises by what an order (of amount > 0) reserves and marks that order's state `unpaid`.
-- The order stops being unpaid once: paid (settle-unpaid-units-n.lua) or ended without a sale
-- (release-order-n.lua). Whichever comes first deletes the mark and lowers the counters; a redelivery, or the
-- other path, finds no mark and lowers nothing. The counters' TTL only catches a mark lost with its order
-- state.

--- Lowers counterKeys[i] by quantities[i] when the order's state still holds its `unpaid` mark.
--- Returns 1 lowered now, 0 nothing to lower (settled before, or never counted).
local function settle_unpaid_units(orderStateKey, counterKeys, quantities)
  if redis.call("HDEL", orderStateKey, "unpaid") == 0 then
    return 0
  end
  for i, key in ipairs(counterKeys) do
    -- At zero the key goes: most users hold nothing most of the time.
    if redis.call("DECRBY", key, quantities[i]) <= 0 then
      redis.call("DEL", key)
    end
  end
  return 1
end
