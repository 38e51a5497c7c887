--[[
  Accept one payment, deposit or refund: admission (rate limits, waiting room), idempotency check, status and
  stream append, atomically, in the intake's single round trip.

  KEYS[1..3] admission: user bucket, room's queueing mirror, user's room passes (includes/admission-gate.lua)
  KEYS[4] status hash       {p}:st:<bucket><tail> (queue-keys.ts): one key per operation. With an
                            Idempotency-Key the tail is the key's (idempotentTail in operation-id.ts), so a retry
                            names this same hash, and the hash is the key's record: `fp` holds the fingerprint's
                            first 22 characters
  KEYS[5] the user's other idempotency records {p}:idem:<userId>:<Key> (orders and coupon issues keep theirs
                            there, and payments did before their records moved into the status hash), a refund's
                            {p}:refund-idem:<paymentId>:<Key>; only read, and only when ARGV[8] is not "0"
  KEYS[6] partition stream  {p}:ops
  (Every key carries the partition's hash tag: one Redis Cluster slot, a guarding room's gate included. The
  client address's bucket is take-token-1.lua's, sent beside this.)

  ARGV[1..5] admission (includes/admission-gate.lua)
  ARGV[6] operation id (new, minted by the intake)
  ARGV[7] request fingerprint (hash of kind + body)
  ARGV[8] idempotency TTL in seconds, "0" when the request has no Idempotency-Key
  ARGV[9] the message's body (encodeMessageBody: the message less what its id says), the stream entry's `m`
          field and the status hash's `message` field

  The status hash: status "pending", id, message, and fp with a key. It has no TTL while pending (it must
  outlive any backlog); the worker's final status gives it STATUS_TTL_SECONDS, or IDEMPOTENCY_TTL_SECONDS when it
  holds an fp (finish-operations-n.lua).

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
-- 132 bits of the request's SHA-256 tell another body under the same key; the whole one would cost the
-- key's record 21 bytes more (issue 30's memory per payment). A former record keeps the whole one.
local fingerprint = string.sub(ARGV[2], 1, 22)
local keyed = ARGV[3] ~= "0"

if keyed then
  local held = redis.call("HMGET", KEYS[1], "id", "fp")
  if held[1] then
    if held[2] == fingerprint then
      return {0, held[1], ADMISSION_INFO}
    end
    -- A payment or deposit is never refused here, so any record that is not this request's acceptance is
    -- another request's.
    return {-1, held[1]}
  end
  local record = idempotency_lookup(KEYS[2], ARGV[2])
  if record then
    if record.kind == "accepted" then
      return {0, record.id, ADMISSION_INFO}
    end
    return {-1, record.id or ""}
  end
  redis.call("HSET", KEYS[1], "status", "pending", "id", operationId, "message", ARGV[4], "fp", fingerprint)
else
  redis.call("HSET", KEYS[1], "status", "pending", "id", operationId, "message", ARGV[4])
end
redis.call("XADD", KEYS[3], "*", "id", operationId, "m", ARGV[4])
return {1, operationId, ADMISSION_INFO}
