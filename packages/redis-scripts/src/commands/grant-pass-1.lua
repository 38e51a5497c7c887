--[[
  Grant a room pass: an intake runs this before any admission token for the ticket leaves it (a join's or a
  poll's answer, a socket's "admitted" message), so a guarded request carrying the token finds its admission in
  the user's own slot (includes/admission-gate.lua). Idempotent: polls may grant the same ticket again.

  KEYS[1] the user's passes  {p}:pass:<roomId>:<userId> (includes/room-passes.lua)

  ARGV[1] ticket id
  ARGV[2] the admission's end, epoch ms (the ticket's expiresAt)
  ARGV[3] how long an ended ticket stays readable, ms (the room's retention of ended tickets)

  Returns 1 when the pass holds the admission, 0 when the ticket's pass was revoked (a revoke won the race
  with the read that led here: the caller hands out no token). A one-shot pass already used stays used
  (includes/one-shot-pass.lua): 1, and the token handed out again is refused as used.
]]
--- @include "room-passes"
local existing = redis.call("HGET", KEYS[1], ARGV[1])
if existing and string.sub(existing, 1, 8) == "revoked|" then
  return 0
end
if existing and string.sub(existing, 1, 5) == "used|" then
  return 1
end
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expiresAt = tonumber(ARGV[2])
pass_write(KEYS[1], ARGV[1], "admitted|" .. expiresAt, expiresAt, tonumber(ARGV[3]), nowMs)
return 1
