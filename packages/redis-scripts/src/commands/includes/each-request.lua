--[[
  One request of a script that takes many (enqueue-operations-n, issue-coupon-n, reserve-order-n: the requests an
  intake read in one turn of its event loop, turn-batches.ts). A request whose part fails (a key of another type,
  a state an operator left incomplete, a write Redis refuses for want of memory) answers its own error, an error
  reply inside the call's answers, and the requests before and after it are answered as if it had been a call of
  its own; without this, one request's error would fail every request of its call, those before it having
  already written. What it wrote before its error stays, as it did when each request was its own call.
]]

-- run(...)'s answer, or its error as {err = "<CODE> <message>"} (the intake reads the code: OOM is a 503).
local function each_request(run, ...)
  local ok, answer = pcall(run, ...)
  if ok then
    return answer
  end
  -- redis.call's error is its reply's text, code first ("WRONGTYPE ...", "OOM ..."; a table holding it in
  -- releases after 7.0); Lua's own ("user_script:12: attempt to compare ...") has no code: ERR, as Redis gives it.
  if type(answer) == "table" and answer.err then
    return answer
  end
  local text = tostring(answer)
  if string.find(text, "^%u+ ") then
    return {err = text}
  end
  return {err = "ERR " .. text}
end
