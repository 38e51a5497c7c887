--[[
  Revoke a ticket (an admin's DELETE of its admission token): it can no longer pass a guarded route, and a
  waiting one loses its place. An admitted session ends with it: it leaves the live sessions and, in a room
  selling products, the sessions counted against the stock (KEYS[7]), so the next tick admits the next in line
  for its unit instead of holding it until the session's end. The room's event channel tells the intake holding
  its WebSocket.

  KEYS[1] tickets     {room-<id>}:tickets
  KEYS[2] queue       {room-<id>}:queue
  KEYS[3] pre-queue   {room-<id>}:early
  KEYS[4] heartbeats  {room-<id>}:seen
  KEYS[5] sessions    {room-<id>}:sessions
  KEYS[6] ended       {room-<id>}:ended (the leader's tick forgets the ticket after a while)
  KEYS[7] unreserved  {room-<id>}:unreserved (admitted sessions with no reservation yet: admit-room-13.lua)

  ARGV[1] ticket id
  ARGV[2] event channel
  ARGV[3] room id

  Returns {status before, userId, expiresAt ("" when never admitted)}, or {} when there is no such ticket. The
  caller then revokes the user's pass (revoke-pass-1.lua, in the user's slot), which the guarded routes read.
]]
--- @include "room-tickets"
--- @include "room-unreserved"
local ticketId = ARGV[1]
local t = ticket_read(KEYS[1], ticketId)
if not t then
  return {}
end
local before = t.status
t.status = "revoked"
ticket_write(KEYS[1], ticketId, t)
for i = 2, 5 do
  redis.call("ZREM", KEYS[i], ticketId)
end
room_unreserved_leave(KEYS[7], ticketId)
if before ~= "revoked" and before ~= "expired" and before ~= "abandoned" then
  redis.call("ZADD", KEYS[6], room_now_ms(), ticketId)
end
if before ~= "revoked" then
  redis.call("PUBLISH", ARGV[2], cjson.encode({room = ARGV[3], ended = {{ticketId, "revoked"}}}))
end
return {before, t.userId, t.expiresAt or ""}
