--[[
  Ends the idle sessions among those idle-sessions-due-4.lua answered, given the last use the gate recorded for
  each in its user's slot (read by the admission leader: room-idle-sessions.ts). A session is idle when neither
  its admission nor its last use is within the room's idle time; it ends as one ended on its order does
  (includes/session-end.lua: out of the live count and the unreserved set but for a reservation's mark, its
  ticket `expired`), and the intakes holding its WebSocket are told. One not idle is looked at again one idle
  time after its last use.

  KEYS[1] tickets     {room-<id>}:tickets
  KEYS[2] sessions    {room-<id>}:sessions
  KEYS[3] unreserved  {room-<id>}:unreserved
  KEYS[4] ended       {room-<id>}:ended
  KEYS[5] idle        {room-<id>}:idle  ticket -> when it could next be idle

  ARGV[1] event channel   ARGV[2] room id   ARGV[3] the room's idle time, ms
  ARGV[4..] pairs: ticket id, its last recorded use (epoch ms of the user's node; "" when none was recorded)

  Returns a flat list {ticketId, userId, expiresAt (the session's end before this), ...} of the sessions ended
  now: the leader then closes each one's pass in its user's slot (end-session-pass-1.lua), so its token stops
  admitting even where the gate has no use to judge it by.
]]
--- @include "room-tickets"
--- @include "session-end"
local keys = {tickets = KEYS[1], sessions = KEYS[2], unreserved = KEYS[3], ended = KEYS[4]}
local idleMs = tonumber(ARGV[3])
local nowMs = room_now_ms()
local event = {room = ARGV[2], ended = {}}
local endedNow = {}
for i = 4, #ARGV, 2 do
  local ticketId = ARGV[i]
  local t = ticket_read(keys.tickets, ticketId)
  if t and t.status == "admitted" then
    local last = math.max(tonumber(t.admittedAt) or 0, tonumber(ARGV[i + 1]) or 0)
    if nowMs - last >= idleMs then
      local expiresAt = t.expiresAt
      session_end(keys, ticketId, t, nowMs)
      redis.call("ZREM", KEYS[5], ticketId)
      event.ended[#event.ended + 1] = {ticketId, "expired"}
      endedNow[#endedNow + 1] = ticketId
      endedNow[#endedNow + 1] = t.userId
      endedNow[#endedNow + 1] = expiresAt
    else
      redis.call("ZADD", KEYS[5], last + idleMs, ticketId)
    end
  else
    redis.call("ZREM", KEYS[5], ticketId)
  end
end
if #event.ended > 0 then
  redis.call("PUBLISH", ARGV[1], cjson.encode(event))
end
return endedNow
