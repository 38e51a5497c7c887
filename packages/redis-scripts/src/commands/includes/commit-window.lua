--[[
  The commit window of a two-step request on a Redis Cluster (commit-coupon-issue-4.lua, commit-order-5.lua): a
  commit later than the window after its reservation writes nothing and answers {-101, ""}, so that a worker's
  sweep, which releases only reservations far older than the window, never gives back the units of a request
  being recorded. The reservation's time is its item master's TIME, this one is the user's master's: the sweep's
  margin covers the skew between them.
]]

-- True when now (this master's TIME, whole ms) is more than windowMs after reservedAtMs.
local function commit_too_late(reservedAtMs, windowMs)
  local time = redis.call("TIME")
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  return nowMs - tonumber(reservedAtMs) > tonumber(windowMs)
end
