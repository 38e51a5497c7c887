--[[
  A ticket's state for a poll, which is also a heartbeat: a waiting or pre-queue ticket that is read keeps its
  place (abandonment counts from the last heartbeat).

  KEYS[1] tickets     {room-<id>}:tickets
  KEYS[2] queue       {room-<id>}:queue
  KEYS[3] pre-queue   {room-<id>}:early
  KEYS[4] heartbeats  {room-<id>}:seen

  ARGV[1] ticket id

  Returns {status, userId, position, joinedAt, admittedAt, expiresAt, band} as strings ("" unknown; band: a
  waiting ticket's lane, 0 the default queue, includes/room-lanes.lua), or {} when there is no such ticket.
]]
--- @include "room-tickets"
--- @include "room-shuffle"
--- @include "room-lanes"
local ticketId = ARGV[1]
local t = ticket_read(KEYS[1], ticketId)
if not t then
  return {}
end
local position = ""
local band = ""
if t.status == "waiting" then
  local place, lane = room_lane_position(KEYS[2], ticketId) -- its place in its lane
  position = tostring(place or "")
  band = tostring(lane or "")
  redis.call("ZADD", KEYS[4], "XX", room_now_ms(), ticketId)
elseif t.status == "early" then
  position = room_early_position(KEYS[3], ticketId)
  redis.call("ZADD", KEYS[4], "XX", room_now_ms(), ticketId)
end
return {t.status, t.userId, position, t.joinedAt, t.admittedAt, t.expiresAt, band}
