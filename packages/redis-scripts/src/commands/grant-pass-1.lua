--[[
  Grant a room pass: an intake runs this before any admission token for the ticket leaves it (a join's or a
  poll's answer, a socket's "admitted" message), so a guarded request carrying the token finds its admission in
  the user's own slot (includes/admission-gate.lua). Idempotent, and every handout of one admission is the same
  token: the first grant stores the token it is given with its digest (includes/room-passes.lua), and every
  later grant (a poll, a socket, another intake) answers that stored token, which the caller hands out instead
  of its own. The gate admits only the stored token's digest.

  KEYS[1] the user's passes  {p}:pass:<roomId>:<userId> (includes/room-passes.lua)

  ARGV[1] ticket id
  ARGV[2] the admission's end, epoch ms (the ticket's expiresAt)
  ARGV[3] how long an ended ticket stays readable, ms (the room's retention of ended tickets)
  ARGV[4] the admission token the caller signed for the ticket (handed out if none was before)
  ARGV[5] its digest (first 16 bytes of its SHA-256, hex: admission-token-digest.ts)

  Returns
    {1, token}  the pass holds the admission: hand out `token` (the one stored by the first grant)
    {0, ""}     the ticket's pass was revoked (a revoke won the race with the read that led here), or its
                session ended on its order or idleness (includes/ended-session-pass.lua): hand out none
  A one-shot pass already used stays used (includes/one-shot-pass.lua): {1, its token}, refused as used.
  A pass an intake of the previous release granted has no token stored: it is left so (the tokens that intake
  handed out are checked by their signature, as before) and the caller's token is answered.
]]
--- @include "room-passes"
local tokenField = pass_token_field(ARGV[1])
local existing = redis.call("HGET", KEYS[1], ARGV[1])
if existing and (string.sub(existing, 1, 8) == "revoked|" or string.sub(existing, 1, 6) == "ended|") then
  return {0, ""}
end
if existing then
  local stored = redis.call("HGET", KEYS[1], tokenField)
  if stored then
    return {1, string.match(stored, "^[^|]*|([^|]*)|")}
  end
  -- The previous release's pass (admitted or used): no digest is added, or the tokens it handed out would be
  -- refused.
  return {1, ARGV[4]}
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expiresAt = tonumber(ARGV[2])
redis.call("HSET", KEYS[1], tokenField, ARGV[5] .. "|" .. ARGV[4] .. "|" .. expiresAt)
pass_write(KEYS[1], ARGV[1], "admitted|" .. expiresAt, expiresAt, tonumber(ARGV[3]), nowMs)
return {1, ARGV[4]}
