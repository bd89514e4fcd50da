-- Builds the start state from a scenario:
--   procedure = "unit_combat":  [combat] attacker = "<unit>", target = "<unit>"
--   procedure = "combat_phase": [combat] order = ["<unit>", { unit = "<unit>", target = "<unit>" }, ...]
--   procedure = "line_of_sight_check": no [combat] (the rules tests' check of line of sight)
-- [attacker] (the active player) and [defender]: name, baseline ("south" / "north"), stars,
-- cards, units = [{ name, type, hex = [col, row], heavy, figures, cap_fighters, marker,
-- stopped, no_pursuit, combatted }], policy. features = [{ type, hex = [col, row] }]. [settings]
-- overrides the pack's settings record. Hexes are [column, row] of the battlefield (row 0 the
-- north edge; odd rows have one hex fewer, shoved half a hex right, with half-hexes at both ends).
-- Every unknown key is rejected with the scenario line that holds it.
local lib = require "lib"

local TOP = { "ruleset", "procedure", "packs", "name", "description", "attacker", "defender", "features", "combat",
  "settings", "battlefield" }
local SIDE = { "name", "baseline", "stars", "cards", "units", "policy" }
local UNIT = { "name", "type", "hex", "heavy", "figures", "cap_fighters", "marker", "stopped", "no_pursuit", "combatted" }
local FEATURE = { "type", "hex" }
local SETTINGS = { "confirm_excess_only", "confirm_blast_ignores", "battle_back_stars", "voluntary_marker" }
local POLICY = { "battle_back", "pursuit", "repair", "disregard", "voluntary_retire", "retire", "target", "cards", "remove_marker" }

local function list(t) return table.concat(t, ", ") end
local function has(t, v)
  for _, x in ipairs(t) do if x == v then return true end end
  return false
end

local function check_keys(ctx, t, allowed, path)
  if type(t) ~= "table" then ctx:reject(path, path .. " must be a table") end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for _, k in ipairs(keys) do
    if not has(allowed, k) then
      ctx:reject(path .. "." .. k, "unknown key '" .. k .. "' in " .. path .. ", expected one of: " .. list(allowed))
    end
  end
end

local function int(ctx, v, path, lo, hi)
  if math.type(v) ~= "integer" then ctx:reject(path, path .. " must be an integer") end
  if v < lo or v > hi then ctx:reject(path, path .. " must be between " .. lo .. " and " .. hi) end
  return v
end

local function bool(ctx, v, path)
  if type(v) ~= "boolean" then ctx:reject(path, path .. " must be true or false") end
  return v
end

-- [col, row] on the battlefield -> a hex. A column or row outside the battlefield's width and
-- depth is refused here, at the scenario's line, before the board sees the number.
local function read_hex(ctx, v, path)
  if type(v) ~= "table" or #v ~= 2 or math.type(v[1]) ~= "integer" or math.type(v[2]) ~= "integer" then
    ctx:reject(path, path .. " must be [column, row]")
  end
  local bf = ctx:role("battlefield")
  local width, depth = ctx:get(bf, "width"), ctx:get(bf, "depth")
  if v[1] < 0 or v[1] >= width or v[2] < 0 or v[2] >= depth then
    ctx:reject(path, path .. " [" .. v[1] .. ", " .. v[2] .. "] is not a hex of the battlefield (columns 0 to "
      .. (width - 1) .. ", rows 0 to " .. (depth - 1) .. ")")
  end
  local h = ctx:offset_hex(v[1], v[2], lib.LAYOUT)
  if not ctx:on_board(h) then
    ctx:reject(path, path .. " [" .. v[1] .. ", " .. v[2] .. "] is not a hex of the battlefield (a half-hex or off the board)")
  end
  return h
end

