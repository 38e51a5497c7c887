--[[
  Accept one operation: idempotency check + status + stream append, atomically, in the intake's single round trip.

  KEYS[1] idempotency key   {p}:idem:<userId>:<Idempotency-Key> (ignored when ARGV[3] is "0")
  KEYS[2] status hash       {p}:op:<operationId>
  KEYS[3] partition stream  {p}:ops
  (all three carry the partition's hash tag, so they live in one Redis Cluster slot)

  ARGV[1] operation id (new, minted by the intake)
  ARGV[2] request fingerprint (hash of kind + body)
  ARGV[3] idempotency TTL in seconds, "0" when the request has no Idempotency-Key
  ARGV[4] encoded operation message: the stream entry's `m` field and the status hash's `message` field

  Returns
    {1, id}          accepted: status written, entry appended
    {0, existingId}  replay: same key, same body; nothing written
    {-1, existingId} conflict: same key, different body; nothing written
]]
local operationId = ARGV[1]
local fingerprint = ARGV[2]
local idempotencyTtl = tonumber(ARGV[3])

if idempotencyTtl > 0 then
  local previous = redis.call("GET", KEYS[1])
  if previous then
    local separator = string.find(previous, " ", 1, true)
    local previousFingerprint = string.sub(previous, 1, separator - 1)
    local previousId = string.sub(previous, separator + 1)
    if previousFingerprint == fingerprint then
      return {0, previousId}
    end
    return {-1, previousId}
  end
  redis.call("SET", KEYS[1], fingerprint .. " " .. operationId, "EX", idempotencyTtl)
end

-- Pending status has no TTL: it must outlive any backlog. The worker sets the TTL when the status is final.
redis.call("HSET", KEYS[2], "status", "pending", "message", ARGV[4])
redis.call("XADD", KEYS[3], "*", "id", operationId, "m", ARGV[4])
return {1, operationId}
