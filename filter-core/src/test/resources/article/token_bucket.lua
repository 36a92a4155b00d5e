-- The bucket script of the article the project grew from (shared/seed), kept as the article
-- writes it, for comparisons: the caller passes its own clock, tokens are fractional.
-- KEYS[1] = the client's bucket key
-- ARGV[1] = capacity C   ARGV[2] = refill r (tokens/second)
-- ARGV[3] = now (seconds, from the caller)   ARGV[4] = tokens needed (usually 1)
local capacity = tonumber(ARGV[1])
local refill   = tonumber(ARGV[2])
local now      = tonumber(ARGV[3])
local needed   = tonumber(ARGV[4])

local d      = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(d[1])
local ts     = tonumber(d[2])
if tokens == nil then
  tokens = capacity
  ts = now
end

local delta = math.max(0, now - ts)
tokens = math.min(capacity, tokens + delta * refill)

local allowed = tokens >= needed
if allowed then tokens = tokens - needed end

redis.call('HMSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / refill) * 2)

return { allowed and 1 or 0, math.floor(tokens) }
