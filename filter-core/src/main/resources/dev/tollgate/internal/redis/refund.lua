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

Each limit gives back to its own state, found as bucket.lua finds it ("Several limits",
"Calendar quotas"), and every state is written back as it was read but for that: tags, window
ends and the states of other limits kept. A token bucket's own state is the first not yet used
with the limit's tag, or the j-th of untagged states as many as the limits; its arrival time
moves back by exactly cost tokens (cost * p / n µs, carried in 1/n µs; a remainder counted in
another n is first rounded up to a whole µs, as bucket.lua reads it); if that makes the bucket
fuller than full, it is simply full. A log loses cost of the entries added at that time (any of
them: entries of one time are alike, and their members are unique, so bucket.lua's next entries
at that time never overwrite one). A calendar quota's count goes down by cost in the first not
yet claimed state of the window that held that time (start and end; a state without an end by
its start). A lease (algorithm i) is removed by its id. A limit that finds no state of its own
(the key was written meanwhile under other limits) gives back nothing; a key where no limit
finds one, or of another type, is left alone.
]]

local function idiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end

-- A limit's tag, as bucket.lua writes it: its time to fill full in 1/n µs, and n when not 1, in
-- base 26 ('a' for 0).
local function letters(x)
  local s = ''
  repeat
    local q = idiv(x, 26)
    s = string.char(97 + x - q * 26) .. s
    x = q
  until x == 0
  return s
end

local function tag(full, n)
  if n == 1 then return '~' .. letters(full) end
  return '~' .. letters(full) .. '.' .. letters(n)
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
    if type(stored) == 'string' then
      local starts, counts, ends, k = {}, {}, {}, 0
      for start, count, finish in string.gmatch(stored, '(%d+):(%d+):?(%d*)') do
        k = k + 1
        starts[k], counts[k], ends[k] = tonumber(start), tonumber(count), tonumber(finish)
      end
      local claimed, changed = {}, false
      for j = 1, m do
        local b = a + 5 * (j - 1)
        local w, e = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2])
        if at >= e then w, e = e, tonumber(ARGV[b + 3]) end
        if at >= e then w, e = e, tonumber(ARGV[b + 4]) end
        for s = 1, k do
          if not claimed[s] and starts[s] == w and (not ends[s] or ends[s] == e) then
            claimed[s], changed = true, true
            counts[s] = counts[s] - cost
            if counts[s] < 0 then counts[s] = 0 end
            break
          end
        end
      end
      if changed then
        local states = {}
        for s = 1, k do
          if ends[s] then
            states[s] = string.format('%.0f:%.0f:%.0f', starts[s], counts[s], ends[s])
          else
            states[s] = string.format('%.0f:%.0f', starts[s], counts[s])
          end
        end
        redis.call('SET', KEYS[i], table.concat(states, ','), 'KEEPTTL')
        refunded = refunded + 1
      end
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
    if type(stored) == 'string' then
      -- the states as bucket.lua reads them, each kept as written unless its limit is refunded
      local states, tats, fracs, units, tags, k = {}, {}, {}, {}, {}, 0
      for from, tat, frac, unit, tag, to in string.gmatch(stored, '()(%d+):?(%d*):?(%d*)(~?[%a%.]*)()') do
        k = k + 1
        states[k] = string.sub(stored, from, to - 1)
        tats[k], fracs[k], units[k], tags[k] = tonumber(tat), tonumber(frac) or 0, tonumber(unit), tag
      end
      local tagged = string.find(stored, '~', 1, true)
      local claimed, changed = {}, false
      for j = 1, m do
        local cap, p, n = tonumber(ARGV[a + 3 * (j - 1)]), tonumber(ARGV[a + 3 * (j - 1) + 1]), tonumber(ARGV[a + 3 * (j - 1) + 2])
        local s = nil
        if tagged then
          local own = tag(cap * p, n)
          for c = 1, k do
            if not claimed[c] and tags[c] == own then
              s = c
              break
            end
          end
        elseif k == m then
          s = j
        end
        if s then
          claimed[s], changed = true, true
          local t, f, u = tats[s], fracs[s], units[s]
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
            states[s] = string.format('%.0f', t) .. tags[s]
          else
            states[s] = string.format('%.0f:%.0f:%.0f', t, f, n) .. tags[s]
          end
        end
      end
      if changed then
        redis.call('SET', KEYS[i], table.concat(states, ','), 'KEEPTTL')
        refunded = refunded + 1
      end
    end
    a = a + 3 * m
  end
end
return { refunded }
