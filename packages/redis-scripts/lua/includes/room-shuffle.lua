--[[
  The pre-queue: joins before startsAt wait in {room}:early, each scored with a random number drawn at join. The
  first join or leader tick after startsAt moves them all into the queue, once, in score order (a shuffle, so
  arriving a second early buys nothing), with sequence numbers below every later join's.
  Needs includes/room-tickets.lua.
]]
local function room_shuffle_if_due(keys, nowMs)
  local startsAt = tonumber(redis.call("HGET", keys.config, "startsAt"))
  if not startsAt or nowMs < startsAt then
    return 0
  end
  if redis.call("HGET", keys.state, "shuffled") == "1" then
    return 0
  end
  redis.call("HSET", keys.state, "shuffled", "1")
  local seq = tonumber(redis.call("HGET", keys.state, "seq")) or 0
  local members = redis.call("ZRANGE", keys.early, 0, -1)
  for _, ticketId in ipairs(members) do
    local t = ticket_read(keys.tickets, ticketId)
    if t and t.status == "early" then
      seq = seq + 1
      t.status = "waiting"
      t.seq = seq
      ticket_write(keys.tickets, ticketId, t)
      redis.call("ZADD", keys.queue, seq, ticketId)
    end
  end
  redis.call("HSET", keys.state, "seq", seq)
  redis.call("DEL", keys.early)
  return #members
end
