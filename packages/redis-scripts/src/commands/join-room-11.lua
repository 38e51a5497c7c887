--[[
  Join a waiting room: one place per user. A user who joins again gets the same ticket and place while it is
  waiting or admitted; after it expired, was abandoned or revoked, a new ticket at the back. While the room is
  not queueing the ticket is admitted at once. Joins are rate limited per client address by take-token-1.lua,
  which the intake sends beside this call (same round trip): the address's bucket has a slot of its own.
  A join after startsAt closes the pre-queue if no tick has yet (includes/room-shuffle.lua: cheap), so it
  queues behind all of it; ordering and moving the pre-queue are the leader's. A room whose endsAt has come
  (by this node's clock, as admit-room-13.lua judges it) or whose method is reject takes no join, not even the
  user's again: nothing is written. A room with maxActiveSessions that has that many live sessions (KEYS[8],
  not past their end) queues a new ticket even while it is not queueing; the leader admits it when one ends.
  Join passes (ARGV[3], verified by the intake: join-pass.ts): a bypass is admitted at once, even while the room
  queues, unless maxActiveSessions or the stock's bound (units left as of the last tick plus admitBeyondStock,
  less the sessions holding no reservation, KEYS[10]) is reached: then it waits before everyone in the default
  queue, the next admitted (before startsAt too: staff and early access). A lane's pass queues in that lane
  (includes/room-lanes.lua); a lane the room no longer has, the default queue; before startsAt, the pre-queue
  with its lane kept (includes/room-shuffle.lua: drawn with everyone, then placed in its lane). A bypass joining
  again while its ticket waits is admitted then. A ticket admitted here is told to the shop as ticket.admitted
  (KEYS[11], as the tick does: the worker records it only for a subscriber).

  KEYS[1]  room config    {room-<id>}:config    mode, sessionSeconds, startsAt, endsAt, method, maxActiveSessions;
                                                with a pass: lanes, products, admitBeyondStock
  KEYS[2]  room state     {room-<id>}:state     queueing, seq, shuffled, admittedTotal, ...
  KEYS[3]  queue          {room-<id>}:queue     ticket -> its lane's band + sequence number (room-lanes.lua)
  KEYS[4]  pre-queue      {room-<id>}:early     ticket -> round, plus a lane pass's band / 16 (joins before
                                                startsAt: includes/room-shuffle.lua)
  KEYS[5]  tickets        {room-<id>}:tickets   ticket -> record (includes/room-tickets.lua)
  KEYS[6]  users          {room-<id>}:users     userId -> ticket
  KEYS[7]  heartbeats     {room-<id>}:seen      ticket -> last heartbeat (waiting and early tickets)
  KEYS[8]  sessions       {room-<id>}:sessions  ticket -> session end (admitted tickets)
  KEYS[9]  admissions     {room-<id>}:admits    epoch second -> tickets admitted in it
  KEYS[10] unreserved     {room-<id>}:unreserved  admitted sessions with no reservation yet (admit-room-13.lua)
  KEYS[11] events         {room-<id>}:events    the shop's room events (includes/room-events.lua)
  (All share the room's hash tag: one Redis Cluster slot.)

  ARGV[1] ticket id for a new ticket (minted by the intake)
  ARGV[2] user id
  ARGV[3] the join pass's kind: "" none, "bypass", or "lane:<name>"

  Returns {code, ticketId, status, position, joinedAt, admittedAt, expiresAt, band} (numbers as strings, ""
  unknown; band: a waiting ticket's lane, 0 the default queue)
    code 1: a new ticket; code 2: the user's ticket, unchanged
    position: 1-based place in its lane (the default queue or a lane); for a pre-queue ticket, the size of its
    pre-queue round. A bypass joining again while its ticket waits is admitted then (code 2, within the caps).
  or {-1, ""} no such room, {-2, ""} the room is closed (endsAt has come), {-3, ""} its method is reject;
  nothing written.
]]
--- @include "room-tickets"
--- @include "room-shuffle"
--- @include "room-lanes"
--- @include "room-events"
local keys = {
  config = KEYS[1], state = KEYS[2], queue = KEYS[3], early = KEYS[4], tickets = KEYS[5], users = KEYS[6],
  seen = KEYS[7], sessions = KEYS[8], admits = KEYS[9], unreserved = KEYS[10], events = KEYS[11],
}
local nowMs = room_now_ms()
local config = redis.call("HMGET", keys.config, "mode", "sessionSeconds", "startsAt", "endsAt", "method",
  "maxActiveSessions")
if not config[1] then
  return {-1, ""}
end
local endsAt = tonumber(config[4])
if endsAt and nowMs >= endsAt then
  return {-2, ""}
end
if config[5] == "reject" then
  return {-3, ""}
end
room_shuffle_close_if_due(keys, nowMs, false)

