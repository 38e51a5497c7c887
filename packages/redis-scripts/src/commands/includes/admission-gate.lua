--[[
  Admission control, run first by every script that accepts work on a guarded route class (payments,
  deposits, coupon issues, orders), so limits and the waiting room cost no extra round trip. It takes the first
  3 KEYS and 7 ARGV, and hands the including script the rest, which it reads as its own KEYS and ARGV:
    local refusal, KEYS, ARGV = admission_gate()

  KEYS[1] the user's token bucket     {p}:rl:<class>:u:<userId>  (a string: the bucket's theoretical arrival time)
  KEYS[2] the room's queueing mirror  {p}:gate:<roomId>          "1" while the room queues (written by the
                                      admission leader into every partition; absent or "0": it does not)
  KEYS[3] the user's room passes      {p}:pass:<roomId>:<userId> a hash ticketId -> "<status>|<expiresAt>",
                                      status admitted | revoked | used | ended (grant-pass-1.lua before a
                                      token leaves an intake, revoke-pass-1.lua after a revoke,
                                      includes/one-shot-pass.lua, includes/ended-session-pass.lua);
                                      "token:<ticketId>" -> the digest of the token handed out
                                      (includes/room-passes.lua); and "<ticketId>:used" -> a session's last
                                      use (includes/session-idle.lua)
  Without a room (ARGV[3] "0") KEYS[2] and KEYS[3] are the user's stream, never touched. Every key is in the
  user's partition slot, so the including script runs on a Redis Cluster: the room's own keys stay in the
  room's slot, mirrored here by their writers.

  ARGV[1] user bucket: ms between tokens ("0": no user limit)   ARGV[2] user bucket: burst (tokens it holds)
  ARGV[3] the guarding room: "0" none, "1" a room whose tokens serve a whole session, "2" a one-shot room (its
          token is consumed by the request accepted with it: includes/one-shot-pass.lua); either followed by
          "/<idleMs>" for a room whose sessions end when idle (sessionIdleSeconds: includes/session-idle.lua):
          a request that passes with a token records its use, and while the room queues a token idle that long
          is refused `expired`
  ARGV[4] the request's user id
  ARGV[5] the ticket id the request's admission token claims, "" for none
  ARGV[6] the token's digest (first 16 bytes of its SHA-256, hex: admission-token-digest.ts), "" for none
  ARGV[7] "1" when the intake verified the token's signature, else "0": asked for only by a pass without a
          digest (written by an intake of the previous release), which this gate refuses with "unsigned"

  The client address's bucket is not here: it has its own slot, so the intake takes it with take-token-1.lua,
  sent beside this script in the same round trip (apps/intake/src/admission/address-buckets.ts). The guarded
  traffic the `auto` mode measures is counted by each intake and flushed to the room (count-room-traffic-1.lua).
  The token is proven ours by its digest: the pass holds the digest of the one token handed out for the
  ticket, so a token changed in any byte, a token never handed out (even one validly signed) and a ticket of
  another user (not among this user's passes) are refused, with no signature checked on the request path.
  The intake reads the claims unverified and refuses a token of another user or room from them first.

  Token buckets are GCRA on Redis TIME (includes/token-bucket.lua), so intake processes with skewed clocks
  agree.

  A refusal returns from the including script before it reads or writes anything of its own:
    {-90, "user,<retryAfterMs>"}                         over the user's limit; nothing consumed
    {-91, "<reason>"}                                     the room queues and the request holds no admission:
                                                          no_token | unknown_ticket | not_handed_out
                                                          (digest differs) | unsigned (a pass without a
                                                          digest, signature not verified: the intake verifies
                                                          and sends again) | revoked | expired |
                                                          used (a one-shot token, after the replay: below)
  A pass consumes one token from the user's bucket and sets ADMISSION_INFO, which the script appends to its
  accepting answer: "<userRemaining>,<userResetMs>" (-1 without a user limit).
  Without a room the gate is the user's bucket alone, and admission_check_user(bucket, msPerToken, burst, nowMs,
  stored) runs just that for a script that sends no room block then (enqueue-operations-n.lua's compact
  requests): the same refusal, take and admission info as admission_check with ARGV[3] "0". `stored` is the
  bucket's value when the script already read it (false for none), or nil to have it read.
  A one-shot token already used passes here (no bucket token taken) and sets ADMISSION_PASS.used: the including
  script checks its Idempotency-Key's replay first, then refuses with admission_used(ADMISSION_PASS)
  ({-91, "used"}), so the retry of the request that used it still gets its answer. An accepting script calls
  admission_consume(ADMISSION_PASS) with its writes: a one-shot token is used from then on.
]]
--- @include "token-bucket"
--- @include "one-shot-pass"
--- @include "room-passes"
--- @include "session-idle"
local ADMISSION_KEYS = 3
local ADMISSION_ARGS = 7
local ADMISSION_INFO = ""
local ADMISSION_PASS = nil

