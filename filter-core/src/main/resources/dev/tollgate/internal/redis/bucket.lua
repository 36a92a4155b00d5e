--[[
Tollgate bucket script: all limits of all policies that apply to one request, checked
all-or-nothing in one atomic call. Redis TIME is the clock.

KEYS[i]   one key per (client, policy, algorithm): a sliding log's key ends with ":log", a token
          bucket's does not (BucketKeys), so a policy that switches algorithm never meets a key of
          the other type.
          Token bucket: a string of states joined by ",": one per limit of the call that wrote
          it, then the states of other configurations' limits it kept (at most four; see "Token
          bucket states" below). A state is "<tat><tag>" or "<tat>:<frac>:<n><tag>": the
          theoretical arrival time (when the bucket is full again) in whole microseconds of Redis
          TIME, plus a remainder in 1/n µs and the n it is counted in (the generic cell rate
          algorithm), then the tag of the limit that owns it, "~<capacity>.<p>.<n>" (the limit
          refills n tokens every p µs), each number in base 26 in letters ('a' for 0, 'ba' for
          26), so no digit: the pattern every build reads states with, '(%d+):?(%d*):?(%d*)',
          still counts them right. Builds before tags wrote "<tat>", "<tat>:<frac>:<n>" and
          "<tat>:<frac>" (no n) without a tag.
          Sliding log: a sorted set of the admitted requests, scored by their time in µs, members
          "<time>:<sequence>", unique within the set; it never holds more entries than the largest
          count per window of the policy.
          Calendar quota (key ends with ":cal"): a string holding "<start>:<count>:<end>" per
          limit, joined by ",": the window in µs (its end says which window it is to a node of
          another zone or unit) and the cost taken in it; earlier versions wrote
          "<start>:<count>", and read these with '(%d+):(%d+)', which counts them right. It
          expires (PX) at the end of the latest of its windows.
          Concurrency lease (algorithm i, in flight): a sorted set of the live leases of one client under one
          policy, member the lease id, score its expiry in µs. Its key ends with ":c".
          Pause gate (algorithm g): a string, the time in µs before which the gate admits nothing,
          written by pause.lua (which never moves it earlier); it expires (PX) at that time. Its
          key ends with ":p".

ARGV[1]   "" to read the clock from Redis TIME (always, in production); tests may pass a time in
          microseconds instead, to drive the clock. Keys still expire in Redis' real time, so
          then they are kept for at least a minute.
ARGV[2]   "" to decide and take; "dry" to decide and take nothing (Redis Cluster, when the keys
          of one request live in several slots: every slot is asked first, then each takes).
ARGV[3..] for each key, in order: enforcing (1, or 0 for shadow), algorithm (b: token bucket,
          l: sliding log, c: calendar quota, i: concurrency lease), cost, m (number of limits), then per limit:
            token bucket  capacity, p, n: the limit refills n tokens every p µs; n and p are
                          coprime and capacity * p <= 2^52, so every number is an exact integer
            sliding log   count, window in µs, 1: at most count requests in any window
            calendar      count, b0, b1, b2, b3 (five numbers): at most count per window; the
                          windows [b0, b1), [b1, b2), [b2, b3) in µs are the previous, current and
                          next calendar windows as the calling node's clock sees them (only Java
                          knows time zones). The script counts in the one that holds its now, so
                          a node's clock may be off by a window either way. Beyond that (now
                          before b0 or from b3 on, for any limit of any key) the call is refused
                          whole: nothing is taken or written, and the reply is { -1, now }, for
                          the caller to ask again with windows around that now (issue 28: a node
                          hours behind sent windows that had ended, and an hourly quota admitted
                          everything). Every window a count is kept in is thus one that holds
                          Redis' time, whatever the nodes' clocks say.
            lease         slots, lease in µs, lease id (cost 1, m 1): at most slots live leases;
                          taking adds the lease id, expiring one lease after now
            gate          capacity, 0, 0 (cost 1, m 1): admits unless its pause lasts beyond now;
                          takes nothing; the capacity only fills its answer

Short form, for the common case (one key, one token-bucket limit of n = 1): fewer than five
          arguments, which the general form above (at least nine) never is.
