--[[
Tollgate bucket script: all limits of all policies that apply to one request, checked
all-or-nothing in one atomic call. Redis TIME is the clock.

KEYS[i]   one key per (client, policy).
          Token bucket: a string holding one state per limit, joined by ",". A state is "<tat>"
          or "<tat>:<frac>": the theoretical arrival time (when the bucket is full again) in
          whole microseconds of Redis TIME, plus a remainder in 1/n µs (the generic cell rate
          algorithm).
          Sliding log: a sorted set of the admitted requests, scored by their time in µs; it
          never holds more entries than the largest count per window of the policy.

ARGV[1]   "" to read the clock from Redis TIME (always, in production); tests may pass a time in
          microseconds instead, to drive the clock. Keys still expire in Redis' real time, so
          then they are kept for at least a minute.
ARGV[2]   "" to decide and take; "dry" to decide and write nothing (Redis Cluster, when the keys
          of one request live in several slots: every slot is asked first, then each takes).
ARGV[3..] for each key, in order: enforcing (1, or 0 for shadow), algorithm (b: token bucket,
          l: sliding log), cost, m (number of limits), then m triples:
            token bucket  capacity, p, n: the limit refills n tokens every p µs; n and p are
                          coprime and capacity * p <= 2^52, so every number is an exact integer
            sliding log   count, window in µs, 1: at most count requests in any window

Reply     a flat array, four integers per limit, keys in order then limits in order:
          remaining (tokens, or requests left in the window), µs until one more is available
          (0 when full), µs until full, µs until this limit alone would admit the request
          (0 when it does); then the time of the decision in µs (refund.lua needs it).

Semantics the request passes when every limit of every enforcing key admits it. Then each
          enforcing key takes cost from each of its limits, and so does each shadow key whose
          own limits admit it. Otherwise nothing is written anywhere (the sliding log only drops
          entries that left every window). A key expires (PX) when all its limits are full
          again, so an idle client costs no memory.

Token bucket time is counted in units of 1/n µs so that a token is exactly p units; the "debt"
d is how far the arrival time lies ahead of now, and the bucket holds (capacity * p - d) / p.
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

-- The common case, one key with one token-bucket limit, in plain locals: the same steps as the
-- general path below (a single key takes when its limit admits, enforcing or shadow alike).
if #KEYS == 1 and ARGV[2] == '' and ARGV[4] == 'b' and ARGV[6] == '1' then
  local cost, cap, p, n = tonumber(ARGV[5]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
  local full = cap * p
  local d = 0
  local stored = redis.call('GET', KEYS[1])
  if stored then
    local tat, frac = tonumber(stored), 0
    if not tat then
      local t, f = string.match(stored, '^(%d+):(%d+)$')
      tat, frac = tonumber(t), tonumber(f)
    end
    if tat and tat >= now then
      d = (tat - now) * n + frac
      if d > full then d = full end
    end
  end
  local wanted = d + cost * p
  local after, retry = d, 0
  if wanted > full then
    retry = ceildiv(wanted - full, n)
  else
    after = wanted
    local whole = idiv(after, n)
    local frac = after - whole * n
    local value
    if frac == 0 then
      value = string.format('%.0f', now + whole)
    else
      value = string.format('%.0f:%.0f', now + whole, frac)
    end
    redis.call('SET', KEYS[1], value, 'PX', math.max(minTtl, ceildiv(ceildiv(after, n), 1000)))
  end
  local remaining = idiv(full - after, p)
  local nextIn = 0
  if after > 0 then nextIn = ceildiv(after - (full - (remaining + 1) * p), n) end
  return { remaining, nextIn, ceildiv(after, n), retry, now }
end

local dry = ARGV[2] == 'dry'

-- Phase 1: read every key and decide, writing nothing.
local buckets = {}
local admitAll = true
local a = 3
for i = 1, #KEYS do
  local enforcing = ARGV[a] == '1'
  local log = ARGV[a + 1] == 'l'
  local cost = tonumber(ARGV[a + 2])
  local m = tonumber(ARGV[a + 3])
  a = a + 4
  local limits, ok, longest = {}, true, 0
  if log then
    for j = 1, m do
      local window = tonumber(ARGV[a + 1])
      if window > longest then longest = window end
      limits[j] = { tonumber(ARGV[a]), window }
      a = a + 3
    end
    if not dry then redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - longest) end
    for j = 1, m do
      local l = limits[j]
      local count = redis.call('ZCOUNT', KEYS[i], '(' .. string.format('%.0f', now - l[2]), '+inf')
      l[3] = count
      l[4] = count + cost
      if l[4] > l[1] then ok = false end
    end
  else
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
  end
  buckets[i] = { enforcing, ok, limits, log, cost, longest }
  if enforcing and not ok then admitAll = false end
end

-- Phase 2: take from the buckets that pass, and answer for every limit.
if dry then admitAll = false end
local reply = {}
local function answer(remaining, nextIn, untilFull, retry)
  reply[#reply + 1] = remaining
  reply[#reply + 1] = nextIn
  reply[#reply + 1] = untilFull
  reply[#reply + 1] = retry
end

-- The score of the k-th entry (1-based, oldest first) of the log newer than since.
local function entry(key, since, k)
  local r = redis.call('ZRANGEBYSCORE', key, '(' .. string.format('%.0f', since), '+inf', 'WITHSCORES', 'LIMIT', k - 1, 1)
  return tonumber(r[2])
end

for i = 1, #KEYS do
  local b = buckets[i]
  local take = admitAll and b[2]
  if b[4] then
    local key, cost = KEYS[i], b[5]
    if take then
      local card = redis.call('ZCARD', key)
      for k = 1, cost do
        redis.call('ZADD', key, now, string.format('%.0f:%d', now, card + k))
      end
      redis.call('PEXPIRE', key, math.max(minTtl, ceildiv(b[6], 1000)))
    end
    for _, l in ipairs(b[3]) do
      local allowed, window, since = l[1], l[2], now - l[2]
      local after = l[3]
      if take then after = l[4] end
      local nextIn, untilFull, retry = 0, 0, 0
      if after > 0 then
        nextIn = entry(key, since, 1) + window - now
        local newest = redis.call('ZREVRANGEBYSCORE', key, '+inf', '(' .. string.format('%.0f', since), 'WITHSCORES', 'LIMIT', 0, 1)
        untilFull = tonumber(newest[2]) + window - now
      end
      if l[4] > allowed then
        retry = entry(key, since, l[4] - allowed) + window - now
      end
      answer(allowed - after, nextIn, untilFull, retry)
    end
  else
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
      answer(remaining, nextIn, untilFull, retry)
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
end
reply[#reply + 1] = now
return reply