local function make_unit(ctx, t, path, player, by_name)
  check_keys(ctx, t, UNIT, path)
  if type(t.type) ~= "string" or not ctx:record(t.type, "unit") then
    ctx:reject(path .. ".type", "unknown unit type '" .. tostring(t.type) .. "', expected one of: " .. list(ctx:records("unit")))
  end
  local uname = t.name or t.type
  if type(uname) ~= "string" then ctx:reject(path .. ".name", path .. ".name must be a string") end
  if by_name[uname] then ctx:reject(path .. ".name", "two units are named '" .. uname .. "'; give each a name") end
  local u = ctx:create { kind = "unit", type = t.type, owner = player, name = uname }
  by_name[uname] = u
  local class = ctx:record(ctx:get(u, "class"), "class")
  if not class then ctx:reject(path .. ".type", "unit type '" .. t.type .. "' names no known class") end
  for _, a in ipairs(lib.CLASS_ATTRS) do
    if class[a] ~= nil then ctx:set(u, a, class[a]) end
  end
  if t.heavy ~= nil and bool(ctx, t.heavy, path .. ".heavy") then
    if ctx:get(u, "heavy_figures") == 0 then ctx:reject(path .. ".heavy", "a " .. t.type .. " has no heavy squadron") end
    ctx:set(u, "heavy", true)
    ctx:set(u, "figures", ctx:get(u, "heavy_figures"))
  end
  if t.figures ~= nil then
    ctx:set(u, "figures", int(ctx, t.figures, path .. ".figures", 1, math.max(1, ctx:get(u, "figures"))))
  end
  if t.cap_fighters ~= nil then
    ctx:set(u, "cap_fighters", int(ctx, t.cap_fighters, path .. ".cap_fighters", 0, ctx:get(u, "cap_fighters")))
  end
  if t.marker ~= nil then ctx:set(u, "marker", bool(ctx, t.marker, path .. ".marker")) end
  if t.stopped ~= nil and bool(ctx, t.stopped, path .. ".stopped") then ctx:set_flag(u, "stopped", "turn") end
  if t.combatted ~= nil and bool(ctx, t.combatted, path .. ".combatted") then ctx:set_flag(u, "combatted", "turn") end
  if t.no_pursuit ~= nil and bool(ctx, t.no_pursuit, path .. ".no_pursuit") then ctx:set_flag(u, "no_pursuit", "turn") end
  local h = read_hex(ctx, t.hex, path .. ".hex")
  if lib.unit_at(ctx, h) then ctx:reject(path .. ".hex", "another unit is already at " .. lib.hex_text(ctx, h)) end
  if lib.impassable(ctx, h) then ctx:reject(path .. ".hex", lib.hex_text(ctx, h) .. " is impassable") end
  lib.put(ctx, u, h)
  return u
end

local function array(ctx, v, path)
  if v == nil then return {} end
  if type(v) ~= "table" then ctx:reject(path, path .. " must be a list") end
  return v
end

local function make_side(ctx, t, path, default_name, default_baseline)
  check_keys(ctx, t, SIDE, path)
  if t.name ~= nil and type(t.name) ~= "string" then ctx:reject(path .. ".name", path .. ".name must be a string") end
  local p = ctx:create { kind = "player", name = t.name or default_name }
  local baseline = t.baseline or default_baseline
  if baseline ~= "north" and baseline ~= "south" then ctx:reject(path .. ".baseline", path .. ".baseline must be north or south") end
  ctx:set(p, "baseline", baseline)
  if t.stars ~= nil then ctx:set_counter(p, "stars", int(ctx, t.stars, path .. ".stars", 0, 99)) end
  for _, c in ipairs(array(ctx, t.cards, path .. ".cards")) do
    if type(c) ~= "string" or not ctx:record(c, "card") then
      ctx:reject(path .. ".cards", "unknown card '" .. tostring(c) .. "', expected one of: " .. list(ctx:records("card")))
    end
    ctx:create { kind = "card", type = c, owner = p, location = p }
  end
  if t.policy ~= nil then
    check_keys(ctx, t.policy, POLICY, path .. ".policy")
    for _, k in ipairs(POLICY) do
      local v = t.policy[k]
      if v ~= nil and k ~= "target" and k ~= "retire" and v ~= "always" and v ~= "never" then
        ctx:reject(path .. ".policy." .. k, path .. ".policy." .. k .. " must be \"always\" or \"never\"")
      end
      if v ~= nil and type(v) ~= "string" then ctx:reject(path .. ".policy." .. k, path .. ".policy." .. k .. " must be a string") end
    end
    ctx:set_policy(p, t.policy)
  end
  return p
end