-- The user's bucket, looked at: the refusal when it holds no token, else nil and what taking the token stores
-- and answers (token_bucket_peek's nextTat, remaining and resetMs). `stored`: the bucket's value if already read.
local function admission_user_peek(userBucket, msPerToken, burst, nowMs, stored)
  local userOk, userTat, userLeft, userReset, userRetry =
    token_bucket_peek(userBucket, tonumber(msPerToken), tonumber(burst), nowMs, nil, stored)
  if not userOk then
    return {-90, "user," .. userRetry}
  end
  return nil, userTat, userLeft, userReset
end

-- The gate for the request whose block is KEYS[k+1..k+3] and ARGV[a+1..a+7] (a script that accepts many
-- requests in one call, enqueue-operations-n.lua, has one block per request), at `nowMs`. Returns the refusal,
-- or nil, the admission info of a pass, whose token it has taken, and what accepting the request does to a
-- one-shot pass (nil: nothing; {used = true}: refuse after the replay check; else the pass to consume).
local function admission_check(k, a, nowMs)
  local userBucket = KEYS[k + 1]
  local userRefusal, userTat, userLeft, userReset =
    admission_user_peek(userBucket, ARGV[a + 1], ARGV[a + 2], nowMs)
  if userRefusal then
    return userRefusal
  end

  local oneShot = nil
  local room, idleMs = string.match(ARGV[a + 3], "^(%d)/?(%d*)$")
  idleMs = tonumber(idleMs)
  local ticketId = ARGV[a + 5]
  local pass = nil
  if room ~= "0" and redis.call("GET", KEYS[k + 2]) == "1" then
    if ticketId == "" then
      return {-91, "no_token"}
    end
    local status, expiresAt = one_shot_pass_read(KEYS[k + 3], ticketId)
    if not status then
      return {-91, "unknown_ticket"}
    end
    -- The exact token handed out, before anything is said about the ticket's standing.
    local handedOut = redis.call("HGET", KEYS[k + 3], pass_token_field(ticketId))
    if handedOut then
      if string.sub(handedOut, 1, 32) ~= ARGV[a + 6] then
        return {-91, "not_handed_out"}
      end
    elseif ARGV[a + 7] ~= "1" then
      return {-91, "unsigned"}
    end
    if status == "revoked" then
      return {-91, "revoked"}
    end
    if (status ~= "admitted" and status ~= "used") or expiresAt <= nowMs then
      return {-91, "expired"}
    end
    if idleMs and session_idle(session_last_use(KEYS[k + 3], ticketId), nowMs, idleMs) then
      return {-91, "expired"}
    end
    pass = expiresAt
    if status == "used" then
      return nil, userLeft .. "," .. userReset, {used = true}
    end
    if room == "2" then
      oneShot = {key = KEYS[k + 3], ticketId = ticketId, expiresAt = expiresAt}
    end
  end

  token_bucket_take(userBucket, userTat, userReset)
  if idleMs and ticketId ~= "" then
    -- The use that keeps the session alive (checked above while the room queues; recorded whether it queues or
    -- not, for a pass that admits: one read more then).
    if not pass then
      -- The room did not queue, so nothing above checked the token: only the token handed out keeps its
      -- session alive (a made-up one naming this user's ticket touches nothing).
      local status, expiresAt = one_shot_pass_read(KEYS[k + 3], ticketId)
      local handedOut = redis.call("HGET", KEYS[k + 3], pass_token_field(ticketId))
      local genuine = (handedOut and string.sub(handedOut, 1, 32) == ARGV[a + 6]) or
        (not handedOut and ARGV[a + 7] == "1")
      if genuine and (status == "admitted" or status == "used") then
        pass = expiresAt
      end
    end
    if pass then
      session_touch(KEYS[k + 3], ticketId, nowMs, pass)
    end
  end
  return nil, userLeft .. "," .. userReset, oneShot
end

-- The gate of a request no room guards, from its user bucket's key, ms per token and burst: admission_check
-- with ARGV[3] "0", whose room keys and token arguments a caller then need not send. Returns the refusal, or nil
-- and the admission info of the pass, whose token it has taken.
local function admission_check_user(userBucket, msPerToken, burst, nowMs, stored)
  local userRefusal, userTat, userLeft, userReset =
    admission_user_peek(userBucket, msPerToken, burst, nowMs, stored)
  if userRefusal then
    return userRefusal
  end
  token_bucket_take(userBucket, userTat, userReset)
  return nil, userLeft .. "," .. userReset
end

-- A one-shot token already used, checked after the Idempotency-Key's replay: its refusal, or nil.
local function admission_used(pass)
  if pass and pass.used then
    return {-91, "used"}
  end
  return nil
end

-- An accepted request consumes its one-shot token (nothing for a session token or none).
local function admission_consume(pass)
  one_shot_pass_consume(pass)
end

-- Redis TIME in epoch ms.
local function admission_now()
  local time = redis.call("TIME")
  return tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
end

-- The gate of a script that takes one request: its block first, the script's own KEYS and ARGV handed back.
local function admission_gate()
  local refusal, info, pass = admission_check(0, 0, admission_now())
  if refusal then
    return refusal
  end
  ADMISSION_INFO = info
  ADMISSION_PASS = pass
  return nil, {unpack(KEYS, ADMISSION_KEYS + 1)}, {unpack(ARGV, ADMISSION_ARGS + 1)}
end
