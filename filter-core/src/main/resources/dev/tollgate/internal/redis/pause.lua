--[[
Tollgate pause script: no request holding the pause gate KEYS[1] is admitted before Redis' now
plus ARGV[2] µs (bucket.lua reads the gate, algorithm g). A pause never moves an existing one
earlier: the later end wins. Redis TIME is the clock: the caller sends a duration, never an
instant, so nodes with skewed clocks place the pause at the same moment.

KEYS[1]   the gate: a string, the end of the pause in µs of Redis TIME; it expires (PX) then.
ARGV[1]   "" to read the clock from Redis TIME; tests may pass a time in µs (keys then live at
          least a minute, as in bucket.lua).
ARGV[2]   the pause in µs, at least 0.

Reply     { µs from now until the gate opens (0 when it is open), now }
]]
-- a write that depends on Redis TIME: replicated as the write (see bucket.lua; a no-op on Redis 7)
redis.replicate_commands()
local now
local minTtl = 1
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
  minTtl = 60000
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local wanted = now + tonumber(ARGV[2])
local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  redis.call('DEL', KEYS[1])
  current = nil
end
current = tonumber(current) or 0
if current >= wanted then
  return { math.max(0, current - now), now }
end
if wanted > now then
  redis.call('SET', KEYS[1], string.format('%.0f', wanted), 'PX', math.max(minTtl, math.ceil((wanted - now) / 1000)))
end
return { wanted - now, now }
