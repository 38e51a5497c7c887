--[[
  Settle one dead letter for `./floodgate dlq`: replay it (its message back on its partition stream with its
  original operation id, its status back to pending) or drop it. Whoever sets the claim first owns the entry:
  a second replay or drop of it, by another operator at the same time or from a stale listing, gets the first
  one's action back and writes nothing. The caller then removes the entry from the dead-letter stream (XDEL, a
  second call: that stream has no partition tag); if it stops in between, the claim tells the next replay or
  drop that only the XDEL is left.

  Every key carries the partition's hash tag, so under Redis Cluster this still runs in one slot; the
  dead-letter stream stays out of the script on purpose for that reason.

  KEYS[1] claim         {p}:dlq:<dead-letter entry id>
  KEYS[2] status hash   QueueKeys.status: {p}:st:<bucket><tail> for a payment, deposit or refund, else
                        {p}:op:<operationId>
  KEYS[3] stream        {p}:ops

  ARGV[1] action: "replay" | "drop"
  ARGV[2] operation id
  ARGV[3] the dead letter's `m` (a whole message, or a body beside its id: encodeMessageBody; only read for
          "replay")
  ARGV[4] claim TTL in seconds (it must outlast any listing an operator still acts on)

  Returns
    {1, streamEntryId}   replayed: claim set, status hash pending again, message appended
    {1, ""}              dropped: claim set, nothing else written (the failed status stays until its TTL)
    {0, action}          already claimed by that action ("replay" | "drop"); nothing written
]]
if not redis.call("SET", KEYS[1], ARGV[1], "EX", tonumber(ARGV[4]), "NX") then
  return {0, redis.call("GET", KEYS[1])}
end
if ARGV[1] == "drop" then
  return {1, ""}
end
-- The dead-lettering left a failed status with a TTL (or it has expired since): a fresh pending one, as the
-- intake writes it, without TTL, so the worker's final status replaces it and readers see the replay through.
-- A payment's status hash may also be its Idempotency-Key's record (`fp`, enqueue-operations-n.lua): that stays.
local fingerprint = redis.call("HGET", KEYS[2], "fp")
redis.call("DEL", KEYS[2])
redis.call("HSET", KEYS[2], "status", "pending", "id", ARGV[2], "message", ARGV[3])
if fingerprint then
  redis.call("HSET", KEYS[2], "fp", fingerprint)
end
local entryId = redis.call("XADD", KEYS[3], "*", "id", ARGV[2], "m", ARGV[3])
return {1, entryId}
