--[[
  The coupon's half of a coupon issue on a Redis Cluster (the first step, sent beside admit-request-4.lua): the
  window, one per user and count < quantity, then one unit held for this issue, all in the coupon's slot
  (includes/coupon-unit.lua, as issue-coupon-n.lua checks and holds it on one Redis). The unit is the issue's
  from here on only if the user's slot records the issue within the commit window (commit-coupon-issue-4.lua);
  otherwise release-coupon-3.lua gives it back, sent by the intake when it learns the request is refused, or by
  a worker's sweep of reservations older than any commit can be.

  KEYS[1] coupon state hash   {cpn_...}:coupon        quantity, startsAt, endsAt, issued
  KEYS[2] coupon holders hash {cpn_...}:holders       userId -> issue id
  KEYS[3] reservations        {cpn_...}:reservations  "<issue id> <user id>" -> reserved at (epoch ms, this
                                                      master's TIME)

  ARGV[1] issue id
  ARGV[2] user id

  Returns
    { 1, reservedAtMs}  held: issued + 1, the user a holder, the reservation listed
    {-1, ""}            unknown: no coupon state in Redis
    {-2, startsAt}      not open yet
    {-3, endsAt}        closed
    {-4, existingId}    the user already holds this coupon (or an issue of theirs holds a unit right now)
    {-5, ""}            sold out (units held by requests still being recorded count as issued)
]]
--- @include "coupon-unit"
local refused, nowMs = coupon_unit_check(KEYS[1], KEYS[2], ARGV[2])
if refused then
  return refused
end
coupon_unit_take(KEYS[1], KEYS[2], ARGV[2], ARGV[1])
redis.call("ZADD", KEYS[3], nowMs, ARGV[1] .. " " .. ARGV[2])
return {1, nowMs}
