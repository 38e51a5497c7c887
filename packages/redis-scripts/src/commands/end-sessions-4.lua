--[[
  End admitted sessions of one room before their expiry, because the order each was accepted with ended (paid:
  checkout done; cancelled, expired or failed: nothing bought). The worker sends one call per room per batch
  (apps/worker, room-sessions.ts in @floodgate/admission), never one per order. Each session leaves the room's
  live count (KEYS[2], which maxActiveSessions and the stock-aware cap read) and the unreserved set (KEYS[3];
  a reserved session's mark stays until the tick after next at most), so the leader's tick admits the next
  shopper for it (includes/session-end.lua). A ticket that is no longer admitted (expired, revoked, or ended by
  an earlier call: a redelivered batch) is left as it is.

  KEYS[1] tickets     {room-<id>}:tickets
  KEYS[2] sessions    {room-<id>}:sessions
  KEYS[3] unreserved  {room-<id>}:unreserved
  KEYS[4] ended       {room-<id>}:ended (the leader's tick forgets the ticket after a while)

  ARGV[1] event channel (the intakes holding the tickets' WebSockets are told, as a tick tells an expiry)
  ARGV[2] room id
  ARGV[3..] ticket ids

  Returns the number of sessions ended now.
]]
--- @include "room-tickets"
--- @include "session-end"
local keys = {tickets = KEYS[1], sessions = KEYS[2], unreserved = KEYS[3], ended = KEYS[4]}
local nowMs = room_now_ms()
local ended = {}
for i = 3, #ARGV do
  local ticketId = ARGV[i]
  local t = ticket_read(keys.tickets, ticketId)
  if t and t.status == "admitted" then
    session_end(keys, ticketId, t, nowMs)
    ended[#ended + 1] = {ticketId, "expired"}
  end
end
if #ended > 0 then
  redis.call("PUBLISH", ARGV[1], cjson.encode({room = ARGV[2], ended = ended}))
end
return #ended