ARGV[1]   full = capacity * p; ARGV[2] want = cost * p, at most full (else the general form)
ARGV[3]   the limit's tag, "~<capacity>.<p>.b" in letters as above, made by the caller once
ARGV[4]   absent to read the clock from Redis TIME (always, in production), or a time in µs
          (tests), as ARGV[1] above. Never dry: a dry call takes the general form.
Reply     admitted: { after, now }; refused: { debt, retry, now }: the µs until the bucket is full
          after this call (after, or debt when nothing was taken), the µs until this limit alone
          would admit the request, the time of the decision. The caller computes remaining
          (floor((full - after) / p)) and the next token (after - full + (remaining + 1) * p µs, 0
          when full) as the general path does. The stored state and its expiry are the general
          path's, so nodes of two versions share keys.

Reply     (general form, calendar windows refused: see ARGV above) { -1, now }: two integers,
          where the answer below has at least five.
Reply     (general form) a flat array, four integers per limit, keys in order then limits in order:
          remaining (tokens, or requests left in the window), µs until one more is available
          (0 when full), µs until full, µs until this limit alone would admit the request
          (0 when it does); then the time of the decision in µs (refund.lua needs it).
          For a lease: slots free, µs until the oldest live lease expires, µs until the newest
          does (both 0 when none is held), and when refused the µs until one more fits: until the
          (held - slots + 1)-th oldest expires (the oldest, unless a reload lowered the slots).
          For a gate: the capacity given when open, else 0, then three times the µs left of its
          pause (0 when open).

Semantics the request passes when every limit of every enforcing key admits it. Then each
          enforcing key takes cost from each of its limits, and so does each shadow key whose
          own limits admit it. Otherwise nothing is taken from anything. A token bucket's key
          expires (PX) when all its limits are full again, a log's one longest window after its
          newest entry, so an idle client costs no memory.

Normalised whatever the decision, also when dry: what a key holds is first brought within
          what the current limits can mean. None of this takes anything, so all-or-nothing holds;
          it must be written even on a refusal (and across slots, where a refusal elsewhere ends
          the call after the dry run), or a refusal's retry time would be a promise that the next
          read breaks.
          - A key of the wrong type (a sorted set where a bucket is read, or the reverse: left by
            versions whose keys did not name the algorithm) is absent, and deleted.
          - A bucket written under other limits is never read as full (see "Token bucket states"
            below). A read that caps nothing (next point) writes nothing, whatever it read: it
            is overwritten when the call takes, and otherwise stays as it was, so that a refused
            read changes nothing a later read could tell (the deny cache skips refused reads; see
            DenyCache), and a later read under the same limits reads what this one read.
          - A limit's debt beyond its time to fill (the burst shrank, or the rate rose, or the
            limit is new to the key and read the largest debt there) is capped, and the capped
            state stored as its own, with the other limits' states kept as read (not charged: the
            read took nothing): the client is owed nothing beyond an empty bucket of this limit
            from this decision on. Without this, each refusal would announce the time to one
            token while the stored arrival time stayed far ahead, and the client that obeyed
            would be refused again (for up to a day at 1000/day burst 10). The cap forgives only
            this limit's own state: a node of the other configuration still reads its own.
          - A remainder counted in another n (the rate changed) is read rounded up to the next
            whole µs, never in the client's favour; it is stored so when the key is written.
          - A log keeps only the newest largest-count entries (more can follow a reload that
            lowered a count; the surplus could not admit anything until it left its window
            anyway). It drops the entries that left the longest window only when it takes: a
            refused read must not, or a reload that lengthens the window would count them on a
            node that skipped the read (its deny cache answered) and not on one that made it.
          - A lease bucket (algorithm i) drops its expired leases on every call, taking or not (the deny cache
            never answers for a request with a lease, so no node skips a read). Its key expires
            with its last lease. It never trims live leases: after a reload that lowered the
            slots, it admits again once enough are given back (release.lua) or expired.

