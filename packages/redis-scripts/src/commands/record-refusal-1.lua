--[[
  Records the refusal another slot decided (a sold-out coupon, say, on a Redis Cluster) as the answer of the
  request's Idempotency-Key, so a retry with the key gets it again, as the single accepting script records it
  on one Redis. The key may have got a record since the first step looked (a concurrent request with the same
  key): that record stays and is the answer.

  KEYS[1] idempotency key {p}:idem:<userId>:<Idempotency-Key>
  ARGV[1] request fingerprint   ARGV[2] idempotency TTL s (> 0)   ARGV[3] refusal code   ARGV[4] its value

  Returns
    {code, value}          recorded: the refusal given
    { 0, id}               the key's request was accepted meanwhile as `id`
    {code, value, "", 1}   another refusal was recorded meanwhile
    {-100, existingId}     conflict: same key, different body
]]
--- @include "idempotency-record"
local record = idempotency_lookup(KEYS[1], ARGV[1])
if record then
  return idempotency_answer(record, -100)
end
return idempotency_refuse(KEYS[1], tonumber(ARGV[2]), ARGV[1], tonumber(ARGV[3]), ARGV[4])
