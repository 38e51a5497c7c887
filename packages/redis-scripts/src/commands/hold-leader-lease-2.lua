--[[
  Take or keep the admission leader's lease, and name the holder's epoch: a number that grows with every new
  holder. The leader passes its epoch to each room's tick (admit-room-13.lua), and a room refuses a tick from an
  epoch below the highest it has seen, so a deposed leader cannot admit in a room its successor has ticked.
  The room remembers the epoch itself: the tick needs no key outside the room's slot.

  KEYS[1] the lease      value: the holder's id (the same key and value as hold-lease-1.lua used)
  KEYS[2] the epoch      a counter that only grows; same slot as the lease (admission-keys.ts: leaderEpoch)
  ARGV[1] our id
  ARGV[2] lease length in ms
  ARGV[3] an epoch a room has seen that is above ours ("0" when none): when we still hold the lease, our epoch
          goes past it. Only a lost write lets the counter fall behind a room (a failover that lost the last
          INCR); without this the new holder's ticks would be refused until the counter caught up.

  Returns our epoch (>= 1) when we hold the lease for ARGV[2] ms from now, 0 when someone else holds it.
]]
local holder = redis.call("GET", KEYS[1])
if holder == false then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  redis.call("INCR", KEYS[2])
elseif holder == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
else
  return 0
end
local epoch = tonumber(redis.call("GET", KEYS[2])) or 0
local seen = tonumber(ARGV[3]) or 0
if epoch <= seen or epoch < 1 then
  epoch = math.max(seen, 0) + 1
  redis.call("SET", KEYS[2], epoch)
end
return epoch
