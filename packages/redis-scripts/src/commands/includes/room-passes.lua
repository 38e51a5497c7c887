--[[
  A user's passes for one room, in the user's partition slot: the hash {p}:pass:<roomId>:<userId>, one field per
  ticket of the user that was admitted: ticketId -> "<admitted|revoked|used>|<expiresAt>" (epoch ms of the room's
  node), and beside it the admission token handed out for that ticket:
    "token:" .. ticketId -> "<digest>|<token>|<expiresAt>"
  <digest> is the first 16 bytes of the token's SHA-256 in hex (packages/admission admission-token-digest.ts): the
  gate compares the presented token's with it (includes/admission-gate.lua), so only the exact token handed out
  admits. A pass written by an intake of the previous release has no token field; its tokens are checked by
  their signature instead (the intake retries with the signature verified). The token field ends with the
  admission's end like the status, so the loop below (and the previous release's) forgets both together.
  includes/admission-gate.lua reads it. Each write forgets the tickets that ended more than `retentionMs`
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

-- The field holding the token handed out for `ticketId` (its digest, the token, the admission's end).
local function pass_token_field(ticketId)
  return "token:" .. ticketId
end
