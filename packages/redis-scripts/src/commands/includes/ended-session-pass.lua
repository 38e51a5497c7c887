--[[
  A waiting-room session that ended on its order (paid: checkout done; cancelled, expired or failed) stops
  admitting: its pass in the user's slot ({p}:pass:<roomId>:<userId>, includes/room-passes.lua) reads
  "ended|<expiresAt>", which the gate refuses as expired (includes/admission-gate.lua) and a later grant does not
  overwrite (grant-pass-1.lua). The end stays, so the pass is forgotten with its ticket. Written by the scripts the
  worker already sends per order in the user's slot (settle-unpaid-units-n.lua for a paid order,
  release-order-n.lua for one that ended without a sale): no call of its own. The room's live count is left by
  end-sessions-4.lua in the room's slot.
]]
local function ended_session_pass(passesKey, ticketId)
  if not passesKey or ticketId == "" then
    return
  end
  local pass = redis.call("HGET", passesKey, ticketId)
  if not pass then
    return
  end
  local status, expiresAt = string.match(pass, "^(%a+)|(%d*)$")
  if status == "admitted" or status == "used" then
    redis.call("HSET", passesKey, ticketId, "ended|" .. expiresAt)
  end
end
