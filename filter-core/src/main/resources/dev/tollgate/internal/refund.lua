--[[
Tollgate refund script: gives back what bucket.lua took for one request. Used only with Redis
Cluster, when the policies of one request live in several hash slots: each slot decides and
takes on its own, and if a later slot refuses, the slots that already took are refunded, so a
request refused by one policy keeps costing nothing under the others.

KEYS[i]   the keys bucket.lua took from, in one slot.
ARGV[1]   the time of that decision in µs (the last element of bucket.lua's reply).
ARGV[2..] for each key the same arguments bucket.lua got: enforcing, algorithm (b or l), cost,
          m, then m triples (capacity, p, n for a token bucket; count, window, 1 for a log).

Reply     a one-element array: the number of keys refunded.

A token bucket's arrival time moves back by exactly cost tokens (cost * p / n µs, carried in
1/n µs); if that makes the bucket fuller than full, it is simply full. A log loses cost of the
entries added at that time.
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
  if log then
    local t = string.format('%.0f', at)
    local added = redis.call('ZRANGEBYSCORE', KEYS[i], t, t, 'LIMIT', 0, cost)
    if #added > 0 then
      redis.call('ZREM', KEYS[i], unpack(added))
      refunded = refunded + 1
    end
    a = a + 3 * m
  else
    local stored = redis.call('GET', KEYS[i])
    local states, j = {}, 0
    if stored then
      for tat, frac in string.gmatch(stored, '(%d+):?(%d*)') do
        j = j + 1
        local p, n = tonumber(ARGV[a + 3 * (j - 1) + 1]), tonumber(ARGV[a + 3 * (j - 1) + 2])
        local total = cost * p
        local whole = idiv(total, n)
        local f = (tonumber(frac) or 0) - (total - whole * n)
        if f < 0 then
          f = f + n
          whole = whole + 1
        end
        local t = tonumber(tat) - whole
        if f == 0 then
          states[j] = string.format('%.0f', t)
        else
          states[j] = string.format('%.0f:%.0f', t, f)
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
