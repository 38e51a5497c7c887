--[[
  Record the final status of operations a worker committed, and acknowledge their stream entries, for one
  partition in one call (a worker sends one such call per partition of its batch, all at once, each in its
  partition's slot: on a Redis Cluster they go to their own masters).

  KEYS[1]     partition stream {p}:ops
  KEYS[2..n]  status hashes {p}:op:<operationId> of the operations finished in this partition
  (variable key count: the caller passes it first; all keys carry the partition's hash tag)

  ARGV[1]     consumer group
  ARGV[2]     status TTL in seconds (a final status stays readable from Redis this long)
  ARGV[3]     A, the number of stream entry ids to acknowledge
  ARGV[4 .. 3+A]  the entry ids
  then, for each status key KEYS[i] (i = 2..n), three values: status, completedAt (epoch ms), failureReason
  ("" for none)

  Returns the number of entries acknowledged.
]]
local ttl = tonumber(ARGV[2])
local acked = tonumber(ARGV[3])
local base = 3 + acked
for i = 2, #KEYS do
  local at = base + (i - 2) * 3
  local reason = ARGV[at + 3]
  if reason == "" then
    redis.call("HSET", KEYS[i], "status", ARGV[at + 1], "completedAt", ARGV[at + 2])
  else
    redis.call("HSET", KEYS[i], "status", ARGV[at + 1], "completedAt", ARGV[at + 2], "failureReason", reason)
  end
  redis.call("EXPIRE", KEYS[i], ttl)
end
-- In slices: Lua's unpack stops at about 8,000 values, and a batch that waited for a shard can be larger.
local total = 0
for from = 4, base, 1000 do
  total = total + redis.call("XACK", KEYS[1], ARGV[1], unpack(ARGV, from, math.min(from + 999, base)))
end
return total
