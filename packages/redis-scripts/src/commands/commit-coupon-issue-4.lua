--[[
  The second step of a coupon issue on a Redis Cluster, in the user's partition slot once the coupon's slot
  holds a unit for it (reserve-coupon-3.lua): the pending status, the redemption record, the stream entry and
  the Idempotency-Key's record, as issue-coupon-n.lua writes them on one Redis. The key is looked up again: a
  request with the same key may have been recorded since the first step looked.

  A commit later than ARGV[10] ms after the reservation is refused (includes/commit-window.lua says why).

  KEYS[1] status hash       {p}:op:<issueId>
  KEYS[2] partition stream  {p}:ops
  KEYS[3] redemption record {p}:cis:<issueId>
  KEYS[4] idempotency key   {p}:idem:<userId>:<Idempotency-Key> (ignored when ARGV[8] is "0")

  ARGV[1] issue id   ARGV[2] user id   ARGV[3] encoded message   ARGV[4] coupon id
  ARGV[5] discount type   ARGV[6] discount value   ARGV[7] request fingerprint   ARGV[8] idempotency TTL s
  ARGV[9] reserved at (epoch ms, the coupon master's TIME)   ARGV[10] commit window ms
  ARGV[11..13] a one-shot room's token (includes/one-shot-pass.lua): the room's queueing mirror
  {p}:gate:<roomId> and the user's passes {p}:pass:<roomId>:<userId> (the user's slot, as KEYS[1..4]; named
  here so the keys stay four), the ticket id ("" when the issue carries no one-shot token)

  Returns
    { 1, issueId}          recorded
    { 0, id}               replay: the key's request was recorded meanwhile as `id` (this unit is not needed)
    {code, value, "", 1}   replay of a recorded refusal
    {-100, existingId}     conflict: same key, different body
    {-101, ""}             too late: nothing written
    {-91, "used"}          the one-shot token was used by another request since the first step: nothing written
]]
--- @include "idempotency-record"
--- @include "commit-window"
--- @include "one-shot-pass"
local fingerprint = ARGV[7]
local idempotencyTtl = tonumber(ARGV[8])
if idempotencyTtl > 0 then
  local record = idempotency_lookup(KEYS[4], fingerprint)
  -- A request with the same key, sent at the same time, found this issue's unit held and was refused as
  -- "already issued" to it: that refusal points at this issue, which is recorded now, under the key too.
  local refusedForThis = record and record.kind == "refused" and record.code == -4 and record.value == ARGV[1]
  if record and not refusedForThis then
    return idempotency_answer(record, -100)
  end
end
if commit_too_late(ARGV[9], ARGV[10]) then
  return {-101, ""}
end
local used, pass = one_shot_commit(ARGV[11], ARGV[12], ARGV[13])
if used then
  return used
end
-- Pending status has no TTL: it must outlive any backlog. The worker sets the TTL when the status is final.
redis.call("HSET", KEYS[1], "status", "pending", "message", ARGV[3])
redis.call("HSET", KEYS[3], "couponId", ARGV[4], "userId", ARGV[2], "discountType", ARGV[5], "discountValue", ARGV[6])
redis.call("XADD", KEYS[2], "*", "id", ARGV[1], "m", ARGV[3])
idempotency_remember_accepted(KEYS[4], idempotencyTtl, fingerprint, ARGV[1])
one_shot_pass_consume(pass)
return {1, ARGV[1]}
