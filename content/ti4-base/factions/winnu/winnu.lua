-- The Winnu: the Salai Sai Corian. Tests: ../../tests/factions/winnu.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Before each round's combat rolls: the flagship rolls as many dice as the opponent has
-- non-fighter ships in the system (0 when they have none).
hook {
  id = "salai_sai_corian",
  window = "space_combat.before_roll",
  source = "unit/winnu_flagship",
  condition = function(ctx, _, source) return ctx:location(source) == ctx:role("active_system") end,
  apply = function(ctx, player, source)
    local n = 0
    for _, u in ipairs(ctx:units(lib.opponent(ctx, player), ctx:role("active_system"), "ship")) do
      if not ctx:get(u, "fighter") then n = n + 1 end
    end
    ctx:set(source, "dice", n)
  end,
}

-- Whether `sys` is the Mecatol Rex system (tile 18, or a system holding the planet Mecatol Rex).
local function mecatol_rex_system(ctx, sys)
  if ctx:get(sys, "tile") == 18 then return true end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:type(planet) == "mecatol_rex" or ctx:name(planet) == "mecatol_rex" then return true end
  end
  return false
end

-- Rickar Rickani (commander): the Winnu units roll at +2 in combats in the Mecatol Rex system, in
-- their home system and in any system with a legendary planet. At the start of a space or ground
-- combat in such a system, the +2 modifiers of winnu.toml are switched on for the combat. Home
-- system: lib.is_home_system (a home tile that holds a planet the player controls; the faction's
-- home tile is not in the data).
local function rickani_system(ctx, player, sys)
  if mecatol_rex_system(ctx, sys) or lib.is_home_system(ctx, player, sys) then return true end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:get(planet, "legendary") then return true end
  end
  return false
end

hook {
  id = "rickar_rickani",
  window = "space_combat.start_of_combat",
  source = "leader/rickar_rickani",
  condition = function(ctx, player)
    return (player == ctx:role("attacker") or player == ctx:role("defender")) and rickani_system(ctx, player, ctx:role("active_system"))
  end,
  apply = function(ctx, player) ctx:activate("rickar_rickani_space", player, "combat") end,
}

hook {
  id = "rickar_rickani_ground",
  window = "invasion.start_of_ground_combat",
  source = "leader/rickar_rickani",
  condition = function(ctx, player, _, args)
    return (player == args.player or player == args.opponent) and rickani_system(ctx, player, ctx:location(args.planet))
  end,
  apply = function(ctx, player) ctx:activate("rickar_rickani_ground", player, "combat") end,
}

-- Lazax Gate Folding: in the Winnu player's tactical actions, while they do not control Mecatol
-- Rex, its system counts as holding an alpha and a beta wormhole. After the Winnu player activates
-- a system, the Mecatol Rex system is linked (kind "wormhole") to every system with an alpha or a
-- beta wormhole, for the action.
local function has_alpha_or_beta(ctx, sys)
  for _, attr in ipairs { "wormhole", "wormhole_2", "wormhole_3" } do
    local w = ctx:get(sys, attr)
    if w == "alpha" or w == "beta" then return true end
  end
  return false
end

hook {
  id = "lazax_gate_folding",
  window = "tactical_action.activation",
  source = "technology/lazax_gate_folding",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
      if ctx:type(planet) == "mecatol_rex" or ctx:name(planet) == "mecatol_rex" then return false end
    end
    return true
  end,
  apply = function(ctx, player)
    local systems = ctx:entities { kind = "system" }
    for _, m in ipairs(systems) do
      if mecatol_rex_system(ctx, m) then
        for _, s in ipairs(systems) do
          if s ~= m and has_alpha_or_beta(ctx, s) and not ctx:is_adjacent(m, s) then ctx:link(m, s, "wormhole") end
        end
        if ctx:tracing() then ctx:event("lazax_gate_folding:" .. ctx:name(player), "Mecatol Rex has an alpha and a beta wormhole for " .. ctx:name(player) .. "'s action") end
      end
    end
  end,
}

-- Reclamation: at the end of a tactical action in which the Winnu player took Mecatol Rex, they may
-- put 1 PDS and 1 space dock from reinforcements on it. Reclaimer (mech): at the end of a tactical
-- action in which the player took the mech's planet, they may put 1 PDS or 1 space dock from
-- reinforcements on it (default: a PDS). Both at the end of the Winnu player's turn
-- (the planets gained this action: flag gained on the planet).
hook {
  id = "winnu_planet_gained",
  window = "invasion.planet_gained",
  source = "faction/winnu",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, _, _, args) ctx:set_flag(args.planet, "gained_this_action", "action") end,
}

local function place_structure(ctx, player, t, planet)
  local rec = ctx:record(t, "unit")
  if rec and (rec.reinforcements or 0) > 0 and ctx:count(player, nil, "type:" .. t) >= rec.reinforcements then return end
  local u = ctx:create { kind = "unit", type = t, owner = player, location = planet }
  local record = lib.unit_records(ctx, player)[t]
  if record then ctx:upgrade(u, record) end
  if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":" .. t .. ":" .. ctx:name(planet), ctx:name(player) .. " places a " .. t .. " on " .. ctx:name(planet)) end
end

hook {
  id = "reclamation",
  window = "tactical_action.end_of_turn",
  source = "faction/winnu",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
      if ctx:flag(planet, "gained_this_action") and (ctx:type(planet) == "mecatol_rex" or ctx:name(planet) == "mecatol_rex") then return true end
    end
    return false
  end,
  apply = function(ctx, player)
    for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
      if ctx:flag(planet, "gained_this_action") and (ctx:type(planet) == "mecatol_rex" or ctx:name(planet) == "mecatol_rex") then
        place_structure(ctx, player, "pds", planet)
        place_structure(ctx, player, "space_dock", planet)
      end
    end
  end,
}

hook {
  id = "reclaimer",
  window = "tactical_action.end_of_turn",
  source = "unit/winnu_mech",
  optional = true,
  condition = function(ctx, player, source, args)
    local planet = ctx:location(source)
    return args.player == player and ctx:kind(planet) == "planet" and ctx:flag(planet, "gained_this_action") and ctx:owner(planet) == player
  end,
  apply = function(ctx, player, source) place_structure(ctx, player, "pds", ctx:location(source)) end,
}
