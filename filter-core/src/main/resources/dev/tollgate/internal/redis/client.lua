--[[
Tollgate client script: what an operator asks of one client's keys (inspect), or their removal
(reset). Never on a request's path. The keys of one client share its hash tag, so one call reaches
them all, in a Cluster too.

KEYS      the client's keys: buckets, sliding logs, calendar quotas, its lease set, its pause gate.
ARGV[1]   "inspect" or "reset".

Reply to inspect: three integers per key, then Redis' now in µs:
          exists (0 or 1), live leases (for a sorted set of leases: members whose expiry, the
          score in µs, is after now; else 0), µs until the key expires (-1: no expiry, -2: absent).
Reply to reset: { the number of keys that existed and were deleted }.
]]
if ARGV[1] == 'reset' then
  local deleted = 0
  for i = 1, #KEYS do
    deleted = deleted + redis.call('DEL', KEYS[i])
  end
  return { deleted }
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local out = {}
for i = 1, #KEYS do
  local exists = redis.call('EXISTS', KEYS[i])
  local live = 0
  if exists == 1 and redis.call('TYPE', KEYS[i]).ok == 'zset' and string.sub(KEYS[i], -2) == ':c' then
    live = redis.call('ZCOUNT', KEYS[i], '(' .. string.format('%.0f', now), '+inf')
  end
  local pttl = redis.call('PTTL', KEYS[i])
  out[#out + 1] = exists
  out[#out + 1] = live
  out[#out + 1] = pttl < 0 and pttl or pttl * 1000
end
out[#out + 1] = now
return out
