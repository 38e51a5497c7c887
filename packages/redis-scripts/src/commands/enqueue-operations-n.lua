--[[
  Accept payments, deposits and refunds, as many as the intake gathered in one turn of its event loop (one per
  call when they arrive one at a time): for each, in order, admission (rate limits, waiting room), idempotency
  check, status and stream append. One call is one Redis round trip and one script's overhead for all of them
  (issue 30: the per-call cost was two thirds of a payment's Redis CPU). Requests are independent: a refused or
  replayed one changes nothing and the next goes on; two with the same Idempotency-Key in one call are a
  request and its retry, the second answered from what the first stored.

  ARGV[1] is the call's layout: one character per request, in order, "f" for a full block, "c" for a compact
  one. The blocks follow one another after it, KEYS from KEYS[1] and ARGV from ARGV[2] (the caller passes the
  number of keys first: the blocks' total). A layout of another character, or whose blocks do not add up to the
  call's KEYS and ARGV, is refused whole with an error reply before any request runs. On a Redis Cluster every
  key of a call is in one partition's slot: the intake gathers per partition there.

  A full block, 6 KEYS and 11 ARGV, serves any request:
    KEYS +1..+3  admission: user bucket, room's queueing mirror, user's room passes (includes/admission-gate.lua)
    KEYS +4..+6  the request's own (below)
    ARGV +1..+7  admission (includes/admission-gate.lua)
    ARGV +8..+11 the request's own (below)
  A compact block, 4 KEYS and 6 ARGV, serves a request no waiting room guards (room argument "0"), whose gate is
  the user's bucket alone (admission_check_user: the same answers). It leaves out what the gate reads only for a
  room: the room's two keys (copies of the stream key then) and the user id and token arguments (issue 30: seven
  arguments fewer for the intake to encode and for Redis to read, about 0.07 µs each inside Redis).
    KEYS +1      the user's bucket {p}:rl:<class>:u:<userId> (a full block's KEYS +1)
    KEYS +2..+4  the request's own (below)
    ARGV +1..+2  the user's bucket: ms between tokens ("0": no user limit), burst (a full block's ARGV +1..+2)
    ARGV +3..+6  the request's own (below)

  The request's own 3 KEYS and 4 ARGV, in both blocks (+1: the first after its admission part):
    KEYS +1 status hash    {p}:st:<bucket><tail> (queue-keys.ts): one key per operation. With an
                           Idempotency-Key the tail is the key's (idempotentTail in operation-id.ts), so a retry
                           names this same hash, and the hash is the key's record: `fp` holds the fingerprint's
                           first 22 characters, or "" when the request's body stood for it
    KEYS +2 the user's other idempotency records {p}:idem:<userId>:<Key> (orders and coupon issues keep theirs
                           there, and payments did before their records moved into the status hash), a refund's
                           {p}:refund-idem:<paymentId>:<Key>; only read, and only when ARGV +3 is not "0"
    KEYS +3 partition stream {p}:ops
    (The client address's bucket is take-token-1.lua's, sent beside this.)

    ARGV +1 operation id (new, minted by the intake)
    ARGV +2 request fingerprint (hash of kind + body), or "": a payment's or deposit's body and its id's kind are
            the fingerprint's fields, so they are compared instead (the intake then hashes nothing: issue 30)
    ARGV +3 idempotency TTL in seconds, "0" when the request has no Idempotency-Key
    ARGV +4 the message's body (encodeMessageBody: the message less what its id says), the stream entry's `m`
            field and the status hash's `message` field

  The status hash: status "pending", id, message, and fp with a key. It has no TTL while pending (it must
  outlive any backlog); the worker's final status gives it STATUS_TTL_SECONDS, or IDEMPOTENCY_TTL_SECONDS when it
  holds an fp (finish-operations-n.lua).

  Returns one answer per request, in order:
    {1, id, admission}          accepted: status written, entry appended
    {0, existingId, admission}  replay: same key, same body; nothing written
    {-1, existingId}            conflict: same key, different body; nothing written ("" when the key's first
                                request was refused by another script: includes/idempotency-record.lua)
    {-2, ""}                    sent without a fingerprint, and the key has a record of its own
                                ({p}:idem:..., compared by fingerprint only): answered before the gate, nothing
                                written or taken; send it again with the fingerprint
    {-90 | -91, detail}         refused by admission control (includes/admission-gate.lua); nothing written
                                ({-91, "used"}, a one-shot token used before, after the key's replay)
    an error reply              this request's part failed (includes/each-request.lua); the others are answered
]]
--- @include "admission-gate"
--- @include "idempotency-record"
--- @include "each-request"
local COMPACT = string.byte("c")
local FULL_KEYS, FULL_ARGS = 6, 11
local COMPACT_KEYS, COMPACT_ARGS = 4, 6

-- Stores a request no record answered: its status hash (with `fp`, the key's fingerprint, when it has a key; nil
-- without one) and its stream entry.
local function enqueue_new(k, a, admission, pass, fp)
  local used = admission_used(pass)
  if used then
    return used
  end
  admission_consume(pass)
  local operationId = ARGV[a + 1]
  local body = ARGV[a + 4]
  if fp then
    redis.call("HSET", KEYS[k + 1], "status", "pending", "id", operationId, "message", body, "fp", fp)
  else
    redis.call("HSET", KEYS[k + 1], "status", "pending", "id", operationId, "message", body)
  end
  redis.call("XADD", KEYS[k + 3], "*", "id", operationId, "m", body)
  return {1, operationId, admission}
end

