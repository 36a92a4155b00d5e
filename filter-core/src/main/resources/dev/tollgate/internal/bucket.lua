--[[
Tollgate bucket script: token buckets kept as theoretical arrival times (GCRA), several limits
per bucket, several buckets per call, checked all-or-nothing. Redis TIME is the clock.

KEYS[i]   one bucket per (client, policy). Its value holds one state per limit, joined by ",";
          a state is "<tat>" or "<tat>:<frac>": the theoretical arrival time (when the bucket
          is full again) in whole microseconds of Redis TIME, plus a remainder in 1/n µs.

ARGV[1]   "" to read the clock from Redis TIME (always, in production); tests may pass a time in
          microseconds instead, to drive the clock. Keys still expire in Redis' real time, so
          then they are kept for at least a minute.
ARGV[2..] for each key, in order: enforcing (1, or 0 for shadow), cost, m (number of limits),
          then m triples: capacity, p, n. The limit refills n tokens every p µs; n and p are
          coprime and capacity * p <= 2^52, so every number below is an exact integer.

Reply     a flat array, four integers per limit, keys in order then limits in order:
          remaining tokens, µs until the next token (0 when full), µs until full,
          µs until this limit alone would admit the request (0 when it does).

Semantics the request passes when every limit of every enforcing key admits it. Then each
          enforcing key takes cost tokens from each of its limits, and so does each shadow key
          whose own limits admit it. Otherwise nothing is written anywhere. A written key
          expires (PX) when all its limits are full again, so an idle client costs no memory.

Time is counted in units of 1/n µs so that a token is exactly p units; the "debt" d is how far
the arrival time lies ahead of now, and the bucket holds (capacity * p - d) / p tokens.
]]

local function idiv(a, b)
  -- floor(a / b) for non-negative integers, exact even where a / b rounds up to a whole number
  local q = math.floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end

local function ceildiv(a, b)
  return idiv(a + b - 1, b)
end

local now
local minTtl = 1
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
  minTtl = 60000
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local buckets = {}
local admitAll = true
local a = 2
for i = 1, #KEYS do
  local enforcing = ARGV[a] == '1'
  local cost = tonumber(ARGV[a + 1])
  local m = tonumber(ARGV[a + 2])
  a = a + 3
  local stored = redis.call('GET', KEYS[i])
  local tats, fracs, count = {}, {}, 0
  if stored then
    for tat, frac in string.gmatch(stored, '(%d+):?(%d*)') do
      count = count + 1
      tats[count] = tonumber(tat)
      fracs[count] = tonumber(frac) or 0
    end
    if count ~= m then tats = {} end -- written for another set of limits: start full
  end
  local limits, ok = {}, true
  for j = 1, m do
    local cap, p, n = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    a = a + 3
    local full = cap * p
    local d = 0
    if tats[j] and tats[j] >= now then
      d = (tats[j] - now) * n + fracs[j]
      if d > full then d = full end
    end
    local wanted = d + cost * p
    if wanted > full then ok = false end
    limits[j] = { cap, p, n, d, wanted }
  end
  buckets[i] = { enforcing, ok, limits }
  if enforcing and not ok then admitAll = false end
end

local reply = {}
for i = 1, #KEYS do
  local b = buckets[i]
  local take = admitAll and b[2]
  local states, ttl = {}, 0
  for j, l in ipairs(b[3]) do
    local cap, p, n, d, wanted = l[1], l[2], l[3], l[4], l[5]
    local full = cap * p
    local after = d
    if take then after = wanted end
    local remaining = idiv(full - after, p)
    local nextIn = 0
    if after > 0 then nextIn = ceildiv(after - (full - (remaining + 1) * p), n) end
    local retry = 0
    if wanted > full then retry = ceildiv(wanted - full, n) end
    local untilFull = ceildiv(after, n)
    reply[#reply + 1] = remaining
    reply[#reply + 1] = nextIn
    reply[#reply + 1] = untilFull
    reply[#reply + 1] = retry
    if take then
      local whole = idiv(after, n)
      local frac = after - whole * n
      if frac == 0 then
        states[j] = string.format('%.0f', now + whole)
      else
        states[j] = string.format('%.0f:%.0f', now + whole, frac)
      end
      if untilFull > ttl then ttl = untilFull end
    end
  end
  if take then
    redis.call('SET', KEYS[i], table.concat(states, ','), 'PX', math.max(minTtl, ceildiv(ttl, 1000)))
  end
end
return reply
