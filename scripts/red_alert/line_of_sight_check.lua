-- Procedure "line_of_sight_check", for the rules tests: compares lib.line_of_sight with a
-- separate exact computation (each hex's corners against the line) on every line from each
-- attacker unit to every hex of the battlefield 2 to 6 hexes away (6: the longest range a unit
-- record may have; from 5 hexes on, some lines pass exactly through a corner of a hex). The
-- scenario's first two features are probes, moved for each line: none on the board; the first
-- on each empty hex near the line (within the line's length of both ends); then both on every
-- pair of hexes the line only touches. The other units stay where they are (they obstruct for
-- both computations). A difference is an error naming the line, the probes and both answers.
-- Metrics: lines (lines checked), cases (arrangements compared).
local lib = require "lib"

-- the corners of a hex around its centre, in thirds of axial (q, r), in turn
local CORNERS = { { 2, -1 }, { 1, 1 }, { -1, 2 }, { -2, 1 }, { -1, -1 }, { 1, -2 } }

-- 0 < n / d < 1
local function inside(n, d)
  if d < 0 then n, d = -n, -d end
  return n > 0 and n < d
end

-- How the segment from the centre (0, 0) to (dq, dr) meets the hex (hq, hr): "through" (some
-- of its inside), "left" / "right" (only its edge or a corner, the hex on that side), or nil.
-- A point P on the line is P = t * (dq, dr); t is read from q (or r when dq is 0).
local function classify(dq, dr, hq, hr)
  local o, pos, neg = {}, 0, 0
  for i, c in ipairs(CORNERS) do
    -- which side of the line the corner is on: the cross product of (dq, dr) and the corner
    local x = dq * (3 * hr + c[2]) - dr * (3 * hq + c[1])
    o[i] = x
    if x > 0 then pos = pos + 1 elseif x < 0 then neg = neg + 1 end
  end
  local function param(i, j)  -- t of the point where the line meets corner i or edge i-j, as n, d
    local vi, vj = CORNERS[i], CORNERS[j]
    local useq = dq ~= 0
    local ci = useq and (3 * hq + vi[1]) or (3 * hr + vi[2])
    local dd = useq and dq or dr
    if o[i] == 0 then return ci, 3 * dd end
    local cj = useq and (3 * hq + vj[1]) or (3 * hr + vj[2])
    -- P = Vi + o_i / (o_i - o_j) (Vj - Vi)
    return ci * (o[i] - o[j]) + o[i] * (cj - ci), (o[i] - o[j]) * 3 * dd
  end
  if pos > 0 and neg > 0 then
    for i = 1, 6 do
      local j = i % 6 + 1
      if o[i] == 0 or (o[i] > 0) ~= (o[j] > 0) and o[j] ~= 0 then
        local n, d = param(i, j)
        return inside(n, d) and "through" or nil
      end
    end
    error("line_of_sight_check: a line through a hex that crosses none of its edges")
  end
  if pos + neg == 6 then return nil end
  for i = 1, 6 do
    if o[i] == 0 then
      local n, d = param(i, i)
      if not inside(n, d) then return nil end
      return pos > 0 and "left" or "right"
    end
  end
end

local function text(ctx, h) return lib.hex_text(ctx, h) end

return {
  run = function(ctx)
    local probes = ctx:entities { kind = "feature" }
    if #probes < 2 then error("line_of_sight_check needs two features (the probes)") end
    local p1, p2 = probes[1], probes[2]
    ctx:place(p1, nil)
    ctx:place(p2, nil)
    local lines, cases = 0, 0
    for _, u in ipairs(ctx:units(ctx:role("attacker"), nil)) do
      local a = ctx:hex(u)
      local range = 6
      for _, b in ipairs(ctx:hexes()) do
        local n = ctx:hex_distance(a, b)
        if n >= 2 and n <= range then
          lines = lines + 1
          local dq, dr = b[1] - a[1], b[2] - a[2]
          -- the exact computation's hexes: through, and touched on either side
          local through, touched, side = {}, {}, {}
          for q = -n, n do
            for r = math.max(-n, -q - n), math.min(n, -q + n) do
              if not (q == 0 and r == 0) and not (q == dq and r == dr) then
                local c = classify(dq, dr, q, r)
                local h = { a[1] + q, a[2] + r }
                if c == "through" then
                  through[#through + 1] = h
                elseif c then
                  touched[#touched + 1] = h
                  side[#touched] = c
                end
              end
            end
          end
          local function exact()
            for _, h in ipairs(through) do
              if lib.obstructs(ctx, h, 0, 0) then return false end
            end
            local left, right = false, false
            for i, h in ipairs(touched) do
              if lib.obstructs(ctx, h, 0, 0) then
                if side[i] == "left" then left = true else right = true end
              end
            end
            return not (left and right)
          end
          local function compare(what)
            cases = cases + 1
            local got = lib.line_of_sight(ctx, a, b) == true
            local want = exact()
            if got ~= want then
              error("line of sight from " .. text(ctx, a) .. " to " .. text(ctx, b) .. " (" .. what .. "): lib.line_of_sight says " ..
                (got and "seen" or "blocked") .. ", the exact computation " .. (want and "seen" or "blocked"))
            end
          end
          compare("no probe")
          -- one probe on each empty hex near the line
          for _, h in ipairs(ctx:hexes()) do
            if ctx:hex_distance(a, h) <= n and ctx:hex_distance(b, h) <= n and not ctx:at_hex(h) then
              ctx:place(p1, h)
              compare("an asteroid field at " .. text(ctx, h))
              ctx:place(p1, nil)
            end
          end
          -- both probes on each pair of hexes the line only touches
          for i = 1, #touched do
            for j = i + 1, #touched do
              local hi, hj = touched[i], touched[j]
              if ctx:on_board(hi) and ctx:on_board(hj) and not ctx:at_hex(hi) and not ctx:at_hex(hj) then
                ctx:place(p1, hi)
                ctx:place(p2, hj)
                compare("asteroid fields at " .. text(ctx, hi) .. " and " .. text(ctx, hj))
                ctx:place(p1, nil)
                ctx:place(p2, nil)
              end
            end
          end
        end
      end
    end
    ctx:metric("lines", lines)
    ctx:metric("cases", cases)
  end,
}