-- `band`: the lane of a ticket queued by this call. In the default queue (band 0, a bypass's front place too)
-- its place is its rank: nothing scores between the queue's head and it but the default queue's own tickets.
local function answer(code, ticketId, t, band)
  local position = ""
  local lane = ""
  if t.status == "waiting" and band == 0 then
    position = tostring(redis.call("ZRANK", keys.queue, ticketId) + 1)
    lane = "0"
  elseif t.status == "waiting" then
    local place, placeBand = room_lane_position(keys.queue, ticketId)
    position = tostring(place or "")
    lane = tostring(placeBand or "")
  elseif t.status == "early" then
    position = room_early_position(keys.early, ticketId)
  end
  return {code, ticketId, t.status, position, tostring(t.joinedAt or ""), tostring(t.admittedAt or ""),
    tostring(t.expiresAt or ""), lane}
end

local maxActive = tonumber(config[6])
-- Join passes (block of its own): the config a pass needs is read only for a join carrying one.
local passKind = ARGV[3] or ""
local passConfig = passKind ~= "" and
  redis.call("HMGET", keys.config, "lanes", "products", "admitBeyondStock") or {}
local sellsProducts = (passConfig[2] or "") ~= ""

-- A bypass waits only for the caps: maxActiveSessions, and the stock's bound as the last tick left it (its
-- unitsLeft; sessions told reserved since then still count as unreserved, so it errs on waiting).
local function bypass_capped()
  if maxActive ~= nil and redis.call("ZCOUNT", keys.sessions, "(" .. nowMs, "+inf") >= maxActive then
    return true
  end
  if not sellsProducts then
    return false
  end
  local unitsLeft = tonumber(redis.call("HGET", keys.state, "unitsLeft")) or 0
  return unitsLeft + (tonumber(passConfig[3]) or 0) - redis.call("ZCARD", keys.unreserved) <= 0
end

local function admit_now(ticketId, t)
  ticket_admit(keys, ticketId, t, nowMs, tonumber(config[2]) * 1000)
  if passKind == "bypass" and sellsProducts then
    redis.call("ZADD", keys.unreserved, t.expiresAt, ticketId) -- counted against the stock until it reserves
  end
  room_event(keys.events, "ticket.admitted", nowMs, {ticketId = ticketId, userId = t.userId,
    expiresAt = t.expiresAt})
end

local userId = ARGV[2]
local existingId = redis.call("HGET", keys.users, userId)
if existingId then
  local t = ticket_read(keys.tickets, existingId)
  if t and (t.status == "waiting" or t.status == "early") then
    if passKind == "bypass" and not bypass_capped() then
      redis.call("ZREM", keys.queue, existingId)
      redis.call("ZREM", keys.early, existingId)
      admit_now(existingId, t)
      return answer(2, existingId, t)
    end
    redis.call("ZADD", keys.seen, nowMs, existingId) -- joining again is a heartbeat
    return answer(2, existingId, t)
  end
  if t and t.status == "admitted" and (tonumber(t.expiresAt) or 0) > nowMs then
    return answer(2, existingId, t)
  end
end

local ticketId = ARGV[1]
local t = {userId = userId, joinedAt = nowMs}
redis.call("HSET", keys.users, userId, ticketId)
local queueing = redis.call("HGET", keys.state, "queueing") == "1"
-- Full, or others already wait for a session to end: a new ticket queues behind them.
local full = maxActive ~= nil and (redis.call("ZCARD", keys.queue) > 0 or
  redis.call("ZCOUNT", keys.sessions, "(" .. nowMs, "+inf") >= maxActive)
local startsAt = tonumber(config[3])
local early = queueing and startsAt and nowMs < startsAt
-- Join passes: a bypass past the queue (within the caps), a lane's pass into its lane.
local bypass = passKind == "bypass"
local band = 0
if string.sub(passKind, 1, 5) == "lane:" then
  band = room_lane_band(room_lanes_read(passConfig[1]), string.sub(passKind, 6)) or 0
end

if (bypass and not bypass_capped()) or (not bypass and not queueing and not full) then
  admit_now(ticketId, t)
elseif early and not bypass then
  t.status = "early"
  ticket_write(keys.tickets, ticketId, t)
  redis.call("ZADD", keys.early, room_early_score(keys, band), ticketId)
  redis.call("ZADD", keys.seen, nowMs, ticketId)
else
  t.status = "waiting"
  t.seq = redis.call("HINCRBY", keys.state, "seq", 1)
  ticket_write(keys.tickets, ticketId, t)
  local score = bypass and room_lane_front_score(keys.queue) or room_lane_score(band, t.seq)
  redis.call("ZADD", keys.queue, string.format("%.0f", score), ticketId)
  redis.call("ZADD", keys.seen, nowMs, ticketId)
end
return answer(1, ticketId, t, band)
