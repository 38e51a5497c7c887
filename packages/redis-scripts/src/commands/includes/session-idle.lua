--[[
  Idle sessions (a room's sessionIdleSeconds): a session with no guarded request using its token for that long
  ends. The use is recorded here, in the user's slot, by the guarded request's own script (the gate): a field
  beside the session's pass in {p}:pass:<roomId>:<userId> (includes/room-passes.lua),
    "<ticketId>:used" -> "<last use, epoch ms>|<the session's end>"
  (the same "<...>|<end>" shape as a pass, so the hash forgets it with the ticket). The gate judges idleness
  itself: while the room queues, a token whose last recorded use is that old is refused `expired`. The room's
  live count is in the room's slot, which no guarded script may touch on a Redis Cluster: the admission leader
  reads these fields lazily, for the sessions due for a look only (room-idle-sessions.ts, end-idle-sessions-5.lua),
  and ends the idle ones there.
]]
local function session_use_field(ticketId)
  return ticketId .. ":used"
end

-- The last recorded use of the ticket's session (epoch ms), nil when none was recorded.
local function session_last_use(passesKey, ticketId)
  local used = redis.call("HGET", passesKey, session_use_field(ticketId))
  if not used then
    return nil
  end
  return tonumber(string.match(used, "^(%d+)|"))
end

-- Whether a session whose token was last used at `lastUse` is idle at nowMs (never used: not judged here; the
-- leader judges it from its admission).
local function session_idle(lastUse, nowMs, idleMs)
  return lastUse ~= nil and nowMs - lastUse >= idleMs
end

-- Records a use of the session now; `expiresAt` is its end (the field goes with the pass).
local function session_touch(passesKey, ticketId, nowMs, expiresAt)
  redis.call("HSET", passesKey, session_use_field(ticketId), nowMs .. "|" .. expiresAt)
end
