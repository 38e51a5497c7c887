-- POST /v1/payments for wrk (bench payments --max --generator wrk): every request built by request(), with a
-- fresh Idempotency-Key and a shopper drawn at random, so no answer can come from a replay cache.
--
-- Arguments, after wrk's own and "--":
--   args[1]  Idempotency-Key prefix, unique per stage (keys are <prefix>-<thread>-<sequence>)
--   args[2]  shoppers: user ids bench-user-0 .. bench-user-<n-1>, body {"userId","amount"}
--   args[3]  optional: a file of customer tokens, line i+1 holding bench-user-i's (auth on); absent or empty
--            sends no Authorization header (AUTH=off, the peers)
--
-- done() prints one line, "wrk-result " and a JSON object:
--   requests, durationUs, statuses {"<code>": count}, errors {connect, read, write, timeout},
--   latencyUs {p50, p90, p99, max}, cpuS (wrk's own cpu time, all threads, user + system: os.clock())

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

function init(args)
  prefix = args[1]
  users = tonumber(args[2])
  -- Everything but the key, the shopper and the amount is the same in every request: built once here, so the
  -- generator's CPU per request (which the targets' stages share the machine with) is a few concatenations.
  -- The request is byte for byte what wrk.format would build from a headers table.
  authorizations = nil
  if args[3] ~= nil and args[3] ~= "" then
    authorizations = {}
    for line in io.lines(args[3]) do
      authorizations[#authorizations + 1] = "Authorization: Bearer " .. line .. "\r\n"
    end
  end
  local host = wrk.headers["Host"] or wrk.host
  head = "POST /v1/payments HTTP/1.1\r\nHost: " .. host .. "\r\nContent-Type: application/json\r\n" ..
    "Idempotency-Key: " .. prefix .. "-" .. thread_number .. "-"
  sequence = 0
  statuses = {}
  math.randomseed(os.time() * 1000 + thread_number)
end

function request()
  sequence = sequence + 1
  local user = math.random(0, users - 1)
  local body = '{"userId":"bench-user-' .. user .. '","amount":' .. (100 * math.random(1, 100)) .. "}"
  local authorization = authorizations ~= nil and authorizations[user + 1] or ""
  return head .. sequence .. "\r\n" .. authorization .. "Content-Length: " .. #body .. "\r\n\r\n" .. body
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(counts) do
    parts[#parts + 1] = string.format('"%d":%d', status, count)
  end
  local e = summary.errors
  io.write(string.format(
    'wrk-result {"requests":%d,"durationUs":%d,"statuses":{%s},' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},' ..
      '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d},"cpuS":%.3f}\n',
    summary.requests, summary.duration, table.concat(parts, ","),
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, os.clock()))
end
