--[[
  Record the final status of operations a worker committed, and acknowledge their stream entries, for one
  partition in one call (a worker sends one such call per partition of its batch, all at once, each in its
  partition's slot: on a Redis Cluster they go to their own masters).

  KEYS[1]     partition stream {p}:ops
  KEYS[2..n]  for each operation finished in this partition, its status hash, then, when its value below says
              so, where the release before tail-keyed statuses kept it ({p}:op:<operationId>, queue-keys.ts)
  (variable key count: the caller passes it first; all keys carry the partition's hash tag)

  ARGV[1]     consumer group
  ARGV[2]     status TTL in seconds (a final status stays readable from Redis this long)
  ARGV[3]     idempotency TTL in seconds: a status hash that is also its Idempotency-Key's record (it holds an
              `fp`, empty for a payment's or deposit's, enqueue-operations-n.lua) stays this long instead, when it
              is longer
  ARGV[4]     A, the number of stream entry ids to acknowledge
  ARGV[5 .. 4+A]  the entry ids
  then, for each operation, four values: status, completedAt (epoch ms), failureReason ("" for none), and "1"
  when a former key follows its status key in KEYS, else "0"

  A status hash that does not exist under its key while a former one is named was written before the upgrade
  (a payment still in flight then): the final status goes where its pending one is.

  Returns the number of entries acknowledged.
]]
local ttl = tonumber(ARGV[2])
local idempotencyTtl = tonumber(ARGV[3])
local acked = tonumber(ARGV[4])
local base = 4 + acked
local k = 2
local at = base
while at < #ARGV do
  local key = KEYS[k]
  k = k + 1
  local held = redis.call("HMGET", key, "id", "fp")
  if ARGV[at + 4] == "1" then
    if not held[1] then
      key = KEYS[k]
      held = {}
    end
    k = k + 1
  end
  local reason = ARGV[at + 3]
  if reason == "" then
    redis.call("HSET", key, "status", ARGV[at + 1], "completedAt", ARGV[at + 2])
  else
    redis.call("HSET", key, "status", ARGV[at + 1], "completedAt", ARGV[at + 2], "failureReason", reason)
  end
  if held[2] and idempotencyTtl > ttl then
    redis.call("EXPIRE", key, idempotencyTtl)
  else
    redis.call("EXPIRE", key, ttl)
  end
  at = at + 4
end
-- In slices: Lua's unpack stops at about 8,000 values, and a batch that waited for a shard can be larger.
local total = 0
for from = 5, base, 1000 do
  total = total + redis.call("XACK", KEYS[1], ARGV[1], unpack(ARGV, from, math.min(from + 999, base)))
end
return total
