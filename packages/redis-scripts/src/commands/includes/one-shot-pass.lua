--[[
  One-shot admission (a room with `admission: "one-shot"`): the admission token is consumed by the guarded
  request accepted with it, in the script that accepts it, so it cannot be shared or resold once used. Its pass
  in the user's slot ({p}:pass:<roomId>:<userId>, includes/room-passes.lua) then reads "used|<expiresAt>": the
  gate refuses the token again ({-91, "used"}) until it expires. The mark keeps the ticket's end, so it is
  forgotten with the pass (the hash lives until its last ticket's end plus the room's retention); no key of its
  own, no TTL to keep in step.
  A refusal (out of stock, a limit) consumes nothing, and a retry with the Idempotency-Key of the request that
  used the token still gets that request's answer: scripts check their key's replay before the mark.
  On one Redis the accepting script includes admission-gate.lua, which reads the pass. On a Redis Cluster the
  request's first step (admit-request-4.lua) reads it the same way, and its commit (commit-order-5.lua,
  commit-coupon-issue-4.lua, in the same slot) consumes it with one_shot_commit: another request with the same
  token may have committed between the steps.
]]

-- The pass of `ticketId`: its status ("admitted", "revoked", "used"; nil for none) and its end (epoch ms).
local function one_shot_pass_read(passesKey, ticketId)
  local pass = redis.call("HGET", passesKey, ticketId)
  if not pass then
    return nil, 0
  end
  local status, expiresAt = string.match(pass, "^(%a+)|(%d*)$")
  return status, tonumber(expiresAt) or 0
end

-- Marks the pass used; its end stays, so the pass hash forgets it when it forgets the ticket.
local function one_shot_pass_consume(pass)
  if pass and pass.key then
    redis.call("HSET", pass.key, pass.ticketId, "used|" .. pass.expiresAt)
  end
end

-- A cluster's commit step: gateKey {p}:gate:<roomId>, passesKey, ticketId ("" when the request carries no
-- one-shot token). Returns {-91, "used"} when another request used the token since the first step, else nil and
-- the pass to consume once the request is recorded (nil: nothing to consume). Like the gate, it only looks
-- while the room queues.
local function one_shot_commit(gateKey, passesKey, ticketId)
  if ticketId == "" or redis.call("GET", gateKey) ~= "1" then
    return nil, nil
  end
  local status, expiresAt = one_shot_pass_read(passesKey, ticketId)
  if status == "used" then
    return {-91, "used"}, nil
  end
  if status ~= "admitted" then
    return nil, nil
  end
  return nil, {key = passesKey, ticketId = ticketId, expiresAt = expiresAt}
end
