--[[
  Revoke a room pass: run after revoke-ticket-7.lua (the room's slot) has revoked the ticket, so the user's
  slot refuses its token too ("revoked"). Written even when no pass was granted yet, so that a grant racing the
  revoke (its read came first) cannot admit the ticket afterwards. Idempotent: an admin's retry redoes it.

  KEYS[1] the user's passes  {p}:pass:<roomId>:<userId> (includes/room-passes.lua)

  ARGV[1] ticket id
  ARGV[2] the admission's end, epoch ms ("" for a ticket revoked before it was admitted)
  ARGV[3] how long an ended ticket stays readable, ms

  Returns 1.
]]
--- @include "room-passes"
local time = redis.call("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expiresAt = tonumber(ARGV[2]) or nowMs
pass_write(KEYS[1], ARGV[1], "revoked|" .. expiresAt, expiresAt, tonumber(ARGV[3]), nowMs)
return 1
