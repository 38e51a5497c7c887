--[[
  The sessions of a room with sessionIdleSeconds that are due for a look (room-idle-sessions.ts, run by the
  admission leader before the room's tick). A session's last use is recorded in the user's slot by the gate
  (includes/session-idle.lua), which no script of the room's slot may read on a Redis Cluster: so the room keeps,
  for each live session, when it could next be idle (KEYS[3], first an idle time after it is seen), the leader
  reads the last uses of the due ones only (one field each, in their users' slots) and end-idle-sessions-5.lua
  judges them. A session used meanwhile is looked at again one idle time after that use, so a room costs about
  one look per session per idle time, whatever its traffic.

  New sessions are found from the live count (KEYS[1], scored by their end) past the highest end already seen
  (state idleSeenTo), up to ARGV[2] of them plus the rest of those sharing the last end taken.

  KEYS[1] sessions   {room-<id>}:sessions
  KEYS[2] tickets    {room-<id>}:tickets
  KEYS[3] idle       {room-<id>}:idle  ticket -> when it could next be idle (epoch ms)
  KEYS[4] state      {room-<id>}:state

  ARGV[1] the room's idle time, ms
  ARGV[2] most sessions to take in or answer (bounds the call's time)

  Returns a flat list {ticketId, userId, admittedAt, ...} of the admitted sessions due for a look; a due entry
  whose ticket is no longer admitted leaves KEYS[3].
]]
--- @include "room-tickets"
local idleMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local nowMs = room_now_ms()
local seenTo = redis.call("HGET", KEYS[4], "idleSeenTo")
local fresh = redis.call("ZRANGEBYSCORE", KEYS[1], seenTo and "(" .. seenTo or "-inf", "+inf", "WITHSCORES",
  "LIMIT", 0, limit)
if #fresh > 0 then
  -- Sessions admitted by one tick share their end: all of those at the last end taken, so the next call starts
  -- past it (bounded by what one tick admits).
  local lastEnd = fresh[#fresh]
  fresh = redis.call("ZRANGEBYSCORE", KEYS[1], seenTo and "(" .. seenTo or "-inf", lastEnd)
  for _, ticketId in ipairs(fresh) do
    local t = ticket_read(KEYS[2], ticketId)
    if t and t.status == "admitted" then
      -- An idle time from now: about its admission for a new session (seen by the next tick), and for one that
      -- was live before the room had an idle time, a whole idle time from when it got one.
      redis.call("ZADD", KEYS[3], "NX", nowMs + idleMs, ticketId)
    end
  end
  redis.call("HSET", KEYS[4], "idleSeenTo", lastEnd)
end
local due = {}
for _, ticketId in ipairs(redis.call("ZRANGEBYSCORE", KEYS[3], "-inf", nowMs, "LIMIT", 0, limit)) do
  local t = ticket_read(KEYS[2], ticketId)
  if t and t.status == "admitted" then
    due[#due + 1] = ticketId
    due[#due + 1] = t.userId
    due[#due + 1] = t.admittedAt
  else
    redis.call("ZREM", KEYS[3], ticketId)
  end
end
return due
