-- The Argent Flight: Trrakan Aun Zulok (commander) and Strike Wing Ambuscade (promissory note):
-- for a roll made for a unit ability, one of the units rolling gets 1 extra die. Unit abilities:
-- Anti-Fighter Barrage, Bombardment, Space Cannon (offense and defense); not combat rolls. The unit
-- chosen: the one whose die hits most easily. The note is then returned to the Argent player (here:
-- discarded); its default policy plays it on the first such roll. Tests:
-- ../../tests/factions/argent.toml

local WINDOWS = {
  "space_combat.after_anti_fighter_barrage_roll", "invasion.after_bombardment_roll",
  "tactical_action.after_space_cannon_roll", "invasion.after_space_cannon_defense_roll",
}
local SHORT = { "afb", "bombardment", "space_cannon", "space_cannon_defense" }

-- the pool's die (not cancelled) with the lowest threshold: its unit rolls the extra die
local function best_die(pool)
  local best
  for i = 1, pool:size() do
    if not pool:cancelled(i) and (not best or pool:threshold(i) < pool:threshold(best)) then best = i end
  end
  return best
end

for k, window in ipairs(WINDOWS) do
  hook {
    id = "trrakan_aun_zulok_" .. SHORT[k],
    window = window,
    source = "leader/trrakan_aun_zulok",
    condition = function(_, player, _, args) return args.player == player and best_die(args.pool) ~= nil end,
    apply = function(_, _, _, args) args.pool:add(1, best_die(args.pool)) end,
  }
  hook {
    id = "strike_wing_ambuscade_" .. SHORT[k],
    window = window,
    source = "promissory_note/strike_wing_ambuscade",
    optional = true,
    discard = true,
    condition = function(_, player, _, args) return args.player == player and best_die(args.pool) ~= nil end,
    apply = function(_, _, _, args) args.pool:add(1, best_die(args.pool)) end,
  }
end

local lib = require "lib"  -- scripts/ti4/lib.lua

local function cost(ctx, u)
  return (ctx:get(u, "cost") or 0) / math.max(1, ctx:get(u, "units_per_cost") or 1)
end

-- Raid Formation: each Anti-Fighter Barrage hit beyond the opponent's fighters makes 1 of their
-- ships with Sustain Damage damaged (the Argent player picks: the most costly undamaged one).
hook {
  id = "raid_formation",
  window = "space_combat.assign_hits",
  source = "faction/argent",
  condition = function(ctx, player, _, args)
    if args.purpose ~= "space_combat.assign_afb_hits" then return false end
    local enemy = lib.opponent(ctx, player)
    return (args.hits[enemy] or 0) > ctx:count(enemy, ctx:role("active_system"), "fighter")
  end,
  apply = function(ctx, player, _, args)
    local enemy, sys = lib.opponent(ctx, player), ctx:role("active_system")
    local excess = args.hits[enemy] - ctx:count(enemy, sys, "fighter")
    local ships = {}
    for _, u in ipairs(ctx:units(enemy, sys, "ship")) do
      if ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then ships[#ships + 1] = u end
    end
    table.sort(ships, function(x, y)
      if cost(ctx, x) ~= cost(ctx, y) then return cost(ctx, x) > cost(ctx, y) end
      return x < y
    end)
    for i = 1, math.min(excess, #ships) do
      ctx:set(ships[i], "damaged", true)
      if ctx:tracing() then ctx:event("raid_formation:" .. ctx:name(enemy) .. ":" .. ctx:type(ships[i]), ctx:name(enemy) .. "'s " .. ctx:type(ships[i]) .. " is damaged (Raid Formation)") end
    end
  end,
}

-- Strike Wing Alpha II: each of its Anti-Fighter Barrage results of 9 or 10 (before modifiers)
-- destroys 1 of the opponent's infantry in the space area (lib.barrage_kills_infantry).
hook(lib.barrage_kills_infantry("strike_wing_alpha_ii", "unit/strike_wing_alpha_ii"))

-- Quetzecoatl: in the flagship's system, no other player may fire Space Cannon at the Argent ships.
-- Space
-- Cannon Offense at the active system holding the flagship: no other player fires at the Argent
-- player's ships. (Space Cannon Defense fires at ground forces, not ships: it is not affected.)
hook {
  id = "quetzecoatl",
  window = "tactical_action.before_space_cannon_offense",
  source = "unit/argent_flagship",
  condition = function(ctx, player, source, args)
    return args.target == player and args.player ~= player and args.can_fire and ctx:location(source) == args.system
  end,
  apply = function(_, _, _, args) args.can_fire = false end,
}

-- Aerie Hololattice: other players' ships may not pass through a system holding an Argent
-- structure. Asked once per system of another player's movement: a system with one of the Argent
-- player's structures on its planets (or in its space area) cannot be passed; it can still be
-- moved into (the active system). Light/Wave Deflector does not override it (its hook is the
-- active player's and runs first).
local function has_structure(ctx, player, sys)
  if ctx:count(player, sys, "structure") > 0 then return true end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:count(player, planet, "structure") > 0 then return true end
  end
  return false
end

hook {
  id = "aerie_hololattice",
  window = "tactical_action.passage",
  source = "technology/aerie_hololattice",
  condition = function(ctx, player, _, args)
    return args.player ~= player and args.can_pass and has_structure(ctx, player, args.system)
  end,
  apply = function(_, _, _, args) args.can_pass = false end,
}