Token bucket states, and nodes of two configurations (issue 28): during a rolling deploy, or a
          reload that has not reached every node, nodes with other limits share keys. Every state
          carries the tag of the limit that owns it. Which state limit j (capacity, p, n; full =
          capacity * p in 1/n µs) reads:
          - the first not yet read whose tag is j's own (limits with equal tags take them in
            order): its debt as always (debt() below: a remainder in another n rounded up,
            beyond the time to fill capped and the cap stored);
          - a key of exactly one state without a tag (a bucket of one limit written before tags),
            read by one limit: that limit's own, as that build read it;
          - otherwise (no state of its own): the largest debt of all the states, each read as the
            µs until its arrival time (a partial µs rounded up), times n, capped at full. A limit
            new to the key owes what the key owes most; no change of limits, order, rate or burst
            makes a fresh bucket. States without tags count for this alone.
          The states whose tags name limits not among the call's are foreign: a node of another
          configuration owns them. They are kept, and a call that takes cost c charges each c of
          its own tokens (c * p_f in 1/n_f µs, from its tag), up to its own time to fill: every
          limit of every configuration in force counts every admission, and each node admits by
          its own limits. So while two configurations are in force, a client alternating between
          them is admitted at most what the more generous admits, plus about one burst of the
          other (5/s burst 10 next to 8/s burst 6: at most 10 + 6 + 8 per second, where a stored
          cap used to forgive the debt at every switch and admit about 80 per second). A refused
          read charges nothing. When the key is written, a foreign state that is full is
          dropped, and of the rest at most four are kept, those owing most in whole µs (of
          equals, the first); states without tags are dropped. The key expires when the last of
          its states, its own and the foreign ones, is full. The short form's straight path
          serves a key that holds nothing or exactly one state with its own tag; anything else
          goes on to the one-key path, which reads and writes as the general path does.
Calendar quotas, and nodes of two configurations: limit j counts in its window [s, f) (as
          chosen above). A stored string all of whose windows ended is absent, as once it
          expires. Limit j counts the first not yet claimed state of its very window (start s
          and end f; a state of an earlier version, without an end, by its start); a limit that
          finds none counts the largest count among the states whose windows overlap [s, f)
          (without an end: whose start is not after now), leaving out those other limits
          claimed unless the string holds fewer states than there are limits (then a limit is
          new): in a quota of a day and an hour, the hour's next window lies within the day,
          whose count is the day's own. A zone or unit change thus gives no fresh quota. A call
          that takes keeps the states no limit claimed whose windows have not ended (a node of
          another zone or unit counts in them), each charged the cost; states without an end,
          and windows that ended, are dropped. A count of other windows holds until the latest
          window stored ends; a limit's own count until its window ends, or, when states of
          other windows that no limit claimed outlast it and would refuse the request in the
          next window, until the last of those ends: a refused read writes nothing, and its
          reset and retry say that end (for states without ends, the window's own).

Token bucket time is counted in units of 1/n µs so that a token is exactly p units; the "debt"
d is how far the arrival time lies ahead of now, and the bucket holds (capacity * p - d) / p.
]]

