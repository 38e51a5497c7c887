--[[
  Add an intake's count of guarded requests to a room's traffic, for the leader's `auto` mode
  (admit-room-13.lua compares the last second's traffic with admitPerSecond). Each intake counts in memory and
  flushes about every 100 ms (apps/intake/src/admission/room-traffic.ts), so the gate, which runs in the user's
  slot, need not write the room's: a count lands in the second of the flush (Redis TIME of the room's node).

  KEYS[1] the room's state  {room-<id>}:state  fields trafficSec, trafficCount (this second), trafficPrev (the one
                            before)

  ARGV[1] requests counted since the last flush (> 0)

  Returns the current second's count.
]]
local time = redis.call("TIME")
local second = tonumber(time[1])
local state = redis.call("HMGET", KEYS[1], "trafficSec", "trafficCount")
local count = tonumber(ARGV[1])
if tonumber(state[1]) == second then
  return redis.call("HINCRBY", KEYS[1], "trafficCount", count)
end
local previous = 0
if tonumber(state[1]) == second - 1 then
  previous = tonumber(state[2]) or 0
end
redis.call("HSET", KEYS[1], "trafficSec", second, "trafficCount", count, "trafficPrev", previous)
return count
