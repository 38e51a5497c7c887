--[[
  One tick of a waiting room, run by the admission leader (about every 100 ms). Its cost is bounded by what
  it admits, expires and sweeps, never by the length of the queue. Every key is the room's ({room-<id>}): one
  slot, so it runs on a Redis Cluster as on one Redis.

  1. Fencing: a tick from a leader epoch below the highest this room has seen changes nothing, so a deposed
     leader cannot admit in a room its successor has ticked. The room keeps that epoch in its own state.
  2. The pre-queue: its close if startsAt has come, else the next step of moving it in the order the leader
     wrote (includes/room-shuffle.lua); a room turned off lets its pre-queue go, to be admitted in step 6 with
     everyone else once ordered. A closed round awaiting its order is said in the reply: the leader orders it
     (pre-queue-order.ts) and ticks again.
  3. Sessions that ended: admitted tickets past expiresAt become expired.
  4. Abandonment: waiting or pre-queue tickets with no heartbeat for abandonSeconds lose their place.
     Forgetting: a ticket that ended (expired, abandoned, revoked) more than ARGV[7] ms ago leaves Redis.
  5. `auto` mode: start queueing when the workers' backlog is over its limit (ARGV[2]) or the guarded traffic
     of the last second exceeded admitPerSecond; stop after ARGV[3] ms with an empty queue and calm traffic.
  6. Admission: the allowance grows by admitPerSecond per second of elapsed time (at most one second's worth,
     none banked while the queue is empty); tickets are taken from the head in sequence order, and one found
     abandoned on the way is skipped without using the allowance. Not queueing: everyone still waiting goes.
     A room selling products (ARGV[8] not "") never has more admitted sessions holding no reservation yet than
     the units left plus its margin (ARGV[9]): those sessions are KEYS[12], each removed at its session's end (a
     reserved one's mark stays, as below: includes/room-unreserved.lua) or once its order reserved (its units
     are then out of ARGV[8]); so a unit that comes back (an order cancelled or expired) admits the next in
     line. A reservation is told by the intake as a mark (score 0, room-stock.ts), and a mark goes only at the
     tick after the one that first saw it (score 1): the leader reads ARGV[8] after a tick ends, so only a mark
     seen by the last tick is surely in it. Removed at once, a session that reserved between the leader's read
     and this tick left the stock read before its order and the sessions counted after it, and the room admitted
     one more than its units (43 over 5,000 in a flash sale); kept a tick longer it counts twice for a moment:
     the room admits fewer, never more. A room whose config names products ticked without ARGV[8] (a leader that
     has not read its definition yet) admits nobody.
     Sold out (ARGV[10] "1": nothing left and no unpaid unit that could come back): the room admits nobody, its
     state says soldOut (joins are refused, waiting tickets read sold_out), and the tick that finds it so
     first publishes it; a tick that finds stock again (a restock) clears it and admits as before.
     Closed (the config's endsAt has come, by this node's clock, as join-room-11.lua judges it): the room admits
     nobody, its state says closed, and the tick that finds it so first publishes it (the one place a room
     becomes closed); a later endsAt (or none) clears it. Method `reject` admits nobody either; method `random`
     takes each ticket at random among those in the queue (ZRANDMEMBER: each equally likely), except while a
     pre-queue round moves, whose order is already a shuffle anyone can check.
     A room with maxActiveSessions admits no more than that many less its live sessions (KEYS[8], sessions not
     yet past their end: the one count of a room's live sessions; KEYS[12] is the part of it that holds no
     reservation); with the stock's bound, the smaller of the two holds.
     Lanes (config `lanes`, method fifo): what the tick admits is split among the lanes with someone waiting by
     their shares, FIFO inside each (includes/room-lanes.lua); a bypass waiting for room is at the default
     queue's head.
  7. One event on the channel for everything that happened, for the intakes holding the WebSockets.
  8. The shop's events, appended to KEYS[13] in this call (includes/room-events.lua): room.queueing_started
     and room.queueing_stopped when whether the room queues differs from what the shop was last told (state
     queueingTold, absent: not queueing), which also tells a mode the admin switched on or off (room-definition.ts
     sets queueing at once) at the next tick, and a flip undone between two ticks not at all; room.sold_out when
     the tick finds the room sold out first; one ticket.admitted per ticket it admits (the worker records those
     only while an endpoint subscribes to them).

  Why a tick that slips past fencing is harmless (a deposed leader ticking a room its successor has not reached
  yet): everything a tick decides from is in this room (allowance, lastTickAt, the queue) and the clock is this
  node's TIME, so ticks of two leaders, interleaved, admit no more than one leader's would, in the same order,
  each ticket once. Only an `auto` room's decision may differ: the deposed leader's ARGV[2] may be a round old,
  and the next tick decides again.

  KEYS[1]  config {room-<id>}:config   KEYS[2] state   {room-<id>}:state   KEYS[3] queue {room-<id>}:queue
  KEYS[4]  pre-queue {room-<id>}:early KEYS[5] tickets KEYS[6] users       KEYS[7] heartbeats {room-<id>}:seen
  KEYS[8]  sessions                    KEYS[9] admissions per second       KEYS[10] ended {room-<id>}:ended
  KEYS[11] pre-queue order {room-<id>}:order (the closed round's tickets, in the order the leader computed)
  KEYS[12] unreserved {room-<id>}:unreserved  ticket -> session end: admitted sessions with no reservation yet
                                              (0: reserved, told by the intake; 1: reserved, seen by a tick)
  KEYS[13] events {room-<id>}:events: the shop's room events (a stream the workers drain)

  ARGV[1] the leader's epoch (hold-leader-lease-2.lua; >= 1)
  ARGV[2] "1" when the workers' backlog is over its limit (backpressure), else "0"
  ARGV[3] auto mode's cool-down, ms
  ARGV[4] event channel
  ARGV[5] room id
  ARGV[6] most tickets to look at per step (bounds the tick's time)
  ARGV[7] how long an ended ticket stays readable, ms
  ARGV[8] units left of the room's products (the sum of their `available`, read by the leader just before),
          "" for a room that sells none
  ARGV[9] admitBeyondStock: sessions the room may admit beyond the units left
  ARGV[10] "1" when the room's products are sold out (every `available` and `unpaid` 0), else "0"
  ARGV[11] a room whose admitPerSecond is "auto": the rate the leader set for it (auto-admit-rate.ts), written
           to state autoAdmitPerSecond for the ETA and the admin view; "" for the others (such a room ticked
           without it, by a leader that has not read its definition yet, admits nobody)

  Returns {1, queueing ("1"/"0"), waiting, admitted now, ended now (expired + abandoned), "1" when a closed
  pre-queue round awaits the leader's order else "0"}, {-1, the room's epoch} when a later leader epoch has
  ticked the room (or ARGV[1] is no epoch), {-2} when the room has no config (it is listed before its keys are
  written: room-definition.ts).
]]
--- @include "room-tickets"
--- @include "room-shuffle"
--- @include "room-events"
--- @include "room-lanes"
local keys = {
  config = KEYS[1], state = KEYS[2], queue = KEYS[3], early = KEYS[4], tickets = KEYS[5], users = KEYS[6],
  seen = KEYS[7], sessions = KEYS[8], admits = KEYS[9], ended = KEYS[10], order = KEYS[11],
  unreserved = KEYS[12], events = KEYS[13],
}
local epoch = tonumber(ARGV[1])
local roomEpoch = tonumber(redis.call("HGET", keys.state, "leaderEpoch")) or 0
if not epoch or epoch < 1 or roomEpoch > epoch then
  return {-1, roomEpoch}
end
local config = redis.call("HMGET", keys.config, "mode", "admitPerSecond", "sessionSeconds", "abandonSeconds",
  "endsAt", "method", "maxActiveSessions")
if not config[1] then
  return {-2}
end
if epoch > roomEpoch then
  redis.call("HSET", keys.state, "leaderEpoch", epoch)
end
local mode = config[1]
local admitPerSecond = tonumber(config[2])
if not admitPerSecond then
  admitPerSecond = tonumber(ARGV[11]) or 0
  redis.call("HSET", keys.state, "autoAdmitPerSecond", admitPerSecond)
end
local sessionMs = tonumber(config[3]) * 1000
local abandonMs = tonumber(config[4]) * 1000
local limit = tonumber(ARGV[6])
local nowMs = room_now_ms()
local event = {room = ARGV[5], admitted = {}, ended = {}}
local endsAt = tonumber(config[5])
local method = config[6] or "fifo"

if not room_shuffle_close_if_due(keys, nowMs, mode == "off") then
  room_shuffle_step(keys, room_lane_score)
end

-- 3. Sessions that ended.
for _, ticketId in ipairs(redis.call("ZRANGEBYSCORE", keys.sessions, "-inf", nowMs, "LIMIT", 0, limit)) do
  redis.call("ZREM", keys.sessions, ticketId)
  local t = ticket_read(keys.tickets, ticketId)
  if t and t.status == "admitted" then
    t.status = "expired"
    ticket_write(keys.tickets, ticketId, t)
    redis.call("ZADD", keys.ended, nowMs, ticketId)
    event.ended[#event.ended + 1] = {ticketId, "expired"}
  end
end

-- 4. Abandoned places.
local function abandon(ticketId, t)
  redis.call("ZREM", keys.queue, ticketId)
  redis.call("ZREM", keys.early, ticketId)
  redis.call("ZREM", keys.seen, ticketId)
  t.status = "abandoned"
  ticket_write(keys.tickets, ticketId, t)
  redis.call("ZADD", keys.ended, nowMs, ticketId)
  redis.call("HINCRBY", keys.state, "abandonedTotal", 1)
  event.ended[#event.ended + 1] = {ticketId, "abandoned"}
end
local cutoff = nowMs - abandonMs
for _, ticketId in ipairs(redis.call("ZRANGEBYSCORE", keys.seen, "-inf", "(" .. cutoff, "LIMIT", 0, limit)) do
  local t = ticket_read(keys.tickets, ticketId)
  if t and (t.status == "waiting" or t.status == "early") then
    abandon(ticketId, t)
  else
    redis.call("ZREM", keys.seen, ticketId)
  end
end

-- Forgetting: a room's memory follows the people in it, not everyone it ever had. The record and the user's
-- pointer to it go (the user joins afresh); a token naming a forgotten ticket is refused as unknown.
local forgetBefore = nowMs - tonumber(ARGV[7])
for _, ticketId in ipairs(redis.call("ZRANGEBYSCORE", keys.ended, "-inf", "(" .. forgetBefore, "LIMIT", 0, limit)) do
  local t = ticket_read(keys.tickets, ticketId)
  redis.call("HDEL", keys.tickets, ticketId)
  if t and redis.call("HGET", keys.users, t.userId) == ticketId then
    redis.call("HDEL", keys.users, t.userId)
  end
  redis.call("ZREM", keys.ended, ticketId)
end

-- 5. Whether the room queues.
local state = redis.call("HMGET", keys.state, "queueing", "calmSince", "trafficSec", "trafficCount", "trafficPrev",
  "lastTickAt", "allowance", "admitsTrimmedAt", "queueingTold")
local queueing = state[1] == "1"
local second = math.floor(nowMs / 1000)
local trafficSec = tonumber(state[3])
local lastSecondTraffic = 0
if trafficSec == second then
  lastSecondTraffic = tonumber(state[5]) or 0
elseif trafficSec == second - 1 then
  lastSecondTraffic = tonumber(state[4]) or 0
end
local waiting = redis.call("ZCARD", keys.queue) + redis.call("ZCARD", keys.early)
if mode == "on" then
  queueing = true
elseif mode == "off" then
  queueing = false
else
  local pressed = ARGV[2] == "1" or lastSecondTraffic > admitPerSecond
  if pressed then
    if not queueing then
      redis.call("HSET", keys.state, "queueingSince", nowMs)
    end
    queueing = true
    redis.call("HDEL", keys.state, "calmSince")
  elseif queueing and waiting == 0 then
    local calmSince = tonumber(state[2])
    if not calmSince then
      redis.call("HSET", keys.state, "calmSince", nowMs)
    elseif nowMs - calmSince >= tonumber(ARGV[3]) then
      queueing = false
      redis.call("HDEL", keys.state, "calmSince")
    end
  else
    redis.call("HDEL", keys.state, "calmSince")
  end
end
redis.call("HSET", keys.state, "queueing", queueing and "1" or "0")
if queueing ~= (state[9] == "1") then
  redis.call("HSET", keys.state, "queueingTold", queueing and "1" or "0")
  room_event(keys.events, queueing and "room.queueing_started" or "room.queueing_stopped", nowMs, {})
end

-- 6. Admission from the head.
local lastTickAt = tonumber(state[6]) or nowMs
local allowance = tonumber(state[7]) or 0
local capacity
if queueing then
  allowance = math.min(admitPerSecond, allowance + (nowMs - lastTickAt) * admitPerSecond / 1000)
  capacity = math.floor(allowance)
else
  capacity = limit
end
-- While a pre-queue round moves, nothing numbered past its moved part (its unmoved tickets and later joins wait).
local admitBelow = room_shuffle_admit_below(keys)
-- The stock's bound: admitted sessions that have not reserved yet may each take a unit still left.
local unitsLeft = tonumber(ARGV[8])
local soldOutNow = false
if unitsLeft then
  -- Reservations the last tick saw are in unitsLeft (read after it ended): those sessions stop counting. The
  -- ones told since are marked seen and still count: their units may not be in unitsLeft yet.
  redis.call("ZREMRANGEBYSCORE", keys.unreserved, 1, 1)
  for _, ticketId in ipairs(redis.call("ZRANGEBYSCORE", keys.unreserved, 0, 0)) do
    redis.call("ZADD", keys.unreserved, "XX", 1, ticketId)
  end
  redis.call("ZREMRANGEBYSCORE", keys.unreserved, "(1", nowMs)
  local room = math.max(0, unitsLeft) + tonumber(ARGV[9]) - redis.call("ZCARD", keys.unreserved)
  capacity = math.max(0, math.min(capacity, room))
  redis.call("HSET", keys.state, "unitsLeft", math.max(0, unitsLeft))
  if ARGV[10] == "1" then
    capacity = 0
    soldOutNow = redis.call("HSETNX", keys.state, "soldOut", "1") == 1
  else
    redis.call("HDEL", keys.state, "soldOut")
  end
elseif (redis.call("HGET", keys.config, "products") or "") ~= "" then
  -- A room that sells products, ticked by a leader that has not read its definition yet (it rereads them every
  -- second): no stock known, nobody admitted.
  capacity = 0
else
  redis.call("HDEL", keys.state, "unitsLeft", "soldOut")
  redis.call("DEL", keys.unreserved)
end
-- The cap on live sessions: they end at their expiry (step 3) or a revocation.
local maxActive = tonumber(config[7])
if maxActive then
  local live = redis.call("ZCOUNT", keys.sessions, "(" .. nowMs, "+inf")
  capacity = math.max(0, math.min(capacity, maxActive - live))
end
-- Closed: nobody more, whatever the room's stock or mode; the first tick to find it so says it.
local closedNow = false
if endsAt and nowMs >= endsAt then
  capacity = 0
  closedNow = redis.call("HSETNX", keys.state, "closed", "1") == 1
else
  redis.call("HDEL", keys.state, "closed")
end
if method == "reject" then
  capacity = 0
end
-- Lanes split the admissions by share (random rooms have none: the definition refuses both).
local lanes = room_lanes_read(redis.call("HGET", keys.config, "lanes"))
local function pop_head(n)
  local ids = {}
  if #lanes > 0 and method ~= "random" then
    ids = room_lanes_pop(keys, lanes, n, admitBelow)
  elseif method == "random" and not admitBelow then
    -- Distinct members, each equally likely; a ticket not waiting (abandoned) is dropped below as at the head.
    ids = redis.call("ZRANDMEMBER", keys.queue, n)
    for _, ticketId in ipairs(ids) do
      redis.call("ZREM", keys.queue, ticketId)
    end
  elseif admitBelow then
    ids = redis.call("ZRANGEBYSCORE", keys.queue, "-inf", "(" .. admitBelow, "LIMIT", 0, n)
    for _, ticketId in ipairs(ids) do
      redis.call("ZREM", keys.queue, ticketId)
    end
  else
    local popped = redis.call("ZPOPMIN", keys.queue, n)
    for i = 1, #popped, 2 do
      ids[#ids + 1] = popped[i]
    end
  end
  return ids
end
local admitted = 0
local looked = 0
while admitted < capacity and looked < limit do
  local head = pop_head(math.min(capacity - admitted, limit - looked))
  if #head == 0 then
    break
  end
  for _, ticketId in ipairs(head) do
    looked = looked + 1
    local t = ticket_read(keys.tickets, ticketId)
    if t and t.status == "waiting" then
      local seen = tonumber(redis.call("ZSCORE", keys.seen, ticketId)) or 0
      if seen < cutoff then
        abandon(ticketId, t)
      else
        ticket_admit(keys, ticketId, t, nowMs, sessionMs)
        if unitsLeft then
          redis.call("ZADD", keys.unreserved, t.expiresAt, ticketId)
        end
        admitted = admitted + 1
        event.admitted[#event.admitted + 1] = {ticketId, t.userId, t.expiresAt}
        room_event(keys.events, "ticket.admitted", nowMs, {ticketId = ticketId, userId = t.userId,
          expiresAt = t.expiresAt})
      end
    end
  end
end
if queueing then
  allowance = allowance - admitted
  if redis.call("ZCARD", keys.queue) == 0 then
    allowance = 0
  end
else
  allowance = 0
end
redis.call("HSET", keys.state, "lastTickAt", nowMs, "allowance", tostring(allowance))

-- Admission counts per second: two minutes are kept (the admin view shows the last minute), trimmed every 10 s.
if nowMs - (tonumber(state[8]) or 0) >= 10000 then
  for _, field in ipairs(redis.call("HKEYS", keys.admits)) do
    if tonumber(field) < second - 120 then
      redis.call("HDEL", keys.admits, field)
    end
  end
  redis.call("HSET", keys.state, "admitsTrimmedAt", nowMs)
end

-- 7. One event for the intakes.
if soldOutNow then
  event.soldOut = true
  room_event(keys.events, "room.sold_out", nowMs, {})
end
if closedNow then
  event.closed = true
  room_event(keys.events, "room.closed", nowMs, {})
end
if #event.admitted > 0 or #event.ended > 0 or soldOutNow or closedNow then
  event.admittedAt = nowMs
  redis.call("PUBLISH", ARGV[4], cjson.encode(event))
end
waiting = redis.call("ZCARD", keys.queue) + redis.call("ZCARD", keys.early)
local awaitsOrder = redis.call("HEXISTS", keys.state, "shuffleAwaitsOrder") == 1
return {1, queueing and "1" or "0", waiting, admitted, #event.ended, awaitsOrder and "1" or "0"}
