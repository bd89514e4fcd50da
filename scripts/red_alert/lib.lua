-- Red Alert helpers shared by the procedures, setup, policies and cards: the battlefield (a
-- pointy-top hex board, odd rows shoved half a hex right, odd_r), what stands on a hex, line
-- of sight and the battle dice a unit rolls. Nothing here keeps state between calls.
--
-- A hex holds at most one board entity: a space feature, or a unit. A unit on a feature's hex
-- is located in the feature (ctx:hex(unit) is then the feature's hex); a unit elsewhere is
-- placed on the board itself. The battlefield's hexes are on the board; the half-hexes along
-- the sides (and anything beyond the edges) are not, so "not on the board" is an obstruction
-- that cannot be entered.
local M = {}

M.LAYOUT = "odd_r"
-- retire directions (pointy-top direction indexes): towards a south baseline sw, se; towards a
-- north baseline nw, ne (west first, so the options are listed left to right)
M.RETIRE = { south = { 4, 5 }, north = { 2, 1 } }
M.DIR_NAME = { [0] = "e", "ne", "nw", "w", "sw", "se" }
local DICE = { "dice_1", "dice_2", "dice_3", "dice_4", "dice_5", "dice_6" }
local IGNORE = { capital = "ignore_blasts_capital", strike = "ignore_blasts_strike", fighter = "ignore_blasts_fighter" }

function M.setting(ctx, name) return ctx:get(ctx:role("settings"), name) end

function M.hex_text(ctx, h)
  local col, row = ctx:hex_offset(h, M.LAYOUT)
  return "[" .. col .. "," .. row .. "]"
end

-- the unit on a hex (on the board or on the feature there), or nil
function M.unit_at(ctx, h)
  local e = ctx:at_hex(h)
  if not e then return nil end
  if ctx:kind(e) == "unit" then return e end
  return ctx:units(nil, e)[1]
end

function M.feature_at(ctx, h)
  local e = ctx:at_hex(h)
  if e and ctx:kind(e) == "feature" then return e end
  return nil
end

-- the feature a unit is on, or nil
function M.feature_of(ctx, u)
  local l = ctx:location(u)
  if math.type(l) == "integer" and ctx:kind(l) == "feature" then return l end
  return nil
end

function M.feature_flag(ctx, u, attr)
  local f = M.feature_of(ctx, u)
  return f ~= nil and ctx:get(f, attr)
end

-- puts a unit on a hex (on the feature there, if any)
function M.put(ctx, u, h)
  local f = M.feature_at(ctx, h)
  ctx:place(u, nil)
  if f then
    ctx:move(u, f)
  else
    ctx:move(u, nil)
    ctx:place(u, h)
  end
end

function M.alive(ctx, u) return ctx:location(u) ~= "reinforcements" end

-- A unit carries its class's attributes (symbol, blast ignores, engineering), copied by setup.
M.CLASS_ATTRS = { "symbol", "ignore_blasts_capital", "ignore_blasts_strike", "ignore_blasts_fighter", "engineering" }

function M.impassable(ctx, h)
  if not ctx:on_board(h) then return true end
  local f = M.feature_at(ctx, h)
  return f ~= nil and ctx:get(f, "impassable")
end

-- enemy units of `u`'s owner that are adjacent to it (entity ids: no hex tables made)
function M.adjacent_enemies(ctx, u)
  local out, me = {}, ctx:owner(u)
  for _, v in ipairs(ctx:units(nil, nil)) do
    if ctx:owner(v) ~= me and ctx:hex_distance(u, v) == 1 then out[#out + 1] = v end
  end
  return out
end

-- the group of the feature at a hex (or of the feature a unit is on), 0 when none
local function group_at(ctx, h)
  local f = math.type(h) == "integer" and M.feature_of(ctx, h) or (math.type(h) ~= "integer" and M.feature_at(ctx, h))
  if f and ctx:get(f, "group_sight") then return ctx:get(f, "group") end
  return 0
end

-- Whether hex h (not an end of the line) obstructs a line between two hexes whose features'
-- groups are ga and gb: off the battlefield (a half-hex), a unit (friend or foe), or a feature
-- that blocks sight (a group's hexes not between two units on that same group).
function M.obstructs(ctx, h, ga, gb)
  if not ctx:on_board(h) then return "half_hex" end
  local e = ctx:at_hex(h)
  if not e then return nil end
  if ctx:kind(e) == "unit" or ctx:units(nil, e)[1] then return "unit" end
  if ctx:get(e, "blocks_sight") then
    if ctx:get(e, "group_sight") and ga ~= 0 and ga == gb and ctx:get(e, "group") == ga then return nil end
    return ctx:type(e)
  end
  return nil
end

-- Line of sight from hex (or unit) a to hex (or unit) b (3. Check Line of Sight): the exact
-- centre-to-centre segment. A hex it passes through (any part of its inside) blocks when it
-- holds an obstruction. A hex it only touches, along an edge or at a corner, is on one side of
-- the line, and such obstructions block only when there are some on both sides ("If the
-- imaginary line runs along the edge of one or more hexes that contain obstructions, line of
-- sight is not blocked unless the obstructions are on both sides of the line"). The end hexes
-- never block. Returns true, or false and what blocks.
--
-- How: in cube coordinates (x, y, z) = (q, r, -q-r) a hex's area is where the differences
-- u = x-y, v = y-z and w = z-x are each within 1 of its centre's. The walk goes hex to hex,
-- leaving each where the first of u, v, w reaches its bound (across that edge). Where two
-- reach it together the segment meets a corner: it goes on into one of the two hexes past the
-- corner and only touches the other; or, when the third difference does not change along the
-- segment, it runs along the edge between those two (both touched) to the corner of the hex
-- beyond them. Whole numbers only (fractions compared crosswise), and no table per hex.
-- (probe: one table per line, the hex handed to the ctx calls, filled again for each)
local function obstruction(ctx, probe, aq, ar, q, r, ga, gb)
  probe[1], probe[2] = aq + q, ar + r
  return M.obstructs(ctx, probe, ga, gb)
end

local function blocked_at(ctx, why, aq, ar, q, r)
  if not ctx:tracing() then return "no line of sight" end
  return why .. " at " .. M.hex_text(ctx, { aq + q, ar + r })
end

function M.line_of_sight(ctx, a, b)
  local ha = math.type(a) == "integer" and ctx:hex(a) or a
  local hb = math.type(b) == "integer" and ctx:hex(b) or b
  local aq, ar = ha[1], ha[2]
  local dq, dr = hb[1] - aq, hb[2] - ar
  local du, dv, dw = dq - dr, dq + 2 * dr, -2 * dq - dr  -- u, v, w of the segment b - a
  -- the neighbour across each difference's bound, the way it changes
  local uq, ur = du > 0 and 1 or -1, du > 0 and -1 or 1
  local vq, vr = 0, dv > 0 and 1 or -1
  local wq, wr = dw > 0 and -1 or 1, 0
  local au, av, aw = math.abs(du), math.abs(dv), math.abs(dw)
  local ga, gb = group_at(ctx, a), group_at(ctx, b)
  local probe = { 0, 0 }
  -- the first obstruction touched on each side of the line (left: 1, right: 2)
  local w1, q1, r1, w2, q2, r2
  local cq, cr = 0, 0  -- the hex the walk is in, relative to a
  local steps = 0
  while cq ~= dq or cr ~= dr do
    steps = steps + 1
    if steps > 2 * (au + av + aw) + 2 then error("line of sight: the walk from a to b went astray") end
    local cu, cv, cw = cq - cr, cq + 2 * cr, -2 * cq - cr
    -- where each difference reaches its bound: t = n / d (d = 0: it never does)
    local nu = 1 + (du > 0 and cu or -cu)
    local nv = 1 + (dv > 0 and cv or -cv)
    local nw = 1 + (dw > 0 and cw or -cw)
    local bn, bd
    if au ~= 0 then bn, bd = nu, au end
    if av ~= 0 and (not bn or nv * bd < bn * av) then bn, bd = nv, av end
    if aw ~= 0 and (not bn or nw * bd < bn * aw) then bn, bd = nw, aw end
    local tu = au ~= 0 and nu * bd == bn * au
    local tv = av ~= 0 and nv * bd == bn * av
    local tw = aw ~= 0 and nw * bd == bn * aw
    local pq, pr, oq, orr, third, pt, ot
    if tu and tv then
      pq, pr, oq, orr, third = cq + uq, cr + ur, cq + vq, cr + vr, dw
      pt, ot = -2 * pq - pr, -2 * oq - orr
    elseif tu and tw then
      pq, pr, oq, orr, third = cq + uq, cr + ur, cq + wq, cr + wr, dv
      pt, ot = pq + 2 * pr, oq + 2 * orr
    elseif tv and tw then
      pq, pr, oq, orr, third = cq + vq, cr + vr, cq + wq, cr + wr, du
      pt, ot = pq - pr, oq - orr
    end
    local touched_q, touched_r, touched2
    if not pq then
      -- across one edge into the next hex
      if tu then cq, cr = cq + uq, cr + ur
      elseif tv then cq, cr = cq + vq, cr + vr
      else cq, cr = cq + wq, cr + wr end
    elseif third == 0 then
      -- along the edge between p and o, to the corner of the hex beyond both
      touched_q, touched_r, touched2 = pq, pr, true
      cq, cr = pq + oq - cq, pr + orr - cr
    else
      -- through the corner into the hex on the side the third difference moves to; the other
      -- is touched at the corner only
      if (pt > ot) ~= (third > 0) then pq, pr, oq, orr = oq, orr, pq, pr end
      cq, cr = pq, pr
    end
    -- the hexes only touched: o, and along an edge p too
    for k = 1, touched2 and 2 or (pq and 1 or 0) do
      local q, r
      if k == 1 then q, r = oq, orr else q, r = touched_q, touched_r end
      local left = dq * r - dr * q > 0
      if (left and not w1) or (not left and not w2) then
        local why = obstruction(ctx, probe, aq, ar, q, r, ga, gb)
        if why then
          if left then w1, q1, r1 = why, q, r else w2, q2, r2 = why, q, r end
        end
      end
    end
    -- the hex passed through (not the target's)
    if cq ~= dq or cr ~= dr then
      local why = obstruction(ctx, probe, aq, ar, cq, cr, ga, gb)
      if why then return false, blocked_at(ctx, why, aq, ar, cq, cr) end
    end
  end
  if not (w1 and w2) then return true end
  if not ctx:tracing() then return false, "no line of sight" end
  return false, blocked_at(ctx, w1, aq, ar, q1, r1) .. " on one side of the line and " ..
    blocked_at(ctx, w2, aq, ar, q2, r2) .. " on the other"
end

-- The battle dice of `u` at a distance before reductions (0: out of range). A flagship adds
-- its cap fighters' dice at close quarters.
function M.base_dice(ctx, u, distance)
  if distance < 1 or distance > ctx:get(u, "range") or distance > #DICE then return 0 end
  local n = ctx:get(u, DICE[distance])
  if distance == 1 then n = n + ctx:get(u, "cap_fighters") * ctx:get(u, "cap_fighter_dice") end
  return n
end

-- Blasts the target ignores when attacked by `attacker` (shields and manoeuvre).
function M.ignored_blasts(ctx, attacker, target)
  if not attacker then return 0 end
  local attr = IGNORE[ctx:get(attacker, "class")]
  return attr and ctx:get(target, attr) or 0
end

-- Why `u` cannot combat `t` now, or nil and the dice (after reductions, before cards), whether
-- it is ranged and the distance. `adjacent` (optional): whether `u` is adjacent to an enemy.
function M.check(ctx, u, t, adjacent)
  if not M.alive(ctx, u) or not M.alive(ctx, t) then return "gone" end
  if ctx:owner(u) == ctx:owner(t) then return "friendly" end
  local d = ctx:hex_distance(u, t)
  local ranged = d > 1
  if ranged then
    if d > ctx:get(u, "range") then
      if not ctx:tracing() then return "out of range" end
      return "out of range (" .. d .. " hexes, range " .. ctx:get(u, "range") .. ")"
    end
    if adjacent == nil then adjacent = #M.adjacent_enemies(ctx, u) > 0 end
    if adjacent then return "adjacent to an enemy: must close quarters it" end
    local seen, why = M.line_of_sight(ctx, u, t)
    if not seen then return "no line of sight (" .. why .. ")" end
  end
  local dice = M.base_dice(ctx, u, d)
  local f = M.feature_of(ctx, t)
  if f and ctx:get(f, "dice_against") > 0 then
    local g = ctx:get(f, "group")
    local mine = M.feature_of(ctx, u)
    local exempt = ctx:get(f, "group_exempt") and g ~= 0 and mine ~= nil and ctx:get(mine, "group") == g
    if not exempt then dice = dice - ctx:get(f, "dice_against") end
  end
  if ctx:get(u, "marker") then dice = dice - 1 end
  if dice < 0 then dice = 0 end
  return nil, dice, ranged, d
end

-- Valid targets of `u` as decision options.
function M.targets(ctx, u)
  local out = {}
  local me = ctx:owner(u)
  local near = M.adjacent_enemies(ctx, u)
  local candidates = #near > 0 and near or ctx:units(nil, nil)
  for _, t in ipairs(candidates) do
    if ctx:owner(t) ~= me then
      local why, dice, ranged, d = M.check(ctx, u, t, #near > 0)
      if not why then
        out[#out + 1] = { id = ctx:name(t), entity = t, dice = dice, ranged = ranged, distance = d,
          figures = ctx:get(t, "figures") + ctx:get(t, "cap_fighters") }
      end
    end
  end
  return out
end

-- The sector(s) of a hex: "left", "centre", "right" (a hex on a dotted line is in two).
function M.sectors(ctx, h)
  local bf = ctx:role("battlefield")
  local col, row = ctx:hex_offset(h, M.LAYOUT)
  local x2 = 2 * col + (row % 2 == 1 and 1 or 0)
  local l1, l2 = ctx:get(bf, "sector_line_1"), ctx:get(bf, "sector_line_2")
  local out = {}
  if x2 <= l1 then out[#out + 1] = "left" end
  if x2 >= l1 and x2 <= l2 then out[#out + 1] = "centre" end
  if x2 >= l2 then out[#out + 1] = "right" end
  return out
end

return M