-- Whether a key's record in a status hash (`held`: its id, fp and message) is this request's first time. A
-- record without `fp` is no key's. Two fingerprints compare as they are. Otherwise the record's message body
-- and id kind (`pay_`, `dep_`: a payment and a deposit share a user's keys) stand for the fingerprint: a
-- payment's or deposit's body is the fingerprint's fields but the kind, one for one (encodeMessageBody), so
-- the same request gives the same bytes, under this release's and the one before's records alike.
local function is_first_request(held, operationId, fingerprint, body)
  if not held[2] then
    return false
  end
  if held[2] ~= "" and fingerprint ~= "" then
    return held[2] == fingerprint
  end
  return string.sub(held[1], 1, 4) == string.sub(operationId, 1, 4) and held[3] == body
end

-- A keyed request's record in its status hash ({id, fp, message}: all nil when it has none), or nil for a
-- request without a key. KEYS[k+1..k+3] and ARGV[a+1..a+4] are the request's own part.
local function read_record(k, a)
  if ARGV[a + 3] == "0" then
    return nil
  end
  return redis.call("HMGET", KEYS[k + 1], "id", "fp", "message")
end

-- Whether a keyed request came without its fingerprint and its key has no status hash: a record of the key's
-- own ({p}:idem:..., compared by fingerprint only) must then be looked for.
local function looks_for_own_record(a, held)
  return held ~= nil and not held[1] and ARGV[a + 2] == ""
end

-- Whether a keyed request came without its fingerprint to a key that has no status hash but a record of its
-- own: it is answered {-2, ""} before its gate, so the user's token is taken once, when the intake sends it
-- again with the fingerprint.
local function needs_fingerprint(k, a, held)
  return looks_for_own_record(a, held) and redis.call("EXISTS", KEYS[k + 2]) == 1
end

-- The request's own part, once its gate passed with `admission` (the info) and `pass` (what accepting it does
-- to a one-shot pass: admission_check's third answer, nil for none); `held` is read_record's.
local function enqueue_own(k, a, admission, pass, held)
  local operationId = ARGV[a + 1]
  -- 132 bits of the request's SHA-256 tell another body under the same key; the whole one would cost the
  -- key's record 21 bytes more (issue 30's memory per payment). A former record keeps the whole one. "": the
  -- request's body stands for it (is_first_request), and the record keeps an empty `fp`, which still marks it
  -- as a key's record (finish-operations-n.lua keeps it IDEMPOTENCY_TTL_SECONDS).
  local fingerprint = string.sub(ARGV[a + 2], 1, 22)
  local body = ARGV[a + 4]

  if held then
    if held[1] then
      if is_first_request(held, operationId, fingerprint, body) then
        return {0, held[1], admission}
      end
      -- A payment or deposit is never refused here, so any record that is not this request's acceptance is
      -- another request's.
      return {-1, held[1]}
    end
    -- Without a fingerprint, needs_fingerprint already found no record of the key's own: nothing to look up.
    local record = fingerprint ~= "" and idempotency_lookup(KEYS[k + 2], ARGV[a + 2])
    if record then
      if record.kind == "accepted" then
        return {0, record.id, admission}
      end
      return {-1, record.id or ""}
    end
  end
  return enqueue_new(k, a, admission, pass, held and fingerprint or nil)
end

local layout = ARGV[1] or ""
local requests = #layout
local _, compact = string.gsub(layout, "c", "")
if string.find(layout, "[^cf]") or
    #KEYS ~= compact * COMPACT_KEYS + (requests - compact) * FULL_KEYS or
    #ARGV ~= 1 + compact * COMPACT_ARGS + (requests - compact) * FULL_ARGS then
  return redis.error_reply("enqueue-operations-n: " .. #KEYS .. " keys and " .. #ARGV .. " arguments are not " ..
    "what layout \"" .. layout .. "\" takes (" .. FULL_KEYS .. " and " .. FULL_ARGS .. " per f, " .. COMPACT_KEYS ..
    " and " .. COMPACT_ARGS .. " per c, after the layout)")
end
-- One clock for the call: its requests arrived together.
local nowMs = admission_now()
-- The request whose block follows KEYS[k] and ARGV[a].
local function enqueue_block(k, a, isCompact, nowMs)
  local ownK, ownA = k + (isCompact and 1 or 3), a + (isCompact and 2 or 7)
  local held = read_record(ownK, ownA)
  local fingerprintNeeded, bucket
  if isCompact and looks_for_own_record(ownA, held) then
    -- A new keyed payment's usual case: its user's bucket and the key's own record in one read (issue 30: a
    -- command fewer per request; in calls of 16 such payments the script's time per request went from 18.8 to
    -- 15.7 µs). Both are strings (GET and SET only), which MGET answers as EXISTS would: false where none is.
    local read = redis.call("MGET", KEYS[k + 1], KEYS[ownK + 2])
    bucket, fingerprintNeeded = read[1], read[2] ~= false
  else
    fingerprintNeeded = needs_fingerprint(ownK, ownA, held)
  end
  if fingerprintNeeded then
    return {-2, ""}
  end
  local refusal, admission, pass
  if isCompact then
    refusal, admission = admission_check_user(KEYS[k + 1], ARGV[a + 1], ARGV[a + 2], nowMs, bucket)
  else
    refusal, admission, pass = admission_check(k, a, nowMs)
  end
  return refusal or enqueue_own(ownK, ownA, admission, pass, held)
end

local answers = {}
local k, a = 0, 1
for i = 1, requests do
  local isCompact = string.byte(layout, i) == COMPACT
  answers[i] = each_request(enqueue_block, k, a, isCompact, nowMs)
  if isCompact then
    k, a = k + COMPACT_KEYS, a + COMPACT_ARGS
  else
    k, a = k + FULL_KEYS, a + FULL_ARGS
  end
end
return answers
