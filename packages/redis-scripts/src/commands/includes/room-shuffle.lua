--[[
  The pre-queue: joins before startsAt wait in {room}:early, scored <round> + half a random number in [0, 1)
  drawn at join (round: state field preRound, 0 at first). The first join or leader tick after startsAt starts the
  shuffle of the current round, once: it reserves the next sequence numbers for all of that round (so every
  later join queues behind all of it) and moves on to the next round (early joins from now on, if startsAt is
  moved later, wait for their own start). The round's tickets then take the reserved numbers in score order (a
  shuffle, so arriving a second early buys nothing), at most SHUFFLE_STEP per call: every join and tick moves
  the next ones, whatever happens to startsAt meanwhile, so no call holds Redis long however many joined early.
  While tickets are still to move, the tick admits no ticket numbered past the moved part.
  A room whose startsAt was removed has started. `letGo` (a room turned off) starts the round without marking
  the start done: the room admits everyone it holds, and if it is turned on again before startsAt, new joins
  form the next round. During a shuffle, a later join's position leaves out the tickets not yet moved (for the
  few seconds a large pre-queue takes to move).
  State fields: preRound, shuffled ("1" once startsAt's round started), shuffleRound / shuffleNext (the round
  moving and its next reserved number; absent when no shuffle is in progress). A round cannot outgrow its
  reservation: joins after its start score in the next round.
  Needs includes/room-tickets.lua.
]]
local SHUFFLE_STEP = 1000

-- The score of a new pre-queue ticket: its round, plus its random draw halved (round + draw alone can round up
-- to round + 1 in floating point, a place in the next round).
local function room_early_score(keys, draw)
  return (tonumber(redis.call("HGET", keys.state, "preRound")) or 0) + draw / 2
end

-- Reserves numbers for the current round's tickets and opens the next round.
local function room_shuffle_start(keys)
  local round = tonumber(redis.call("HGET", keys.state, "preRound")) or 0
  local size = redis.call("ZCOUNT", keys.early, "-inf", "(" .. (round + 1))
  local last = redis.call("HINCRBY", keys.state, "seq", size)
  redis.call("HSET", keys.state, "preRound", round + 1, "shuffleRound", round, "shuffleNext", last - size + 1)
end

-- Moves the next tickets of the round in progress (lowest scores first) to their reserved places.
local function room_shuffle_step(keys)
  local state = redis.call("HMGET", keys.state, "shuffleRound", "shuffleNext")
  local round = tonumber(state[1])
  if not round then
    return 0
  end
  local nextSeq = tonumber(state[2])
  local members = redis.call("ZRANGEBYSCORE", keys.early, "-inf", "(" .. (round + 1), "LIMIT", 0, SHUFFLE_STEP)
  for _, ticketId in ipairs(members) do
    redis.call("ZREM", keys.early, ticketId)
    local t = ticket_read(keys.tickets, ticketId)
    if t and t.status == "early" then
      t.status = "waiting"
      t.seq = nextSeq
      ticket_write(keys.tickets, ticketId, t)
      redis.call("ZADD", keys.queue, nextSeq, ticketId)
      nextSeq = nextSeq + 1
    end
  end
  if #members < SHUFFLE_STEP or redis.call("ZCOUNT", keys.early, "-inf", "(" .. (round + 1)) == 0 then
    redis.call("HDEL", keys.state, "shuffleRound", "shuffleNext") -- the round has moved
  else
    redis.call("HSET", keys.state, "shuffleNext", nextSeq)
  end
  return #members
end

local function room_shuffle_if_due(keys, nowMs, letGo)
  if redis.call("HEXISTS", keys.state, "shuffleRound") == 1 then
    return room_shuffle_step(keys) -- a shuffle in progress finishes first, whatever startsAt says now
  end
  if redis.call("EXISTS", keys.early) == 0 then
    return 0
  end
  if not letGo then
    if redis.call("HGET", keys.state, "shuffled") == "1" then
      return 0
    end
    local startsAt = tonumber(redis.call("HGET", keys.config, "startsAt"))
    if startsAt and nowMs < startsAt then
      return 0
    end
    redis.call("HSET", keys.state, "shuffled", "1")
  end
  room_shuffle_start(keys)
  return room_shuffle_step(keys)
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

-- The number below which queue tickets may be admitted now: while a round is moving, the next reserved number
-- (its unmoved tickets, and every later join, wait); else none (nil).
local function room_shuffle_admit_below(keys)
  local state = redis.call("HMGET", keys.state, "shuffleRound", "shuffleNext")
  if not state[1] then
    return nil -- no round moving (a shuffleNext left without one is stale)
  end
  return tonumber(state[2])
end
