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

-- What the rolls read of the battle die (ctx:roll's faces, scripts/README.md): a combat roll the
-- target's class symbol and the blasts (as one class when the target ignores none of them: only
-- their sum is read), stars and red alerts; a retire roll the retiring unit's symbol; a
-- confirmation roll squares and blasts (one class when no blast is ignored). The faces read by
-- no roll are one class more, so the step memo and the exact mode branch on the counts of these
-- classes alone (three dice: 20 or 35 ways for a combat roll, 4 for a retire roll, not 56).
-- [0]: no blast ignored, [1]: some. (A symbol not listed here: the roll is counted by face.)
M.COMBAT_FACES, M.SYMBOL_FACES = {}, {}
for _, s in ipairs { "circle", "triangle", "square" } do
  M.COMBAT_FACES[s] = { [0] = { { s, "blast" }, "star", "red_alert" }, { s, "blast", "star", "red_alert" } }
  M.SYMBOL_FACES[s] = { s }
end
M.CONFIRM_FACES = { [0] = { { "square", "blast" } }, { "square", "blast" } }

-- `symbol`'s dice plus blasts less `ignored` (at least 0) in a pool rolled with those faces
function M.count_scored(pool, symbol, ignored)
  if ignored <= 0 then return pool:count(symbol, "blast") end
  return pool:count(symbol) + math.max(0, pool:count("blast") - ignored)
end

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

-- What the entity e on a hex (nil: a hex off the battlefield, a half-hex) obstructs as on a line
-- between two hexes whose features' groups are ga and gb, or nil: a half-hex, a unit (friend or
-- foe, on the board or on a feature), or a feature that blocks sight (a group's hexes not
-- between two units on that same group). (ctx:hex_sight's obstructs: e first.)
local function obstruction(e, ctx, ga, gb)
  if not e then return "half_hex" end
  if ctx:kind(e) == "unit" or ctx:count(nil, e) > 0 then return "unit" end
  if ctx:get(e, "blocks_sight") then
    if ctx:get(e, "group_sight") and ga ~= 0 and ga == gb and ctx:get(e, "group") == ga then return nil end
    return ctx:type(e)
  end
  return nil
end

-- Whether hex h (not an end of the line) obstructs a line between two hexes whose features'
-- groups are ga and gb, and as what (nil: it does not).
function M.obstructs(ctx, h, ga, gb)
  if not ctx:on_board(h) then return "half_hex" end
  local e = ctx:at_hex(h)
  if not e then return nil end
  return obstruction(e, ctx, ga, gb)
end

-- Line of sight from hex (or unit) a to hex (or unit) b (3. Check Line of Sight): the exact
-- centre-to-centre segment (ctx:hex_sight). A hex it passes through (any part of its inside)
-- blocks when it holds an obstruction. A hex it only touches, along an edge or at a corner, is
-- on one side of the line, and such obstructions block only when there are some on both sides
-- (the rule: a line running along the edges of obstructed hexes is blocked only by obstructions on
-- both of its sides). The end hexes never block. Returns true, or false and what blocks.
function M.line_of_sight(ctx, a, b)
  local seen, what, at, what2, at2 = ctx:hex_sight(a, b, obstruction, ctx, group_at(ctx, a), group_at(ctx, b))
  if seen then return true end
  if not ctx:tracing() then return false, "no line of sight" end
  local why = what .. " at " .. M.hex_text(ctx, at)
  if not what2 then return false, why end
  return false, why .. " on one side of the line and " .. what2 .. " at " .. M.hex_text(ctx, at2) .. " on the other"
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
