--[[
  An Idempotency-Key's record: the first answer a script gave to a request, replayed to every retry with the
  same key and body until the key's TTL (Stripe's semantics: a retry learns what happened, it never runs the
  request again, and a refusal stays the answer even if stock or a coupon frees up meanwhile). One string:
    "<fingerprint> <operationId>"      accepted as that operation
    "<fingerprint> !<code> <value>"    refused by the script with that code and value
  Admission refusals (rate limit, waiting room) are never recorded: the request did not run, so a retry may.
  Fingerprints are base64url and ids never start with "!", so the first space and the "!" are unambiguous.
  Used by every script that takes an Idempotency-Key: enqueue-operations-n, issue-coupon-n, reserve-order-n (one
  Redis); admit-request-4, commit-coupon-issue-4, commit-order-5, record-refusal-1 (the two steps on a cluster).
  Most start with idempotency_replay. Two answer a record they looked up themselves (idempotency_answer):
  record-refusal-1 (always sent with a key: no TTL check) and commit-coupon-issue-4 (a refusal naming its own
  issue lets it go on). enqueue-operations-n keeps its own check: a payment is never refused, so any record but
  its own acceptance is answered as a conflict.
]]

-- The record's answer for `fingerprint`, or nil when the key has none:
--   {kind = "accepted", id}, {kind = "refused", code, value}, or {kind = "conflict", id} (another body; id is
--   "" when the first request was refused and so created no operation).
local function idempotency_lookup(key, fingerprint)
  local previous = redis.call("GET", key)
  if not previous then
    return nil
  end
  local separator = string.find(previous, " ", 1, true)
  local answer = string.sub(previous, separator + 1)
  local refused = string.sub(answer, 1, 1) == "!"
  if string.sub(previous, 1, separator - 1) ~= fingerprint then
    return {kind = "conflict", id = refused and "" or answer}
  end
  if refused then
    local space = string.find(answer, " ", 1, true)
    return {kind = "refused", code = tonumber(string.sub(answer, 2, space - 1)), value = string.sub(answer, space + 1)}
  end
  return {kind = "accepted", id = answer}
end

-- Records an accepted request (ttl 0: the request has no key, nothing is written).
local function idempotency_remember_accepted(key, ttl, fingerprint, operationId)
  if ttl > 0 then
    redis.call("SET", key, fingerprint .. " " .. operationId, "EX", ttl)
  end
end

-- Records a refusal and returns it as the script's answer: {code, value}.
local function idempotency_refuse(key, ttl, fingerprint, code, value)
  if ttl > 0 then
    redis.call("SET", key, fingerprint .. " !" .. code .. " " .. value, "EX", ttl)
  end
  return {code, value}
end

-- A recorded refusal replayed: the first answer's code and value, no admission info, and 1 for "replayed".
local function idempotency_replayed_refusal(record)
  return {record.code, record.value, "", 1}
end

-- What a retry gets from its key's record (idempotency_lookup's), in the script's own codes and values:
-- accepted with this body -> {0, value, admissionInfo}, the value being describe(id) when the script passes that
-- function, else the id (a script without admission passes nil: {0, value}); refused -> the refusal replayed;
-- another body -> {conflictCode, id}.
local function idempotency_answer(record, conflictCode, admissionInfo, describe)
  if record.kind == "accepted" then
    local value = record.id
    if describe then
      value = describe(record.id)
    end
    return {0, value, admissionInfo}
  end
  if record.kind == "refused" then
    return idempotency_replayed_refusal(record)
  end
  return {conflictCode, record.id}
end

-- The answer of a request whose Idempotency-Key already holds a record (idempotency_answer), or nil: the key
-- has none, or the request has no key (ttl 0: nothing is looked up).
local function idempotency_replay(key, ttl, fingerprint, conflictCode, admissionInfo, describe)
  if ttl <= 0 then
    return nil
  end
  local record = idempotency_lookup(key, fingerprint)
  if not record then
    return nil
  end
  return idempotency_answer(record, conflictCode, admissionInfo, describe)
end
