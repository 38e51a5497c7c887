--[[
  A waiting room's tickets: one field per ticket in {room-<id>}:tickets, the value
    "<status>|<userId>|<seq>|<joinedAt>|<admittedAt>|<expiresAt>"   (epoch ms; "" where not yet known)
  status: early (joined before startsAt, not yet shuffled) | waiting | admitted | expired | abandoned | revoked.
  includes/admission-gate.lua reads the same format.
]]
local function room_now_ms()
  local time = redis.call("TIME")
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local function ticket_read(tickets, ticketId)
  local record = redis.call("HGET", tickets, ticketId)
  if not record then
    return nil
  end
  local status, userId, seq, joinedAt, admittedAt, expiresAt =
    string.match(record, "^(%a+)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)$")
  return {
    status = status, userId = userId, seq = seq, joinedAt = joinedAt, admittedAt = admittedAt,
    expiresAt = expiresAt,
  }
end

local function ticket_write(tickets, ticketId, t)
  redis.call("HSET", tickets, ticketId, table.concat(
    {t.status, t.userId, t.seq or "", t.joinedAt or "", t.admittedAt or "", t.expiresAt or ""}, "|"))
end

-- Admits one ticket now: its session starts, its place and heartbeat go, and the second's count goes up.
local function ticket_admit(keys, ticketId, t, nowMs, sessionMs)
  t.status = "admitted"
  t.admittedAt = nowMs
  t.expiresAt = nowMs + sessionMs
  ticket_write(keys.tickets, ticketId, t)
  redis.call("ZADD", keys.sessions, t.expiresAt, ticketId)
  redis.call("ZREM", keys.seen, ticketId)
  redis.call("HINCRBY", keys.admits, math.floor(nowMs / 1000), 1)
  redis.call("HINCRBY", keys.state, "admittedTotal", 1)
end
