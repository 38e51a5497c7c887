--[[
  A room's events for the shop (webhooks and GET /v1/events): appended to the room's stream {room-<id>}:events
  by the script that makes the transition, in the same call, so an event exists exactly when its transition
  does, whichever leader (or join) made it. A worker drains the stream into the events feed and the webhook
  outbox (apps/worker room-event-drain.ts), deriving each event's id from the room and the entry's id, so a
  drain repeated (a worker killed after its commit, two workers at once) records nothing twice.
  Fields: type (a room.* or ticket.* webhook event type), at (ms), and the event's own fields as given.
  room.closed (a room's endsAt) is one call: room_event(keys.events, "room.closed", nowMs, {}).
]]
local function room_event(eventsKey, eventType, nowMs, fields)
  local args = {"XADD", eventsKey, "*", "type", eventType, "at", nowMs}
  for name, value in pairs(fields) do
    args[#args + 1] = name
    args[#args + 1] = tostring(value)
  end
  redis.call(unpack(args))
end
