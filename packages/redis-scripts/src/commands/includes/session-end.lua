--[[
  Ends one admitted session before its expiry, in the room's slot (end-sessions-4.lua: its order ended;
  end-idle-sessions-5.lua: idle): it leaves the room's live count ({room-<id>}:sessions, which maxActiveSessions
  and the stock-aware cap read) and the unreserved set (a reserved session's mark stays until the tick after
  next at most, as on a revoke), so the leader's tick admits the next shopper for it; its ticket reads `expired` from now (its end is
  now) and is forgotten with the other ended tickets.
  keys: tickets, sessions, unreserved, ended. Needs includes/room-tickets.lua.
]]
local function session_end(keys, ticketId, t, nowMs)
  t.status = "expired"
  t.expiresAt = nowMs
  ticket_write(keys.tickets, ticketId, t)
  redis.call("ZREM", keys.sessions, ticketId)
  -- A session that reserved keeps its mark (0 or 1): the tick drops it once the stock it reads has the
  -- reservation (admit-room-13.lua). Dropped now, a tick run with a stock read before the reservation would
  -- count the unit twice free and admit one too many.
  local mark = tonumber(redis.call("ZSCORE", keys.unreserved, ticketId))
  if mark and mark > 1 then redis.call("ZREM", keys.unreserved, ticketId) end
  redis.call("ZADD", keys.ended, nowMs, ticketId)
end
