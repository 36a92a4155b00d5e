-- Read before bucket.lua and refund.lua (RedisStore loads each as this text and then its own):
-- the reading of a token-bucket limit's tag, which bucket.lua writes and both scripts match.

-- A number written in letters (base 26, 'a' for 0), or nil when it is not one bucket.lua writes
-- (empty, a leading 'a' before other letters, or too long to be exact).
local function number(s)
  if #s == 0 or #s > 11 or (#s > 1 and string.byte(s, 1) == 97) then return nil end
  local x = 0
  for i = 1, #s do x = x * 26 + string.byte(s, i) - 97 end
  return x
end

-- The capacity, p and n a tag ("~<capacity>.<p>.<n>" in letters) names, or nil when it is none
-- bucket.lua writes (no tag; or a tag of a build before this rule): such a state is of unknown limits.
local function untag(g)
  local c, p, n = string.match(g, '^~(%l+)%.(%l+)%.(%l+)$')
  if not c then return nil end
  c, p, n = number(c), number(p), number(n)
  if not (c and p and n) or c < 1 or p < 1 or n < 1 or c * p > 4503599627370496 then return nil end
  return c, p, n
end

