--[[
  Ends one admitted session before its expiry, in the room's slot (end-sessions-4.lua: its order ended;
  end-idle-sessions-5.lua: idle): it leaves the room's live count ({room-<id>}:sessions, which maxActiveSessions
  and the stock-aware cap read) and the unreserved set (but for a reservation's mark: includes/room-unreserved.lua),
  so the leader's tick admits the next shopper for it; its ticket reads `expired` from now (its end is now) and is
  forgotten with the other ended tickets.
  keys: tickets, sessions, unreserved, ended. Needs includes/room-tickets.lua.
]]
--- @include "room-unreserved"
local function session_end(keys, ticketId, t, nowMs)
  t.status = "expired"
  t.expiresAt = nowMs
  ticket_write(keys.tickets, ticketId, t)
  redis.call("ZREM", keys.sessions, ticketId)
  room_unreserved_leave(keys.unreserved, ticketId)
  redis.call("ZADD", keys.ended, nowMs, ticketId)
end
