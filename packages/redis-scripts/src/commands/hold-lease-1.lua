--[[
  Take or keep a lease (the room-definition lock's): set it when nobody holds it, extend it when we do. The
  admission leader's lease is the same with an epoch beside it: hold-leader-lease-2.lua.

  KEYS[1] the lease   (value: the holder's id)
  ARGV[1] our id
  ARGV[2] lease length in ms

  Returns 1 when we hold the lease for ARGV[2] ms from now, 0 when someone else does.
]]
local holder = redis.call("GET", KEYS[1])
if holder == false then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
return 0
