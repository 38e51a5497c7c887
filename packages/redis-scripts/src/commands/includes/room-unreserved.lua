--[[
  A room selling products counts its admitted sessions that hold no reservation yet against the stock
  ({room-<id>}:unreserved, scored by the session's end; admit-room-13.lua). A session that leaves early (revoked,
  its order ended, idle) stops counting at once, unless it reserved: a reservation's mark (score 0, or 1 once a
  tick saw it) stays until the tick after next removes it, when the stock the leader reads surely has the
  reservation. Removed at once, a tick run with a stock read before the reservation would count the unit free
  and admit one too many.
]]
local function room_unreserved_leave(unreserved, ticketId)
  local score = tonumber(redis.call("ZSCORE", unreserved, ticketId))
  if score and score > 1 then
    redis.call("ZREM", unreserved, ticketId)
  end
end
