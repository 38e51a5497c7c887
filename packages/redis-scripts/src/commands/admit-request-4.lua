--[[
  The user's half of a request that must also reserve units in another slot (a coupon's or a product's) on a
  Redis Cluster, sent beside that reservation in the same round trip: admission (rate limits, waiting room) and
  the Idempotency-Key's record, both in the user's partition slot. It decides nothing about the units and writes
  nothing but the admission token; the commit script that follows (commit-coupon-issue-4.lua or
  commit-order-5.lua) records the request once the units are held. On one Redis the single accepting script
  does all of it instead.

  KEYS[1..3] admission (includes/admission-gate.lua), then, numbered as the script sees them:
  KEYS[1] idempotency key {p}:idem:<userId>:<Idempotency-Key> (ignored when ARGV[2] is "0")

  ARGV[1..7] admission, then:
  ARGV[1] request fingerprint
  ARGV[2] idempotency TTL in seconds, "0" without an Idempotency-Key

  Returns
    { 2, "", admission}        go on: admitted, the key holds no record
    { 0, id, admission}        replay: the key's request was accepted as `id`
    {code, value, "", 1}       replay of a recorded refusal: the first answer, word for word
    {-100, existingId}         conflict: same key, different body ("" when the first request was refused)
    {-90 | -91, detail}        refused by admission control ({-91, "used"} after the key's replay)
]]
--- @include "admission-gate"
--- @include "idempotency-record"
local refusal, KEYS, ARGV = admission_gate()
if refusal then
  return refusal
end

local replay = idempotency_replay(KEYS[1], tonumber(ARGV[2]), ARGV[1], -100, ADMISSION_INFO)
if replay then
  return replay
end
-- A one-shot token is only read here; the commit consumes it (includes/one-shot-pass.lua).
local used = admission_used(ADMISSION_PASS)
if used then
  return used
end
return {2, "", ADMISSION_INFO}
