--[[
  Accept one payment or deposit: admission (rate limits, waiting room), idempotency check, status and stream
  append, atomically, in the intake's single round trip.

  KEYS[1..3] admission: user bucket, room's queueing mirror, user's room passes (includes/admission-gate.lua)
  KEYS[4] idempotency key   {p}:idem:<userId>:<Idempotency-Key>, a refund's {p}:refund-idem:<paymentId>:<Key>
                            (ignored when ARGV[8] is "0")
  KEYS[5] status hash       {p}:op:<operationId>
  KEYS[6] partition stream  {p}:ops
  (Every key carries the partition's hash tag: one Redis Cluster slot, a guarding room's gate included. The
  client address's bucket is take-token-1.lua's, sent beside this.)

  ARGV[1..5] admission (includes/admission-gate.lua)
  ARGV[6] operation id (new, minted by the intake)
  ARGV[7] request fingerprint (hash of kind + body)
  ARGV[8] idempotency TTL in seconds, "0" when the request has no Idempotency-Key
  ARGV[9] encoded operation message: the stream entry's `m` field and the status hash's `message` field

  Returns
    {1, id, admission}          accepted: status written, entry appended
    {0, existingId, admission}  replay: same key, same body; nothing written
    {-1, existingId}            conflict: same key, different body; nothing written ("" when the key's first
                                request was refused by another script: includes/idempotency-record.lua)
    {-90 | -91, detail}         refused by admission control (includes/admission-gate.lua); nothing written
]]
--- @include "admission-gate"
--- @include "idempotency-record"
local refusal, KEYS, ARGV = admission_gate()
if refusal then
  return refusal
end

local operationId = ARGV[1]
local fingerprint = ARGV[2]
local idempotencyTtl = tonumber(ARGV[3])

if idempotencyTtl > 0 then
  local record = idempotency_lookup(KEYS[1], fingerprint)
  if record then
    if record.kind == "accepted" then
      return {0, record.id, ADMISSION_INFO}
    end
    -- A payment or deposit is never refused here, so a refused record with this fingerprint cannot exist:
    -- any record that is not this request's acceptance is another request's.
    return {-1, record.id or ""}
  end
  idempotency_remember_accepted(KEYS[1], idempotencyTtl, fingerprint, operationId)
end

-- Pending status has no TTL: it must outlive any backlog. The worker sets the TTL when the status is final.
redis.call("HSET", KEYS[2], "status", "pending", "message", ARGV[4])
redis.call("XADD", KEYS[3], "*", "id", operationId, "m", ARGV[4])
return {1, operationId, ADMISSION_INFO}
