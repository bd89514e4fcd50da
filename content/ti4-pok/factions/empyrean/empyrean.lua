-- The Empyrean: Voidborn, Aetherpassage, the Dynamo, Aetherstream.
-- Tests: ../../tests/factions/empyrean.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Whether another player than `p` and `also` has ships other than fighters in `sys`.
local function blocked_by_others(ctx, sys, p, also)
  for _, q in ipairs(ctx:players()) do
    if q ~= p and q ~= also and ctx:count(q, sys, "ship") > ctx:count(q, sys, "fighter") then return true end
  end
  return false
end

-- Voidborn: the Empyrean ships move as if nebulae were not there. The anomaly rule (a rule hook,
-- run
-- before any player's) forbids passing through a nebula and sets the move value of a ship leaving
-- one to 1; for the Empyrean player's own movement both are undone (passing stays forbidden where
-- another player's ships block it).
hook {
  id = "voidborn",
  window = "tactical_action.passage",
  source = "faction/empyrean",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:get(args.system, "anomaly") == "nebula"
  end,
  apply = function(ctx, player, _, args)
    if not blocked_by_others(ctx, args.system, player) then args.can_pass = true end
    if args.move_limit == 1 then args.move_limit = -1 end
  end,
}

-- Voidborn, retreats: a nebula is open to an Empyrean retreat (space combat notes): the
-- nebula is eligible when the rule of 7.3 makes it so.
hook {
  id = "voidborn_retreat",
  window = "space_combat.retreat_eligibility",
  source = "faction/empyrean",
  condition = function(ctx, player, _, args)
    return args.player == player and not args.eligible and args.by_rule and ctx:get(args.system, "anomaly") == "nebula"
  end,
  apply = function(_, _, _, args) args.eligible = true end,
}

-- Aetherpassage: after any activation, the Empyrean player may let the active player's ships pass
-- through systems holding Empyrean ships. An opponent is not helped by default (helps is
-- false): the Empyrean player allows it only with policy.use = { aetherpassage = "always" } (an ally).
hook {
  id = "aetherpassage",
  window = "tactical_action.activation",
  source = "faction/empyrean",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player ~= player end,
  helps = function() return false end,
  apply = function(ctx, player) ctx:set_flag(player, "aetherpassage", "action") end,
}

hook {
  id = "aetherpassage_passage",
  window = "tactical_action.passage",
  source = "faction/empyrean",
  condition = function(ctx, player, _, args)
    local a = ctx:get(args.system, "anomaly")
    return ctx:flag(player, "aetherpassage") and args.player ~= player and not args.can_pass
      and a ~= "nebula" and a ~= "asteroid_field" and a ~= "supernova"
      and ctx:count(player, args.system, "ship") > ctx:count(player, args.system, "fighter")
      and not blocked_by_others(ctx, args.system, args.player, player)
  end,
  apply = function(_, _, _, args) args.can_pass = true end,
}

-- Dynamo: when a unit of any player in the flagship's system or next to it uses Sustain Damage, the
-- Empyrean player may pay 2 influence to repair it. Space combat, ground combat and space cannon
-- hits on
-- ships (the windows where a unit sustains; a Sustain Damage against bombardment hits opens none:
-- not modelled). Any player's unit; influence: ready planets, then trade goods
-- (lib.spend_influence). Default policy (helps): the Empyrean player's own units, whenever 2
-- influence can be paid; another player's units never.
local function in_reach(ctx, flagship, loc)
  local sys = ctx:kind(loc) == "planet" and ctx:location(loc) or loc
  local here = ctx:location(flagship)
  return here == sys or ctx:is_adjacent(here, sys)
end

-- In the space combat rounds the runtime runs in C++, the declared modifier dynamo_repair
-- (empyrean.toml) does the space combat hook's work where it is all of it: the flagship is in the
-- combat's system (from a system next to it, only the hook repairs; farther, neither), no ready
-- planet of the Empyrean player has influence (the modifier pays trade goods alone), and the
-- player's policy would not repair another player's units (use.dynamo = "always"). Elsewhere the
-- rounds are the procedure's and the hook runs.
local function covered(ctx, player, source, args)
  local here = ctx:location(source)
  if here ~= args.location and ctx:is_adjacent(here, args.location) then return false end
  for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
    if not ctx:flag(planet, "exhausted") and ctx:get(planet, "influence") > 0 then return false end
  end
  local use = ctx:policy(player).use
  local v = use and use.dynamo
  return not (v == true or v == "always" or v == "yes")
end

for _, w in ipairs { { "dynamo", "space_combat.unit_sustained_damage" }, { "dynamo_ground", "invasion.unit_sustained_damage" },
    { "dynamo_space_cannon", "tactical_action.unit_sustained_damage" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "unit/empyrean_flagship",
    optional = true,
    condition = function(ctx, player, source, args)
      return ctx:get(args.unit, "damaged") and in_reach(ctx, source, args.location)
        and lib.influence_available(ctx, player) >= 2
    end,
    helps = function(ctx, player, _, args) return args.player == player end,
    covered = w[1] == "dynamo" and covered or nil,
    apply = function(ctx, player, _, args)
      if lib.spend_influence(ctx, player, 2) then
        ctx:set(args.unit, "damaged", false)
        if ctx:tracing() then
          ctx:event("repaired:" .. ctx:name(args.player) .. ":" .. ctx:type(args.unit), ctx:name(player) .. " repairs the " .. ctx:type(args.unit) .. " (Dynamo)")
        end
      end
    end,
  }
end

-- Aetherstream: when the Empyrean player or a neighbour activates a system next to an anomaly,
-- every ship of the active player may move 1 further for that tactical action. The Empyrean
-- player's own tactical actions (default: used); a neighbour's is not modelled (neighbours are not
-- worked out here).
local function next_to_anomaly(ctx, sys)
  for _, s in ipairs(ctx:adjacent(sys)) do
    if ctx:kind(s) == "system" and ctx:get(s, "anomaly") ~= nil then return true end
  end
  return false
end

hook {
  id = "aetherstream",
  window = "tactical_action.activation",
  source = "technology/aetherstream",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player == player and next_to_anomaly(ctx, args.system) end,
  apply = function(ctx, player) ctx:set_flag(player, "aetherstream", "action") end,
}

hook {
  id = "aetherstream_move",
  window = "tactical_action.move_value",
  source = "technology/aetherstream",
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(player, "aetherstream") end,
  apply = function(_, _, _, args) args.move = args.move + 1 end,
}
