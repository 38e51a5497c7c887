--[[
  The pre-queue: joins before startsAt wait in {room}:early, scored by their round (state field preRound, 0 at
  first); no random draw at join, so the order cannot be decided before the start. The first join or leader
  tick after startsAt closes the current round, once (room_shuffle_close_if_due): it reserves the next sequence
  numbers for all of that round (so every later join queues behind all of it), opens the next round (early
  joins from now on, if startsAt is moved later, wait for their own start), and takes the scheduled start's
  secret seed (state nextSeed, written with its commitment when the room was scheduled: room-definition.ts)
  as the round's (shuffleSeed). Closing is a few O(log n) commands, so a join may do it.
  The leader then orders the closed round outside Redis (pre-queue-order.ts: the round's ticket ids are read,
  hashed, and ordered by SHA-256 of the seed, that hash and each id) and appends the order to {room}:order
  (order-pre-queue-4.lua), which publishes the proof. Only then does room_shuffle_step, run by the leader's
  ticks only, move the round's tickets to their reserved places in that order, at most SHUFFLE_STEP per tick,
  so no call holds Redis long however many joined early. While tickets are still to move (or to be ordered),
  the tick admits no ticket numbered past the moved part.
  A room whose startsAt was removed has started. `letGo` (a room turned off) closes the round without marking
  the start done: the room admits everyone it holds once ordered, and if it is turned on again before startsAt,
  new joins form the next round. A start that finds nobody early still closes (an empty list) when a seed was
  committed, so its proof is published. During a shuffle, a later join's position leaves out the tickets not
  yet moved (for the few ticks a large pre-queue takes to move).
  State fields: preRound, shuffled ("1" once startsAt's round closed), shuffleRound / shuffleNext (the round
  closed and its next reserved number; absent when no shuffle is in progress), shuffleAwaitsOrder ("1" from the
  close until its order is written), shuffleSeed / shuffleCommitment / shuffleCommittedAt / shuffleClosedAt
  (the closed round's, until published), nextSeed / nextCommitment / nextCommittedAt (the scheduled start's).
  A round cannot outgrow its reservation: joins after its close score in the next round.
  A join with a lane's pass keeps its lane through the pre-queue: its score's fraction holds the lane's band
  (band / EARLY_BANDS, at most .5 as a room has at most 8 lanes, exact in a double), which neither a round's count
  nor its list reads; the draw orders the round's tickets together, and the step puts each at its reserved number
  in its own lane (includes/room-lanes.lua), so a lane is FIFO by the draw's order.
  Needs includes/room-tickets.lua; keys.order only where the step runs (the tick).
]]
local SHUFFLE_STEP = 1000
local EARLY_BANDS = 16

-- The score of a new pre-queue ticket: its round, and its lane's band in the fraction (0: the default queue).
local function room_early_score(keys, band)
  return (tonumber(redis.call("HGET", keys.state, "preRound")) or 0) + (band or 0) / EARLY_BANDS
end

-- The lane's band a pre-queue score holds.
local function room_early_band(score)
  return math.floor((score - math.floor(score)) * EARLY_BANDS + 0.5)
end

-- Reserves numbers for the current round's tickets, opens the next round, and gives the round its seed.
local function room_shuffle_close(keys, nowMs)
  local round = tonumber(redis.call("HGET", keys.state, "preRound")) or 0
  local size = redis.call("ZCOUNT", keys.early, "-inf", "(" .. (round + 1))
  local last = redis.call("HINCRBY", keys.state, "seq", size)
  redis.call("HSET", keys.state, "preRound", round + 1, "shuffleRound", round, "shuffleNext", last - size + 1,
    "shuffleAwaitsOrder", "1", "shuffleClosedAt", nowMs)
  local committed = redis.call("HMGET", keys.state, "nextSeed", "nextCommitment", "nextCommittedAt")
  if committed[1] then
    redis.call("HSET", keys.state, "shuffleSeed", committed[1], "shuffleCommitment", committed[2],
      "shuffleCommittedAt", committed[3])
    redis.call("HDEL", keys.state, "nextSeed", "nextCommitment", "nextCommittedAt")
  else
    -- A start scheduled before seeds were committed: the leader mints one when it orders (pre-queue-order.ts).
    redis.call("HDEL", keys.state, "shuffleSeed", "shuffleCommitment", "shuffleCommittedAt")
  end
end

-- Closes the current round if its start has come (or the room lets it go); true when it did.
local function room_shuffle_close_if_due(keys, nowMs, letGo)
  if redis.call("HEXISTS", keys.state, "shuffleRound") == 1 then
    return false -- a shuffle in progress finishes first, whatever startsAt says now
  end
  local anyone = redis.call("EXISTS", keys.early) == 1
  if not anyone and redis.call("HEXISTS", keys.state, "nextSeed") == 0 then
    return false
  end
  if letGo then
    if not anyone then
      return false
    end
  else
    if redis.call("HGET", keys.state, "shuffled") == "1" then
      return false
    end
    local startsAt = tonumber(redis.call("HGET", keys.config, "startsAt"))
    if startsAt and nowMs < startsAt then
      return false
    end
    redis.call("HSET", keys.state, "shuffled", "1")
  end
  room_shuffle_close(keys, nowMs)
  return true
end

-- Moves the next tickets of the ordered round (the head of {room}:order) to their reserved places, each in its
-- lane: `lane_score(band, seq)` is room-lanes.lua's room_lane_score (the caller's include).
local function room_shuffle_step(keys, lane_score)
  local state = redis.call("HMGET", keys.state, "shuffleRound", "shuffleNext", "shuffleAwaitsOrder")
  if not state[1] or state[3] then
    return 0 -- no round closed, or the leader has not ordered it yet
  end
  local nextSeq = tonumber(state[2])
  local members = redis.call("LPOP", keys.order, SHUFFLE_STEP) or {}
  for _, ticketId in ipairs(members) do
    local early = tonumber(redis.call("ZSCORE", keys.early, ticketId))
    redis.call("ZREM", keys.early, ticketId)
    local t = ticket_read(keys.tickets, ticketId)
    if t and t.status == "early" then
      t.status = "waiting"
      t.seq = nextSeq
      ticket_write(keys.tickets, ticketId, t)
      local band = early and room_early_band(early) or 0
      redis.call("ZADD", keys.queue, string.format("%.0f", lane_score(band, nextSeq)), ticketId)
      nextSeq = nextSeq + 1
    end
  end
  if redis.call("EXISTS", keys.order) == 0 then
    redis.call("HDEL", keys.state, "shuffleRound", "shuffleNext") -- the round has moved
  else
    redis.call("HSET", keys.state, "shuffleNext", nextSeq)
  end
  return #members
end

-- A pre-queue ticket's position: the size of its round (its place is not decided until the shuffle).
local function room_early_position(early, ticketId)
  local score = tonumber(redis.call("ZSCORE", early, ticketId))
  if not score then
    return ""
  end
  local round = math.floor(score)
  return tostring(redis.call("ZCOUNT", early, round, "(" .. (round + 1)))
end

-- The number below which queue tickets may be admitted now: while a round is closed and not all moved, the next
-- reserved number (its unmoved tickets, and every later join, wait); else none (nil).
local function room_shuffle_admit_below(keys)
  local state = redis.call("HMGET", keys.state, "shuffleRound", "shuffleNext")
  if not state[1] then
    return nil -- no round moving (a shuffleNext left without one is stale)
  end
  return tonumber(state[2])
end
