--[[
  Writes one page of a closed pre-queue round's order, which the admission leader computed outside Redis
  (pre-queue-order.ts in @floodgate/admission: SHA-256 of the round's seed, its list's hash and each ticket id),
  and with the last page publishes the round's shuffle proof and lets the round move (includes/room-shuffle.lua).
  Pages are appended in turn: a page is taken only where the written order ends and for the same list, so a
  retried or repeated page writes nothing twice; offset 0 starts the order again (a leader that read the list
  anew after it changed, or after a predecessor stopped midway). Every key is the room's: one slot.

  KEYS[1] state          {room-<id>}:state            shuffleRound, shuffleAwaitsOrder, shuffleSeed, ...
  KEYS[2] order          {room-<id>}:order            the round's tickets in order (the tick moves its head)
  KEYS[3] proof          {room-<id>}:shuffle          the last published proof: commitment, seed, listHash, ...
  KEYS[4] proof tickets  {room-<id>}:shuffle-tickets  that proof's ticket ids, sorted

  ARGV[1] the leader's epoch (hold-leader-lease-2.lua)
  ARGV[2] the round (state shuffleRound, as read)
  ARGV[3] the list's hash, hex
  ARGV[4] the list's size (all pages)
  ARGV[5] this page's offset in the order
  ARGV[6] n, the ids in this page
  ARGV[7 .. 6+n]     this page of the order
  ARGV[7+n .. 6+2n]  the same page of the list sorted by id

  Returns {1, written so far} a page taken; {2, size} the last page taken: the proof is published;
  {-1, the room's epoch} a later leader epoch has ticked the room; {-2} the round awaits no order (published
  already, or another round); {-3, written so far} out of step (the caller starts again at offset 0);
  {-4} the round has no seed (the caller mints one first). Nothing is written on a negative answer.
]]
--- @include "room-tickets"
local epoch = tonumber(ARGV[1])
local state = redis.call("HMGET", KEYS[1], "leaderEpoch", "shuffleRound", "shuffleAwaitsOrder", "shuffleListHash",
  "shuffleSeed", "shuffleCommitment", "shuffleCommittedAt", "shuffleClosedAt")
local roomEpoch = tonumber(state[1]) or 0
if not epoch or epoch < roomEpoch then
  return {-1, roomEpoch}
end
if state[2] ~= ARGV[2] or not state[3] then
  return {-2}
end
if not state[5] then
  return {-4}
end
local size = tonumber(ARGV[4])
local offset = tonumber(ARGV[5])
local n = tonumber(ARGV[6])
if offset == 0 then
  redis.call("DEL", KEYS[2], KEYS[4])
  redis.call("HSET", KEYS[1], "shuffleListHash", ARGV[3])
else
  local written = redis.call("LLEN", KEYS[2])
  if state[4] ~= ARGV[3] or written ~= offset then
    return {-3, written}
  end
end
if n > 0 then
  redis.call("RPUSH", KEYS[2], unpack(ARGV, 7, 6 + n))
  redis.call("RPUSH", KEYS[4], unpack(ARGV, 7 + n, 6 + 2 * n))
end
if offset + n < size then
  return {1, offset + n}
end
redis.call("DEL", KEYS[3])
redis.call("HSET", KEYS[3], "round", ARGV[2], "commitment", state[6], "committedAt", state[7], "seed", state[5],
  "listHash", ARGV[3], "size", size, "closedAt", state[8], "publishedAt", room_now_ms())
redis.call("HDEL", KEYS[1], "shuffleAwaitsOrder", "shuffleListHash", "shuffleSeed", "shuffleCommitment",
  "shuffleCommittedAt", "shuffleClosedAt")
return {2, size}