return function(ctx, sc)
  check_keys(ctx, sc, TOP, "scenario")
  ctx:set_board { orientation = "pointy" }
  local bf_name = sc.battlefield or "standard"
  if not ctx:record(bf_name, "battlefield") then
    ctx:reject("battlefield", "unknown battlefield '" .. tostring(bf_name) .. "', expected one of: " .. list(ctx:records("battlefield")))
  end
  local bf = ctx:create { kind = "battlefield", type = bf_name }
  ctx:set_role("battlefield", bf)
  local width, depth = ctx:get(bf, "width"), ctx:get(bf, "depth")
  for row = 0, depth - 1 do
    for col = 0, (row % 2 == 1) and width - 2 or width - 1 do ctx:add_hex(ctx:offset_hex(col, row, lib.LAYOUT)) end
  end
  local settings = ctx:create { kind = "settings", type = "default" }
  ctx:set_role("settings", settings)
  if sc.settings ~= nil then
    check_keys(ctx, sc.settings, SETTINGS, "settings")
    for _, k in ipairs(SETTINGS) do
      if sc.settings[k] ~= nil then ctx:set(settings, k, bool(ctx, sc.settings[k], "settings." .. k)) end
    end
  end

  -- features, then their groups (adjacent features of one type that has group_sight)
  local features = {}
  for i, t in ipairs(array(ctx, sc.features, "features")) do
    local path = "features." .. i
    check_keys(ctx, t, FEATURE, path)
    if type(t.type) ~= "string" or not ctx:record(t.type, "feature") then
      ctx:reject(path .. ".type", "unknown feature '" .. tostring(t.type) .. "', expected one of: " .. list(ctx:records("feature")))
    end
    local h = read_hex(ctx, t.hex, path .. ".hex")
    if ctx:at_hex(h) then ctx:reject(path .. ".hex", "two features at " .. lib.hex_text(ctx, h)) end
    local f = ctx:create { kind = "feature", type = t.type }
    ctx:place(f, h)
    features[#features + 1] = f
  end
  local groups = 0
  for _, f in ipairs(features) do
    if ctx:get(f, "group_sight") and ctx:get(f, "group") == 0 then
      groups = groups + 1
      local stack = { f }
      ctx:set(f, "group", groups)
      while #stack > 0 do
        local g = table.remove(stack)
        for _, h in ipairs(ctx:hex_neighbours(ctx:hex(g), true)) do
          local n = lib.feature_at(ctx, h)
          if n and ctx:type(n) == ctx:type(f) and ctx:get(n, "group") == 0 then
            ctx:set(n, "group", groups)
            stack[#stack + 1] = n
          end
        end
      end
    end
  end

  if type(sc.attacker) ~= "table" then ctx:reject("attacker", "the scenario needs an [attacker] table (the active player)") end
  if type(sc.defender) ~= "table" then ctx:reject("defender", "the scenario needs a [defender] table") end
  local ap = make_side(ctx, sc.attacker, "attacker", "attacker", "south")
  local dp = make_side(ctx, sc.defender, "defender", "defender", "north")
  ctx:set_role("attacker", ap)
  ctx:set_role("defender", dp)
  ctx:set_role("active_player", ap)
  local by_name = {}
  for _, side in ipairs { { sc.attacker, "attacker", ap }, { sc.defender, "defender", dp } } do
    for i, t in ipairs(array(ctx, side[1].units, side[2] .. ".units")) do make_unit(ctx, t, side[2] .. ".units." .. i, side[3], by_name) end
  end

  if sc.procedure == "line_of_sight_check" then
    if sc.combat ~= nil then ctx:reject("combat", "the line_of_sight_check procedure takes no [combat] table") end
    return
  end
  local c = sc.combat
  if type(c) ~= "table" then ctx:reject("combat", "the scenario needs a [combat] table") end
  local function unit(v, path, owner)
    local u = by_name[v]
    if not u then ctx:reject(path, "unknown unit '" .. tostring(v) .. "'") end
    if owner and ctx:owner(u) ~= owner then ctx:reject(path, "'" .. v .. "' is not a unit of the " .. (owner == ap and "attacker" or "defender")) end
    return u
  end
  if sc.procedure == "combat_phase" then
    check_keys(ctx, c, { "order" }, "combat")
    if type(c.order) ~= "table" or #c.order == 0 then ctx:reject("combat.order", "combat.order must list the ordered units") end
    for i, o in ipairs(c.order) do
      local path = "combat.order." .. i
      local u, target
      if type(o) == "table" then
        check_keys(ctx, o, { "unit", "target" }, path)
        u = unit(o.unit, path .. ".unit", ap)
        if o.target ~= nil then target = unit(o.target, path .. ".target", dp) end
      else
        u = unit(o, path, ap)
      end
      if ctx:counter(u, "order") > 0 then ctx:reject(path, "'" .. ctx:name(u) .. "' is ordered twice") end
      ctx:set_counter(u, "order", i)
      if target then ctx:set_counter(u, "order_target", target + 1) end
    end
  else
    check_keys(ctx, c, { "attacker", "target" }, "combat")
    ctx:set_role("attacking_unit", unit(c.attacker, "combat.attacker", ap))
    ctx:set_role("target_unit", unit(c.target, "combat.target", dp))
  end
end
