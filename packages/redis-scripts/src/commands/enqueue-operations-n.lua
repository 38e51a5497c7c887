--[[
  Accept payments, deposits and refunds, as many as the intake gathered in one turn of its event loop (one per
  call when they arrive one at a time): for each, in order, admission (rate limits, waiting room), idempotency
  check, status and stream append. One call is one Redis round trip and one script's overhead for all of them
  (issue 30: the per-call cost was two thirds of a payment's Redis CPU). Requests are independent: a refused or
  replayed one changes nothing and the next goes on; two with the same Idempotency-Key in one call are a
  request and its retry, the second answered from what the first stored.

  Six KEYS and eleven ARGV per request, request i's at KEYS[6i+1..6i+6] and ARGV[11i+1..11i+11] (the caller passes
  the number of keys first: 6 x requests). On a Redis Cluster every key of a call is in one partition's slot:
  the intake gathers per partition there.
    KEYS +1..+3 admission: user bucket, room's queueing mirror, user's room passes (includes/admission-gate.lua)
    KEYS +4 status hash    {p}:st:<bucket><tail> (queue-keys.ts): one key per operation. With an
                           Idempotency-Key the tail is the key's (idempotentTail in operation-id.ts), so a retry
                           names this same hash, and the hash is the key's record: `fp` holds the fingerprint's
                           first 22 characters
    KEYS +5 the user's other idempotency records {p}:idem:<userId>:<Key> (orders and coupon issues keep theirs
                           there, and payments did before their records moved into the status hash), a refund's
                           {p}:refund-idem:<paymentId>:<Key>; only read, and only when ARGV +10 is not "0"
    KEYS +6 partition stream {p}:ops
    (The client address's bucket is take-token-1.lua's, sent beside this.)

    ARGV +1..+7 admission (includes/admission-gate.lua)
    ARGV +8 operation id (new, minted by the intake)
    ARGV +9 request fingerprint (hash of kind + body)
    ARGV +10 idempotency TTL in seconds, "0" when the request has no Idempotency-Key
    ARGV +11 the message's body (encodeMessageBody: the message less what its id says), the stream entry's `m`
            field and the status hash's `message` field

  The status hash: status "pending", id, message, and fp with a key. It has no TTL while pending (it must
  outlive any backlog); the worker's final status gives it STATUS_TTL_SECONDS, or IDEMPOTENCY_TTL_SECONDS when it
  holds an fp (finish-operations-n.lua).

  Returns one answer per request, in order:
    {1, id, admission}          accepted: status written, entry appended
    {0, existingId, admission}  replay: same key, same body; nothing written
    {-1, existingId}            conflict: same key, different body; nothing written ("" when the key's first
                                request was refused by another script: includes/idempotency-record.lua)
    {-90 | -91, detail}         refused by admission control (includes/admission-gate.lua); nothing written
                                ({-91, "used"}, a one-shot token used before, after the key's replay)
]]
--- @include "admission-gate"
--- @include "idempotency-record"
local KEYS_PER_REQUEST = 6
local ARGS_PER_REQUEST = 11

local function enqueue_one(k, a, nowMs)
  local refusal, admission, pass = admission_check(k, a, nowMs)
  if refusal then
    return refusal
  end
  local statusKey = KEYS[k + 4]
  local operationId = ARGV[a + 8]
  -- 132 bits of the request's SHA-256 tell another body under the same key; the whole one would cost the
  -- key's record 21 bytes more (issue 30's memory per payment). A former record keeps the whole one.
  local fingerprint = string.sub(ARGV[a + 9], 1, 22)
  local body = ARGV[a + 11]

  local keyed = ARGV[a + 10] ~= "0"
  if keyed then
    local held = redis.call("HMGET", statusKey, "id", "fp")
    if held[1] then
      if held[2] == fingerprint then
        return {0, held[1], admission}
      end
      -- A payment or deposit is never refused here, so any record that is not this request's acceptance is
      -- another request's.
      return {-1, held[1]}
    end
    local record = idempotency_lookup(KEYS[k + 5], ARGV[a + 9])
    if record then
      if record.kind == "accepted" then
        return {0, record.id, admission}
      end
      return {-1, record.id or ""}
    end
  end
  local used = admission_used(pass)
  if used then
    return used
  end
  admission_consume(pass)
  if keyed then
    redis.call("HSET", statusKey, "status", "pending", "id", operationId, "message", body, "fp", fingerprint)
  else
    redis.call("HSET", statusKey, "status", "pending", "id", operationId, "message", body)
  end
  redis.call("XADD", KEYS[k + 6], "*", "id", operationId, "m", body)
  return {1, operationId, admission}
end

local requests = #KEYS / KEYS_PER_REQUEST
if requests ~= math.floor(requests) or #ARGV ~= requests * ARGS_PER_REQUEST then
  return redis.error_reply("enqueue-operations-n: " .. #KEYS .. " keys and " .. #ARGV .. " arguments are not " ..
    KEYS_PER_REQUEST .. " and " .. ARGS_PER_REQUEST .. " per request")
end
-- One clock for the call: its requests arrived together.
local nowMs = admission_now()
local answers = {}
for i = 0, requests - 1 do
  answers[i + 1] = enqueue_one(i * KEYS_PER_REQUEST, i * ARGS_PER_REQUEST, nowMs)
end
return answers
