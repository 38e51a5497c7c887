--[[
  Issue one first-come-first-served coupon to one user, or refuse, atomically, in the intake's single round
  trip: admission (rate limits, waiting room), window check (Redis TIME, one clock for every intake), one per
  user, count < quantity, then the reservation (those checks and the unit held: includes/coupon-unit.lua, shared
  with reserve-coupon-3.lua), the pending status and the stream entry. A refusal writes nothing but its
  Idempotency-Key's record, so a retry with the key gets the first answer again (includes/idempotency-record.lua).

  KEYS[1..3] admission: user bucket, room's queueing mirror, user's room passes (includes/admission-gate.lua)
  then, numbered below as the script sees them once the admission keys are taken:
  KEYS[1] coupon state hash   {cpn_...}:coupon  fields quantity, startsAt, endsAt (epoch ms, "" for none), issued
  KEYS[2] coupon holders hash {cpn_...}:holders userId -> issue id
  KEYS[3] status hash         {p}:op:<issueId>  (same shape as an operation's: status, message)
  KEYS[4] partition stream    {p}:ops           (the user's partition, as for payments)
  KEYS[5] redemption record   {p}:cis:<issueId> couponId, userId, discount; read by reserve-order-n.lua
  KEYS[6] idempotency key     {p}:idem:<userId>:<Idempotency-Key> (ignored when ARGV[8] is "0")

  Redis Cluster: KEYS[1..2] carry the coupon's hash tag and KEYS[3..6] the user's partition tag, so they are
  in different slots and this script runs on one Redis (or Sentinel) only. On a cluster an issue takes two
  steps instead: reserve-coupon-3.lua beside admit-request-4.lua, then commit-coupon-issue-4.lua
  (packages/reservations/src/issue-coupon-in-two-steps.ts). The client address's bucket is not among the keys
  (take-token-1.lua, sent beside this).

  ARGV[1..7] admission (includes/admission-gate.lua), then, numbered as the script sees them:
  ARGV[1] issue id (new, minted by the intake)
  ARGV[2] user id
  ARGV[3] encoded coupon issue message: the stream entry's `m` field and the status hash's `message` field
  ARGV[4] coupon id
  ARGV[5] discount type ("fixed" | "percent")
  ARGV[6] discount value
  ARGV[7] request fingerprint (compared on replays of the same Idempotency-Key)
  ARGV[8] idempotency TTL in seconds, "0" without an Idempotency-Key

  Returns {code, value}; codes are mapped by IssueCouponCode (packages/reservations/src/issue-coupon-outcome.ts)
    { 1, issueId, admission} accepted: reserved, status written, entry appended
    { 0, issueId, admission} replay: same key, same body; nothing written
    {code, value, "", 1}     replay of a refusal below (-2 .. -5): the first answer, word for word
    {-6, existingId}         conflict: same key, different body ("" when the key's first request was refused)
    {-90 | -91, detail} refused by admission control (includes/admission-gate.lua); {-91, "used"} comes after the
                        key's replay: a one-shot token this issue consumes on acceptance
    {-1, ""}          unknown: no coupon state in Redis
    {-2, startsAt}    not open yet
    {-3, endsAt}      closed
    {-4, existingId}  the user already holds this coupon
    {-5, ""}          sold out
]]
--- @include "admission-gate"
--- @include "idempotency-record"
--- @include "coupon-unit"
local refusal, KEYS, ARGV = admission_gate()
if refusal then
  return refusal
end

local fingerprint = ARGV[7]
local idempotencyTtl = tonumber(ARGV[8])
local replay = idempotency_replay(KEYS[6], idempotencyTtl, fingerprint, -6, ADMISSION_INFO)
if replay then
  return replay
end
local used = admission_used(ADMISSION_PASS)
if used then
  return used
end
-- Every refusal from here on is the request's answer: recorded, so a retry with its key gets it again.
local function refuse(code, value)
  return idempotency_refuse(KEYS[6], idempotencyTtl, fingerprint, code, value)
end

local refused = coupon_unit_check(KEYS[1], KEYS[2], ARGV[2])
if refused then
  if refused[1] == -1 then
    -- Not the request's answer but the deployment's fault (a 503 until an operator restores it): not recorded.
    return refused
  end
  return refuse(refused[1], refused[2])
end

coupon_unit_take(KEYS[1], KEYS[2], ARGV[2], ARGV[1])
-- Pending status has no TTL: it must outlive any backlog. The worker sets the TTL when the status is final.
redis.call("HSET", KEYS[3], "status", "pending", "message", ARGV[3])
redis.call("HSET", KEYS[5], "couponId", ARGV[4], "userId", ARGV[2], "discountType", ARGV[5], "discountValue", ARGV[6])
redis.call("XADD", KEYS[4], "*", "id", ARGV[1], "m", ARGV[3])
idempotency_remember_accepted(KEYS[6], idempotencyTtl, fingerprint, ARGV[1])
admission_consume(ADMISSION_PASS)
return {1, ARGV[1], ADMISSION_INFO}
