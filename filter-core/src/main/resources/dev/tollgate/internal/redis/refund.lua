--[[
Tollgate refund script: gives back what bucket.lua took for one request. Used only with Redis
Cluster, when the policies of one request live in several hash slots: each slot decides and
takes on its own, and if a later slot refuses, the slots that already took are refunded, so a
request refused by one policy keeps costing nothing under the others.

KEYS[i]   the keys bucket.lua took from, in one slot.
ARGV[1]   the time of that decision in µs (the last element of bucket.lua's reply).
ARGV[2..] for each key the same arguments bucket.lua got: enforcing, algorithm (b, l or c), cost,
          m, then m triples (capacity, p, n for a token bucket; count, window, 1 for a log), or for
          a calendar quota m groups of five (count and the boundaries b0..b3).

Reply     a one-element array: the number of keys refunded.

A token bucket's arrival time moves back by exactly cost tokens (cost * p / n µs, carried in
1/n µs; a remainder counted in another n is first rounded up to a whole µs, as bucket.lua reads
it); if that makes the bucket fuller than full, it is simply full. A log loses cost of the
entries added at that time (any of them: entries of one time are alike, and their members are
unique, so bucket.lua's next entries at that time never overwrite one). A calendar quota's count
goes down by cost in each limit whose stored window is the one that held that time. A lease (algorithm i)
is removed by its id. A key of another type,
or written for another number of limits, meanwhile, is left alone.
]]

local function idiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end

local at = tonumber(ARGV[1])
local a = 2
local refunded = 0
for i = 1, #KEYS do
  local log = ARGV[a + 1] == 'l'
  local cost = tonumber(ARGV[a + 2])
  local m = tonumber(ARGV[a + 3])
  a = a + 4
  if ARGV[a - 3] == 'c' then
    local stored = redis.pcall('GET', KEYS[i])
    local states, j = {}, 0
    if type(stored) == 'string' then
      for start, count in string.gmatch(stored, '(%d+):(%d+)') do
        j = j + 1
        if j > m then break end
        local b = a + 5 * (j - 1)
        local s, c = tonumber(start), tonumber(count)
        local w = tonumber(ARGV[b + 1])
        if at >= tonumber(ARGV[b + 2]) then w = tonumber(ARGV[b + 2]) end
        if at >= tonumber(ARGV[b + 3]) then w = tonumber(ARGV[b + 3]) end
        if s == w then
          c = c - cost
          if c < 0 then c = 0 end
        end
        states[j] = string.format('%.0f:%.0f', s, c)
      end
    end
    if j == m then
      redis.call('SET', KEYS[i], table.concat(states, ','), 'KEEPTTL')
      refunded = refunded + 1
    end
    a = a + 5 * m
  elseif ARGV[a - 3] == 'i' then
    local gone = redis.pcall('ZREM', KEYS[i], ARGV[a + 2])
    if gone == 1 then refunded = refunded + 1 end
    a = a + 3 * m
  elseif log then
    local t = string.format('%.0f', at)
    local added = redis.pcall('ZRANGEBYSCORE', KEYS[i], t, t, 'LIMIT', 0, cost)
    if type(added) == 'table' and not added.err and #added > 0 then
      redis.call('ZREM', KEYS[i], unpack(added))
      refunded = refunded + 1
    end
    a = a + 3 * m
  else
    local stored = redis.pcall('GET', KEYS[i])
    local states, j = {}, 0
    if type(stored) == 'string' then
      for tat, frac, unit in string.gmatch(stored, '(%d+):?(%d*):?(%d*)') do
        j = j + 1
        if j > m then break end
        local p, n = tonumber(ARGV[a + 3 * (j - 1) + 1]), tonumber(ARGV[a + 3 * (j - 1) + 2])
        local t, f, u = tonumber(tat), tonumber(frac) or 0, tonumber(unit)
        if f > 0 and u ~= n and not (u == nil and f < n) then
          t, f = t + 1, 0
        end
        local total = cost * p
        local whole = idiv(total, n)
        f = f - (total - whole * n)
        if f < 0 then
          f = f + n
          whole = whole + 1
        end
        t = t - whole
        if f == 0 then
          states[j] = string.format('%.0f', t)
        else
          states[j] = string.format('%.0f:%.0f:%.0f', t, f, n)
        end
      end
    end
    if j == m then
      redis.call('SET', KEYS[i], table.concat(states, ','), 'KEEPTTL')
      refunded = refunded + 1
    end
    a = a + 3 * m
  end
end
return { refunded }
