--[[
Tollgate release script: gives back concurrency leases that bucket.lua took (algorithm i), when
the response of the request that took them has completed.

KEYS[i]   a lease bucket (a sorted set: member the lease id, score its expiry in µs).
ARGV[i]   the id of the lease to give back from KEYS[i].

Reply     a one-element array: the number of leases removed. A lease that expired meanwhile (and was dropped), or that
          was given back already, is not there: giving one back twice frees one slot. A key of
          another type is left alone. Redis deletes the key with its last member.
]]

local released = 0
for i = 1, #KEYS do
  local gone = redis.pcall('ZREM', KEYS[i], ARGV[i])
  if gone == 1 then released = released + 1 end
end
return { released }
