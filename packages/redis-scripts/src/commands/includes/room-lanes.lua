--[[
  A room's lanes: a join carrying a lane's join pass waits in that lane, and the tick splits what it admits among
  the lanes by share. The config field `lanes` is "<name>=<share>,..." in the order the operator gave them (at
  most 8; room-definition.ts); lane i (1-based) is band i, the default queue (joins with no lane pass) band 0.
  Every waiting ticket stays in the one queue {room-<id>}:queue, scored band * LANE_BAND + its sequence number,
  so ZCARD is still everyone waiting, a lane is a score range (FIFO inside it), and a place in a lane is one ZCOUNT.
  Band 0 also takes scores below 0: a bypass waiting for room (maxActiveSessions or the stock reached) is put
  before everyone in it (room_lane_front_score) and goes first.
  The default queue's share is 1 minus the lanes' shares (0 when they sum to 1: it then gets only what they leave).
  The tick gives each admission in turn to the band with the most credit among the bands with someone waiting
  (the lowest band on a tie), each such band first gaining its share over the sum of theirs (so an idle lane's
  share goes to the others): a smooth weighted round robin, exact over every run of admissions, its credits kept
  in state `laneCredits` between ticks so a tick that admits one still keeps the proportion. A band with nobody
  waiting has its credit cleared: no share is banked while idle. Tickets left in a band no lane names any more (a
  lane removed while they waited) go after the named ones, by sequence.
]]
local LANE_BAND = 1099511627776 -- 2^40 (room-lanes.ts too): a room's sequence numbers stay far below it

-- The configured lanes, {{name = ..., share = ...}, ...} in band order (band = index).
local function room_lanes_read(spec)
  local lanes = {}
  for name, share in string.gmatch(spec or "", "([^,=]+)=([^,]+)") do
    lanes[#lanes + 1] = {name = name, share = tonumber(share) or 0}
  end
  return lanes
end

-- The band of a lane's name (nil: no such lane here now, the default queue takes the ticket).
local function room_lane_band(lanes, name)
  for band, lane in ipairs(lanes) do
    if lane.name == name then
      return band
    end
  end
  return nil
end

local function room_lane_score(band, seq)
  return band * LANE_BAND + seq
end

-- A score before everyone in the default queue (and in no lane's band).
local function room_lane_front_score(queue)
  local head = redis.call("ZRANGE", queue, 0, 0, "WITHSCORES")
  local first = tonumber(head[2])
  if first and first < 0 then
    return first - 1
  end
  return -1
end

-- A waiting ticket's 1-based place in its lane (the default queue included) and its lane's band, or nil when it
-- is not queued.
local function room_lane_position(queue, ticketId)
  local score = tonumber(redis.call("ZSCORE", queue, ticketId))
  if not score then
    return nil
  end
  local band = math.max(0, math.floor(score / LANE_BAND))
  local from = band > 0 and string.format("%.0f", band * LANE_BAND) or "-inf"
  return redis.call("ZCOUNT", queue, from, string.format("%.0f", score)), band
end

-- Band b's score range for ZRANGEBYSCORE: the default queue is everything below band 1. While a pre-queue round
-- moves, each band only up to admitBelow (its number): the round's unmoved tickets, and later joins in any lane,
-- wait behind the round's moved part, as they do in the default queue.
local function room_lane_range(band, admitBelow)
  if band == 0 then
    return "-inf", "(" .. string.format("%.0f", admitBelow or LANE_BAND)
  end
  local from = band * LANE_BAND
  return string.format("%.0f", from), "(" .. string.format("%.0f", from + (admitBelow or LANE_BAND))
end

-- Takes up to n tickets off the queue, split among the bands by share (see above); returns their ids in the
-- order taken.
local function room_lanes_pop(keys, lanes, n, admitBelow)
  local shares = {[0] = 1}
  local waiting = {}
  for band = 0, #lanes do
    if band > 0 then
      shares[band] = lanes[band].share
      shares[0] = shares[0] - lanes[band].share
    end
    local from, to = room_lane_range(band, admitBelow)
    waiting[band] = redis.call("ZCOUNT", keys.queue, from, to)
  end
  if shares[0] < 1e-9 then
    shares[0] = 0 -- shares summing to 1 in floating point
  end
  local credits = {}
  local stored = redis.call("HGET", keys.state, "laneCredits") or ""
  local i = 0
  for value in string.gmatch(stored, "[^,]+") do
    credits[i] = tonumber(value) or 0
    i = i + 1
  end
  local ids = {}
  while #ids < n do
    local sum, equal = 0, 0
    for band = 0, #lanes do
      if waiting[band] > 0 then
        sum = sum + shares[band]
        equal = equal + 1
      end
    end
    if equal == 0 then
      break
    end
    local best
    for band = 0, #lanes do
      if waiting[band] > 0 then
        -- Only bands with a share of 0 waiting (the default queue when the lanes take everything): equal parts.
        local gain = sum > 0 and shares[band] / sum or 1 / equal
        credits[band] = (credits[band] or 0) + gain
        if best == nil or credits[band] > credits[best] then
          best = band
        end
      end
    end
    local from, to = room_lane_range(best, admitBelow)
    local head = redis.call("ZRANGEBYSCORE", keys.queue, from, to, "LIMIT", 0, 1)
    credits[best] = credits[best] - 1
    waiting[best] = waiting[best] - 1
    if head[1] then
      redis.call("ZREM", keys.queue, head[1])
      ids[#ids + 1] = head[1]
    end
  end
  -- A band removed from the config: what it still holds goes after the named lanes, by score.
  if #ids < n then
    local beyond = string.format("%.0f", (#lanes + 1) * LANE_BAND)
    for _, ticketId in ipairs(redis.call("ZRANGEBYSCORE", keys.queue, beyond, "+inf", "LIMIT", 0, n - #ids)) do
      redis.call("ZREM", keys.queue, ticketId)
      ids[#ids + 1] = ticketId
    end
  end
  local kept = {}
  for band = 0, #lanes do
    kept[#kept + 1] = waiting[band] > 0 and string.format("%.6f", credits[band] or 0) or "0"
  end
  redis.call("HSET", keys.state, "laneCredits", table.concat(kept, ","))
  return ids
end
