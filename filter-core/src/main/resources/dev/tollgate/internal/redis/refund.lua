--[[
Tollgate refund script: gives back what bucket.lua took for one request. Used only with Redis
Cluster, when the policies of one request live in several hash slots: each slot decides and
takes on its own, and if a later slot refuses, the slots that already took are refunded, so a
request refused by one policy keeps costing nothing under the others.

KEYS[i]   the keys bucket.lua took from, in one slot.
ARGV[1]   the time of that decision in µs (the last element of bucket.lua's reply).
ARGV[2..] for each key the same arguments bucket.lua got: enforcing, algorithm (b, l, c, i or
          g), cost, m, then m triples (capacity, p, n for a token bucket; count, window, 1 for a
          log; slots, lease, id for a lease; capacity, 0, 0 for a gate), or for a calendar quota m
          groups of five (count and the boundaries b0..b3).

Reply     a one-element array: the number of keys refunded.

Every state that the take charged gives back what it took, and every state is written back as it
was read but for that: tags, window ends and the states of other limits kept. A token bucket's
states with tags (its own limits' and the foreign ones: bucket.lua charges every state of other
limits it keeps) each move their arrival time back by exactly cost tokens in their own terms
(cost * p / n µs of the limit their tag names, carried in 1/n µs; a remainder counted in another
n is first rounded up to a whole µs, as bucket.lua reads it); if that makes a bucket fuller than
full, it is simply full. A foreign state that the take found owing its whole time to fill was
charged less than cost (bucket.lua charges up to the time to fill), and gets cost back all the
same: a refund is rare (a request refused in another Cluster slot), and it errs by at most one
request's cost. A state without a tag is left as it is, but for the one state of a bucket of one
limit written before tags, which is that limit's. A log loses cost of the entries added at that
time (any of them: entries of one time are alike, and their members are unique, so bucket.lua's
next entries at that time never overwrite one). A calendar quota's count goes down by cost in the
first not yet claimed state of each limit's window that held that time (start and end; a state
without an end by its start), and in every other state whose window had not ended then (bucket.lua
charged them). A lease (algorithm i) is removed by its id. A pause gate (algorithm g) took
nothing, and is left alone: its value is the end of a pause, which a token bucket's reading would
turn into no number, an open gate (issue 28). A key where nothing is given back, or of another
type, is left alone. The caller sends only keys that took: a shadow key whose own limits refused
took nothing, and is not sent.
]]

local function idiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end

-- number() and untag() come before this script: tags.lua.

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
            claimed[s] = true
            break
          end
        end
      end
      for s = 1, k do
        -- its own limits' states, and the states of other windows bucket.lua charged
        if claimed[s] or (ends[s] and ends[s] > at) then
          changed = true
          counts[s] = counts[s] - cost
          if counts[s] < 0 then counts[s] = 0 end
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
  elseif ARGV[a - 3] == 'g' then
    a = a + 3 * m -- a gate takes nothing: nothing to give back
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
      local changed = false
      for c = 1, k do
        local _, p, n = untag(tags[c])
        if not p and k == 1 and m == 1 and tags[c] == '' then
          -- the one state of a bucket of one limit written before tags: that limit's
          p, n = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
        end
        if p then
          changed = true
          local t, f, u = tats[c], fracs[c], units[c]
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
          -- fuller than full is full (a foreign state's cost may exceed its time to fill)
          if t < at then t, f = at, 0 end
          if f == 0 then
            states[c] = string.format('%.0f', t) .. tags[c]
          else
            states[c] = string.format('%.0f:%.0f:%.0f', t, f, n) .. tags[c]
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
