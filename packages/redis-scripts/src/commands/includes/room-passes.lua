--[[
  A user's passes for one room, in the user's partition slot: the hash {p}:pass:<roomId>:<userId>, one field per
  ticket of the user that was admitted: ticketId -> "<admitted|revoked>|<expiresAt>" (epoch ms of the room's
  node). includes/admission-gate.lua reads it. Each write forgets the tickets that ended more than `retentionMs`
  ago and keeps the hash until the last one's end + retentionMs, so a stale token still finds its ticket there
  ("expired", "revoked") for as long as the room itself remembers the ticket.
]]
local function pass_write(key, ticketId, value, expiresAt, retentionMs, nowMs)
  redis.call("HSET", key, ticketId, value)
  local last = expiresAt
  local fields = redis.call("HGETALL", key)
  for i = 1, #fields, 2 do
    local ends = tonumber(string.match(fields[i + 1], "|(%d*)$")) or 0
    if ends + retentionMs <= nowMs then
      redis.call("HDEL", key, fields[i])
    elseif ends > last then
      last = ends
    end
  end
  redis.call("PEXPIREAT", key, math.max(last, nowMs) + retentionMs)
end
