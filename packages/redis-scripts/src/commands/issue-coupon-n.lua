--[[
  Issue first-come-first-served coupons to users, or refuse, atomically, in the intake's single round trip: as
  many requests as the intake gathered in one turn of its event loop (one per call when they arrive one at a
  time; turn-batches.ts), each in order as if it were its own call. For each: admission (rate limits, waiting
  room), window check (Redis TIME, one clock for every intake and one reading per call: its requests arrived
  together), one per user, count < quantity, then the reservation (those checks and the unit held:
  includes/coupon-unit.lua, shared with reserve-coupon-3.lua), the pending status and the stream entry. A
  refusal writes nothing but its Idempotency-Key's record, so a retry with the key gets the first answer again
  (includes/idempotency-record.lua). Each request sees what the ones before it in the call wrote, as it would
  in calls one after the other: two of one user in one call, the second already holds it.

  Each request is a block of 9 KEYS and 15 ARGV, the blocks one after the other (the caller passes the number of
  keys first: 9 per request). A call whose KEYS and ARGV are not whole blocks is refused whole with an error
  reply before any request runs.

  A block's KEYS +1..+3 are admission's: user bucket, room's queueing mirror, user's room passes
  (includes/admission-gate.lua); then, numbered below as +1.. after them:
  KEYS +1 coupon state hash   {cpn_...}:coupon  fields quantity, startsAt, endsAt (epoch ms, "" for none), issued
  KEYS +2 coupon holders hash {cpn_...}:holders userId -> issue id
  KEYS +3 status hash         {p}:op:<issueId>  (same shape as an operation's: status, message)
  KEYS +4 partition stream    {p}:ops           (the user's partition, as for payments)
  KEYS +5 redemption record   {p}:cis:<issueId> couponId, userId, discount; read by reserve-order-n.lua
  KEYS +6 idempotency key     {p}:idem:<userId>:<Idempotency-Key> (ignored when ARGV +8 is "0")

  Redis Cluster: KEYS +1..+2 carry the coupon's hash tag and KEYS +3..+6 the user's partition tag, so they are
  in different slots and this script runs on one Redis (or Sentinel) only. On a cluster an issue takes two
  steps instead: reserve-coupon-3.lua beside admit-request-4.lua, then commit-coupon-issue-4.lua
  (packages/reservations/src/issue-coupon-in-two-steps.ts). The client address's bucket is not among the keys
  (take-token-1.lua, sent beside this).

  A block's ARGV +1..+7 are admission's (includes/admission-gate.lua); then, numbered as +1.. after them:
  ARGV +1 issue id (new, minted by the intake)
  ARGV +2 user id
  ARGV +3 encoded coupon issue message: the stream entry's `m` field and the status hash's `message` field
  ARGV +4 coupon id
  ARGV +5 discount type ("fixed" | "percent")
  ARGV +6 discount value
  ARGV +7 request fingerprint (compared on replays of the same Idempotency-Key)
  ARGV +8 idempotency TTL in seconds, "0" without an Idempotency-Key

  Returns one answer per request, in order, {code, value}; codes are mapped by IssueCouponCode
  (packages/reservations/src/issue-coupon-outcome.ts)
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
    an error reply    this request's part failed (includes/each-request.lua); the others are answered
]]
--- @include "admission-gate"
--- @include "idempotency-record"
--- @include "coupon-unit"
--- @include "each-request"
local BLOCK_KEYS = ADMISSION_KEYS + 6
local BLOCK_ARGS = ADMISSION_ARGS + 8

-- The request whose block starts after KEYS[k] and ARGV[a].
local function issue_one(k, a, nowMs, windowNowMs)
  local refusal, admission, pass = admission_check(k, a, nowMs)
  if refusal then
    return refusal
  end
  k, a = k + ADMISSION_KEYS, a + ADMISSION_ARGS
  local issueId, userId, message = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local idempotencyKey = KEYS[k + 6]
  local fingerprint = ARGV[a + 7]
  local idempotencyTtl = tonumber(ARGV[a + 8])
  local replay = idempotency_replay(idempotencyKey, idempotencyTtl, fingerprint, -6, admission)
  if replay then
    return replay
  end
  local used = admission_used(pass)
  if used then
    return used
  end

  local refused = coupon_unit_check(KEYS[k + 1], KEYS[k + 2], userId, windowNowMs)
  if refused then
    if refused[1] == -1 then
      -- Not the request's answer but the deployment's fault (a 503 until an operator restores it): not recorded.
      return refused
    end
    -- Every refusal from here on is the request's answer: recorded, so a retry with its key gets it again.
    return idempotency_refuse(idempotencyKey, idempotencyTtl, fingerprint, refused[1], refused[2])
  end

  coupon_unit_take(KEYS[k + 1], KEYS[k + 2], userId, issueId)
  -- Pending status has no TTL: it must outlive any backlog. The worker sets the TTL when the status is final.
  redis.call("HSET", KEYS[k + 3], "status", "pending", "message", message)
  redis.call("HSET", KEYS[k + 5], "couponId", ARGV[a + 4], "userId", userId, "discountType", ARGV[a + 5],
    "discountValue", ARGV[a + 6])
  redis.call("XADD", KEYS[k + 4], "*", "id", issueId, "m", message)
  idempotency_remember_accepted(idempotencyKey, idempotencyTtl, fingerprint, issueId)
  admission_consume(pass)
  return {1, issueId, admission}
end

local requests = #KEYS / BLOCK_KEYS
if requests ~= math.floor(requests) or #ARGV ~= requests * BLOCK_ARGS then
  return redis.error_reply("issue-coupon-n: " .. #KEYS .. " keys and " .. #ARGV .. " arguments are not whole " ..
    "requests of " .. BLOCK_KEYS .. " and " .. BLOCK_ARGS)
end
local nowMs = admission_now()
-- The coupon's window is compared in whole milliseconds.
local windowNowMs = math.floor(nowMs)
local answers = {}
for i = 1, requests do
  answers[i] = each_request(issue_one, (i - 1) * BLOCK_KEYS, (i - 1) * BLOCK_ARGS, nowMs, windowNowMs)
end
return answers
