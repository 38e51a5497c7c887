--[[
  Trim a partition stream up to the oldest entry the consumer group still needs, never further.

  KEYS[1] partition stream
  ARGV[1] consumer group name

  An entry can go once it was delivered (at or before the group's last-delivered-id) and acknowledged (not in
  the pending entries list). So the trim point is the oldest pending id, or the last-delivered-id when nothing
  is pending; MINID keeps that entry and everything after it.

  Returns the number of entries removed (0 when the stream or group does not exist).
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return 0
end
local lastDelivered = nil
local groups = redis.call("XINFO", "GROUPS", KEYS[1])
for _, group in ipairs(groups) do
  local fields = {}
  for i = 1, #group, 2 do
    fields[group[i]] = group[i + 1]
  end
  if fields["name"] == ARGV[1] then
    lastDelivered = fields["last-delivered-id"]
  end
end
if not lastDelivered or lastDelivered == "0-0" then
  return 0
end
local summary = redis.call("XPENDING", KEYS[1], ARGV[1])
local keepFrom = lastDelivered
if summary[1] > 0 then
  keepFrom = summary[2]
end
return redis.call("XTRIM", KEYS[1], "MINID", keepFrom)