-- The common case first (issue 15): one key with one token-bucket limit whose tokens come one per
-- p µs (n = 1: every rate of a whole number of µs per token, 10/s, 100/min...), sent in a short
-- form of its own: ARGV[1] full = capacity * p, ARGV[2] want = cost * p, ARGV[3] the limit's tag
-- (the caller's, made once per limit), ARGV[4] the test's time or nothing. The caller computed
-- what it could; the script keeps what needs the stored state and Redis' clock. The same steps
-- as the general path below, written for what a call costs in Redis' Lua (docs/benchmarks.md): no
-- closure (each local function is a new one per call), the state and its expiry printed with
-- '%d' (an integer print; '%.0f' and a number given to redis.call both print a double, which
-- costs more), no tonumber where arithmetic coerces. Its straight path serves a key that is
-- absent (or of another type) or holds exactly one state, its own: "<tat>" and this limit's tag
-- (with n = 1 a state written here has no remainder); a string compare of the value's end and a
-- tonumber of the rest tell, at the cost of the one pattern test before tags (docs/benchmarks.md). Anything else (states of other limits, several states, a state without a tag) is read as
-- "Token bucket states, and nodes of two configurations" above says, by the one-key path further
-- down, with this call's arguments in the general form's places.
-- Its writes depend on Redis TIME: replicas must get the writes, not the script run again at their
-- own time. Redis 5 and 6 replicate a script whole where lua-replicate-commands is no, and then
-- refuse any write after TIME unless the script asks first, before writing; Redis 7 always
-- replicates the writes, and this call does nothing there.
redis.replicate_commands()
local argv = ARGV
local shortNow, shortTtl -- set when the short form goes on to the one-key path
if #argv < 5 then
  local key, now, minTtl = KEYS[1], argv[4], 1
  if now then
    now, minTtl = now + 0, 60000
  else
    local t = redis.call('TIME')
    now = t[1] * 1000000 + t[2]
  end
  -- what the call owes after taking from a full bucket; want <= full (the caller sends this form
  -- only then), so with no state the call takes, and full need not be read
  local after, retry, straight = argv[2] + 0, 0, true
  local v = redis.pcall('GET', key)
  if v then
    if type(v) == 'table' then
      redis.call('DEL', key) -- a key of another type is absent, and deleted
    else
      -- its own state alone: the value ends with this limit's tag, and what comes before is the
      -- arrival time, a number (tonumber: anything else, such as "<tat>:<frac>:<n>" or states
      -- before it, is no number, and goes on)
      local tag = argv[3]
      local n = #v - #tag
      local tat = string.sub(v, n + 1) == tag and tonumber(string.sub(v, 1, n))
      if tat then
        local full, d, capped = argv[1] + 0, 0, false
        if tat >= now then
          d = tat - now
          if d > full then d, capped = full, true end
        end
        local wanted = d + after
        if wanted <= full then
          after = wanted
        else
          retry = wanted - full
          if not capped then return { d, retry, now } end
          after = d -- refused, and the capped debt written
        end
      else
        straight = false
      end
    end
  end
  if straight then
    -- PX: after µs rounded up to whole ms. x % 1000 is x - floor(x / 1000) * 1000 in the VM, no
    -- call, and exact: for an integer x < 2^53, x / 1000 never rounds up to the next integer
    -- (ScriptFormsProperties)
    local ms = after + 999
    ms = (ms - ms % 1000) / 1000
    if ms < minTtl then ms = minTtl end
    redis.call('SET', key, string.format('%d%s', now + after, argv[3]), 'PX', string.format('%d', ms))
    if retry > 0 then return { after, retry, now } end
    return { after, now }
  end
  shortNow, shortTtl = now, minTtl
end

local function idiv(a, b)
  -- floor(a / b) for non-negative integers, exact even where a / b rounds up to a whole number
  local q = math.floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end

local function ceildiv(a, b)
  return idiv(a + b - 1, b)
end

-- A whole number 0 <= x < 2^53 in base 26, 'a' for 0: no digit, so the patterns that read states
-- (here and in earlier versions: '(%d+):?(%d*):?(%d*)') pass over it.
local function letters(x)
  local s = ''
  repeat
    local q = idiv(x, 26)
    s = string.char(97 + x - q * 26) .. s
    x = q
  until x == 0
  return s
end

-- The tag of a token-bucket limit that refills n tokens every p µs up to capacity: it names the
-- limit that wrote a state, and tells a node of other limits how to charge that state.
local function tag(capacity, p, n)
  return '~' .. letters(capacity) .. '.' .. letters(p) .. '.' .. letters(n)
end

-- number() and untag(), which read a tag back, come before this script: tags.lua.

local A = ARGV -- the general form's arguments; the short form's, in their places, on its way on
if shortNow then
  local cap, p = untag(argv[3])
  A = { '', '', '1', 'b', idiv(argv[2] + 0, p), '1', cap, p, 1 }
end

local now
local minTtl = 1
if shortNow then
  now, minTtl = shortNow, shortTtl
elseif A[1] ~= '' then
  now = tonumber(A[1])
  minTtl = 60000
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- A token bucket's stored string, or nil when absent; a key of another type is deleted.
local function getBucket(key)
  local v = redis.pcall('GET', key)
  if type(v) == 'table' and v.err then
    redis.call('DEL', key)
    return nil
  end
  return v or nil
end

-- The debt of one limit in 1/n µs, or full + 1 when it exceeds the time to fill (then the caller
-- caps it). tat, frac and unit as stored (unit nil for an earlier version's "<tat>:<frac>").
local function debt(tat, frac, unit, n, full)
  if not tat then return 0 end
  if frac > 0 and unit ~= n and not (unit == nil and frac < n) then
    tat, frac = tat + 1, 0
  end
  if tat < now then return 0 end
  -- compared before multiplying: after a rate change (tat - now) * n may exceed 2^53
  if tat - now > idiv(full, n) then return full + 1 end
  local d = (tat - now) * n + frac
  if d > full then return full + 1 end
  return d
end

-- The stored state of one limit that owes 'after' at now.
local function state(after, n)
  local whole = idiv(after, n)
  local frac = after - whole * n
  if frac == 0 then
    return string.format('%.0f', now + whole)
  end
  return string.format('%.0f:%.0f:%.0f', now + whole, frac, n)
end

-- Reads a token bucket's stored string for its m limits (fulls[j] = capacity * p in 1/ns[j] µs,
-- tags[j]) by the rule of "Token bucket states" above. Returns each limit's debt (full + 1 beyond
-- its time to fill: the caller caps it), and the foreign states to keep, each { debt, p, n, full,
-- tag, µs until full }: the states of limits not this call's that are not full, at most four,
-- those owing most (of equals, the first).
local function readBucket(stored, m, fulls, ns, tags)
  local d, foreign = {}, {}
  if not stored then
    for j = 1, m do d[j] = 0 end
    return d, foreign
  end
  local tats, fracs, units, gs, k = {}, {}, {}, {}, 0
  for t, f, u, g in string.gmatch(stored, '(%d+):?(%d*):?(%d*)(~?[%a%.]*)') do
    k = k + 1
    tats[k], fracs[k], units[k], gs[k] = tonumber(t), tonumber(f) or 0, tonumber(u), g
  end
  local used, latest = {}, nil
  for j = 1, m do
    local s = nil
    for i = 1, k do
      if not used[i] and gs[i] == tags[j] then
        s = i
        break
      end
    end
    -- one state without a tag, as every earlier build wrote a bucket of one limit, and one limit
    if not s and k == 1 and m == 1 and gs[1] == '' then s = 1 end
    if s then
      used[s] = true
      d[j] = debt(tats[s], fracs[s], units[s], ns[j], fulls[j])
    else
      if not latest then
        latest = 0
        for i = 1, k do
          local t = tats[i]
          if fracs[i] > 0 then t = t + 1 end
          if t > latest then latest = t end
        end
      end
      d[j] = debt(latest, 0, nil, ns[j], fulls[j])
    end
  end
  for i = 1, k do
    local mine = used[i] or gs[i] == ''
    for j = 1, m do
      if gs[i] == tags[j] then mine = true end
    end
    local cap, p, n = nil, nil, nil
    if not mine then cap, p, n = untag(gs[i]) end
    if cap then
      local full = cap * p
      local df = debt(tats[i], fracs[i], units[i], n, full)
      if df > full then df = full end -- only after Redis' clock went back
      if df > 0 then foreign[#foreign + 1] = { df, p, n, full, gs[i], ceildiv(df, n) } end
    end
  end
  while #foreign > 4 do
    local least = #foreign
    for f = #foreign - 1, 1, -1 do
      if foreign[f][6] < foreign[least][6] then least = f end
    end
    table.remove(foreign, least)
  end
  return d, foreign
end

-- Writes a token bucket: its m own states (owing afters[j] in 1/ns[j] µs, each with its tag),
-- then its foreign states, each charged 'charge' tokens in its own terms (0 on a refused read),
-- at most up to its time to fill; it expires when the last of them is full.
local function writeBucket(key, m, afters, ns, tags, foreign, charge)
  local states, ttl = {}, 0
  for j = 1, m do
    states[j] = state(afters[j], ns[j]) .. tags[j]
    local u = ceildiv(afters[j], ns[j])
    if u > ttl then ttl = u end
  end
  for f = 1, #foreign do
    local s = foreign[f]
    local df = s[4]
    -- compared before multiplying: charge * p may exceed 2^53
    if charge <= idiv(s[4] - s[1], s[2]) then df = s[1] + charge * s[2] end
    states[m + f] = state(df, s[3]) .. s[5]
    local u = ceildiv(df, s[3])
    if u > ttl then ttl = u end
  end
  redis.call('SET', key, table.concat(states, ','), 'PX', math.max(minTtl, ceildiv(ttl, 1000)))
end

-- One key with one token-bucket limit (of another n, or the short form's on its way on), in
-- plain locals: the same steps as the general path below (a single key takes when its limit
-- admits, enforcing or shadow alike).
if #KEYS == 1 and A[2] == '' and A[4] == 'b' and A[6] == '1' then
  local cost, cap, p, n = tonumber(A[5]), tonumber(A[7]), tonumber(A[8]), tonumber(A[9])
  local full = cap * p
  local tags = { argv[3] }
  if not shortNow then tags[1] = tag(cap, p, n) end
  local ds, foreign = readBucket(getBucket(KEYS[1]), 1, { full }, { n }, tags)
  local d = ds[1]
  local capped = d > full
  if capped then d = full end
  local wanted = d + cost * p
  local take = wanted <= full
  local after, retry = d, 0
  if take then after = wanted else retry = ceildiv(wanted - full, n) end
  if take then
    writeBucket(KEYS[1], 1, { after }, { n }, tags, foreign, cost)
  elseif capped then
    writeBucket(KEYS[1], 1, { after }, { n }, tags, foreign, 0)
  end
  if shortNow then
    -- the short form's reply (n = 1: after and the debt are whole µs)
    if retry > 0 then return { after, retry, now } end
    return { after, now }
  end
  local remaining = idiv(full - after, p)
  local nextIn = 0
  if after > 0 then nextIn = ceildiv(after - (full - (remaining + 1) * p), n) end
  return { remaining, nextIn, ceildiv(after, n), retry, now }
end

-- Calendar windows that hold no window of now (see ARGV): refused before anything is read or written.
do
  local b = 3
  for _ = 1, #KEYS do
    local m = tonumber(ARGV[b + 3])
    if ARGV[b + 1] == 'c' then
      b = b + 4
      for _ = 1, m do
        if now < tonumber(ARGV[b + 1]) or now >= tonumber(ARGV[b + 4]) then return { -1, now } end
        b = b + 5
      end
    else
      b = b + 4 + 3 * m
    end
  end
end

local dry = ARGV[2] == 'dry'

-- Phase 1: read and normalise every key, and decide, taking nothing.
local buckets = {}
local admitAll = true
local a = 3
for i = 1, #KEYS do
  local enforcing = ARGV[a] == '1'
  local log = ARGV[a + 1] == 'l'
  local lease = ARGV[a + 1] == 'i'
  local gate = ARGV[a + 1] == 'g'
  local calendar = ARGV[a + 1] == 'c'
  local cost = tonumber(ARGV[a + 2])
  local m = tonumber(ARGV[a + 3])
  a = a + 4
  local limits, ok, longest, most, capped, held, tags, foreign = {}, true, 0, 0, false, 0, nil, nil
  if gate then
    -- a pause of another type is absent (and deleted); a pause that ended is absent
    local untilMicros = redis.pcall('GET', KEYS[i])
    if type(untilMicros) == 'table' and untilMicros.err then
      redis.call('DEL', KEYS[i])
      untilMicros = nil
    end
    untilMicros = tonumber(untilMicros) or 0
    held = 0
    if untilMicros > now then held = untilMicros - now end
    ok = held == 0
    limits[1] = { tonumber(ARGV[a]) }
    a = a + 3
  elseif lease then
    local slots, span, id = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), ARGV[a + 2]
    a = a + 3
    held = redis.pcall('ZCARD', KEYS[i])
    if type(held) == 'table' and held.err then
      redis.call('DEL', KEYS[i])
      held = 0
    elseif held > 0 then
      held = held - redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', string.format('%.0f', now))
    end
    ok = held + cost <= slots
    limits[1] = { slots, span, id }
  elseif calendar then
    -- Per limit, the count of its own window's state, else the largest count of the states no
    -- limit claimed whose windows overlap its window (see "Calendar quotas" above). The states
    -- no limit claimed whose windows have not ended are foreign: kept, and charged when the call
    -- takes. A refused read writes nothing.
    local stored = getBucket(KEYS[i])
    local starts, counts, ends, k, latest = {}, {}, {}, 0, nil
    if stored then
      for start, count, finish in string.gmatch(stored, '(%d+):(%d+):?(%d*)') do
        k = k + 1
        starts[k], counts[k], ends[k] = tonumber(start), tonumber(count), tonumber(finish)
        if ends[k] and (not latest or ends[k] > latest) then latest = ends[k] end
      end
      if latest and latest <= now then k = 0 end -- all its windows ended: absent, as once it expires
    end
    local claimed, own = {}, {}
    for j = 1, m do
      local count = tonumber(ARGV[a])
      local start, finish = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
      if now >= finish then
        start, finish = finish, tonumber(ARGV[a + 3])
        if now >= finish then start, finish = finish, tonumber(ARGV[a + 4]) end
      end
      a = a + 5
      for s = 1, k do
        if not claimed[s] and starts[s] == start and (not ends[s] or ends[s] == finish) then
          claimed[s], own[j] = true, s
          break
        end
      end
      limits[j] = { count, start, finish }
    end
    for j = 1, m do
      local l = limits[j]
      local used, holds = 0, l[3]
      if own[j] then
        used = counts[own[j]]
        -- states of other windows (that no other limit claimed) which outlast this one and would
        -- refuse this request in the next: a refusal holds until the last of them ends
        for s = 1, k do
          if (not claimed[s] or k < m) and ends[s] and ends[s] > holds and counts[s] + cost > l[1] then
            holds = ends[s]
          end
        end
      else
        for s = 1, k do
          if (not claimed[s] or k < m) and counts[s] > used and starts[s] < l[3]
              and ((ends[s] and ends[s] > l[2]) or (not ends[s] and starts[s] <= now)) then
            used = counts[s]
          end
        end
        -- a count of other windows holds until the key's last window ends (unknown for states
        -- of earlier versions: then this window's end)
        if used > 0 and latest then holds = latest end
      end
      if used + cost > l[1] then ok = false end
      l[4], l[5], l[6] = used, used + cost, holds
    end
    foreign = {}
    for s = 1, k do
      if not claimed[s] and ends[s] and ends[s] > now then
        foreign[#foreign + 1] = { starts[s], counts[s], ends[s] }
      end
    end
  elseif log then
    for j = 1, m do
      local count, window = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
      if window > longest then longest = window end
      if count > most then most = count end
      limits[j] = { count, window }
      a = a + 3
    end
    held = redis.pcall('ZCARD', KEYS[i])
    if type(held) == 'table' and held.err then
      redis.call('DEL', KEYS[i])
      held = 0
    end
    if held > most then
      redis.call('ZREMRANGEBYRANK', KEYS[i], 0, held - most - 1)
      held = most
    end
    for j = 1, m do
      local l = limits[j]
      local count = redis.call('ZCOUNT', KEYS[i], '(' .. string.format('%.0f', now - l[2]), '+inf')
      l[3] = count
      l[4] = count + cost
      if l[4] > l[1] then ok = false end
    end
  else
    local fulls, ns = {}, {}
    tags = {}
    for j = 1, m do
      local cap, p, n = tonumber(ARGV[a + 3 * j - 3]), tonumber(ARGV[a + 3 * j - 2]), tonumber(ARGV[a + 3 * j - 1])
      ns[j], fulls[j], tags[j] = n, cap * p, tag(cap, p, n)
    end
    local d
    d, foreign = readBucket(getBucket(KEYS[i]), m, fulls, ns, tags)
    for j = 1, m do
      local cap, p, n = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), ns[j]
      a = a + 3
      local full = fulls[j]
      local dj = d[j]
      if dj > full then
        dj = full
        capped = true
      end
      local wanted = dj + cost * p
      if wanted > full then ok = false end
      limits[j] = { cap, p, n, dj, wanted }
    end
  end
  -- slot 9 is the calendar quota's flag (algorithm c), slot 10 the lease's (algorithm i), 11 the
  -- gate's (g), 12 a token bucket's tags, 13 the foreign states (a token bucket's or a calendar
  -- quota's) to keep
  buckets[i] = { enforcing, ok, limits, log, cost, longest, capped, held, calendar, lease, gate, tags, foreign }
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
  if b[11] then
    -- a gate takes nothing; held is the µs left of its pause
    local open = 0
    if b[2] then open = b[3][1][1] end
    answer(open, b[8], b[8], b[8])
  elseif b[10] then
    local key, l, held = KEYS[i], b[3][1], b[8]
    if take then
      redis.call('ZADD', key, string.format('%.0f', now + l[2]), l[3])
      held = held + 1
    end
    local nextIn, untilFull, retry = 0, 0, 0
    if held > 0 then
      nextIn = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) - now
      untilFull = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]) - now
      -- the key goes with its last lease
      redis.call('PEXPIRE', key, math.max(minTtl, ceildiv(untilFull, 1000)))
    end
    -- refused: until enough leases expire that one more fits, the (held - slots + 1)-th oldest's
    -- expiry (after a reload lowered the slots, more than the oldest); expired leases were dropped,
    -- so it lies after now: retry >= 1 µs
    if not b[2] then
      retry = tonumber(redis.call('ZRANGE', key, held - l[1], held - l[1], 'WITHSCORES')[2]) - now
    end
    answer(math.max(0, l[1] - held), nextIn, untilFull, retry)
  elseif b[9] then
    local states, expires = {}, 0
    for j, l in ipairs(b[3]) do
      local count, start, finish, used, wanted = l[1], l[2], l[3], l[4], l[5]
      local after, left = used, l[6] - now
      if take then after, left = wanted, finish - now end -- at least 1: the window holds now
      local nextIn, retry = 0, 0
      if after > 0 then nextIn = left end
      if wanted > count then retry = left end
      local remaining = count - after
      if remaining < 0 then remaining = 0 end
      answer(remaining, nextIn, nextIn, retry)
      -- the window's end too: which window it is, for a node with another zone or unit
      states[j] = string.format('%.0f:%.0f:%.0f', start, after, finish)
      if left > expires then expires = left end
    end
    if take then
      -- the windows of other zones or units that have not ended, each charged what this call took
      for _, f in ipairs(b[13]) do
        states[#states + 1] = string.format('%.0f:%.0f:%.0f', f[1], f[2] + b[5], f[3])
        if f[3] - now > expires then expires = f[3] - now end
      end
      redis.call('SET', KEYS[i], table.concat(states, ','), 'PX', math.max(minTtl, ceildiv(expires, 1000)))
    end
  elseif b[4] then
    local key, cost = KEYS[i], b[5]
    if take then
      -- Entries out of every window go when the log is written, never on a refused read.
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - b[6])
      -- Members must be unique, or ZADD updates instead of adding and the log under-counts:
      -- after a refund or a trim, the next sequence number may already be taken at this time.
      local seq = b[8]
      local member = string.format('%.0f', now) .. ':'
      for _ = 1, cost do
        repeat seq = seq + 1 until redis.call('ZADD', key, now, member .. seq) == 1
      end
    end
    if take or b[8] > 0 then
      -- One longest window after the newest entry: the same moment at every read under these
      -- limits, so a refused read moves it only when the limits changed (a lengthened window
      -- keeps the entries it counts), and a node whose deny cache skipped reads agrees.
      local newest = tonumber(redis.call('ZREVRANGE', key, 0, 0, 'WITHSCORES')[2])
      redis.call('PEXPIRE', key, math.max(minTtl, ceildiv(newest + b[6] - now, 1000)))
    end
    for _, l in ipairs(b[3]) do
      local allowed, window, since = l[1], l[2], now - l[2]
      local after = l[3]
      if take then after = l[4] end
      local remaining, nextIn, untilFull, retry = allowed - after, 0, 0, 0
      if remaining < 0 then remaining = 0 end
      if after > 0 then
        -- one more is free when the entries in the window drop to allowed - remaining - 1
        nextIn = entry(key, since, math.max(1, after - allowed + 1)) + window - now
        local newest = redis.call('ZREVRANGEBYSCORE', key, '+inf', '(' .. string.format('%.0f', since), 'WITHSCORES', 'LIMIT', 0, 1)
        untilFull = tonumber(newest[2]) + window - now
      end
      if l[4] > allowed then
        local k = l[4] - allowed
        -- a cost above the count could never pass (the configuration forbids it): say a window
        if k <= l[3] then retry = entry(key, since, k) + window - now else retry = window end
      end
      answer(remaining, nextIn, untilFull, retry)
    end
  else
    local afters, ns = {}, {}
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
      answer(remaining, nextIn, ceildiv(after, n), retry)
      afters[j], ns[j] = after, n
    end
    -- written when it takes (every foreign state charged the cost), and when a limit capped
    if take then
      writeBucket(KEYS[i], #b[3], afters, ns, b[12], b[13], b[5])
    elseif b[7] then
      writeBucket(KEYS[i], #b[3], afters, ns, b[12], b[13], 0)
    end
  end
end
reply[#reply + 1] = now
return reply
