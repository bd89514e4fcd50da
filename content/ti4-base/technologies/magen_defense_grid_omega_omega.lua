-- Magen Defense Grid ΩΩ (Codex IV). In short: whenever anyone activates a system holding the
-- owner's structures, each of them gets 1 infantry from reinforcements beside it; and when a ground
-- combat starts on a planet holding one of the owner's structures, 1 hit goes to one of the
-- opponent's ground forces.
--   tactical_action.activation, args {player, system}: for each of the owner's structures in the
--     system (on its planets, or in its space area), 1 infantry (the owner's: Infantry II or the
--     faction's when they have it) is placed where the structure is. Any player's activation, the
--     owner's own too. Infantry have no piece limit.
--   invasion.start_of_ground_combat (round 1 only), args {player, opponent, planet}: the owner, a
--     side with a structure on the planet, produces 1 hit that the opponent assigns (infantry first;
--     a mech may sustain), as Magen Defense Grid Ω does; not optional.
-- Test: tests/cards/magen_defense_grid_omega_omega.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local GROUND_HIT = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "invasion.assign_ground_hits", destroyed_window = "invasion.unit_destroyed",
  sustained_window = "invasion.unit_sustained_damage" }
local INFANTRY_FIRST = { "infantry", "mech" }

-- the owner's structures in the system: its space area and its planets
local function structures(ctx, player, sys)
  local out = {}
  local places = ctx:entities { kind = "planet", location = sys }
  table.insert(places, 1, sys)
  for _, at in ipairs(places) do
    for _, u in ipairs(ctx:units(player, at, "structure")) do out[#out + 1] = u end
  end
  return out
end

hook {
  id = "magen_defense_grid_omega_omega",
  window = "tactical_action.activation",
  source = "technology/magen_defense_grid_omega_omega",
  condition = function(ctx, player, _, args) return #structures(ctx, player, args.system) > 0 end,
  apply = function(ctx, player, _, args)
    for _, s in ipairs(structures(ctx, player, args.system)) do
      local at = ctx:location(s)
      lib.place_units(ctx, player, "infantry", 1, at)
      if ctx:tracing() then
        ctx:event("magen_defense_grid_omega_omega:" .. ctx:name(player) .. ":" .. ctx:name(at),
          ctx:name(player) .. " places 1 infantry on " .. ctx:name(at) .. " with its " .. ctx:type(s) .. " (Magen Defense Grid ΩΩ)")
      end
    end
  end,
}

local function other_side(player, args)
  if args.player == player then return args.opponent end
  if args.opponent == player then return args.player end
  return nil
end

hook {
  id = "magen_defense_grid_omega_omega_hit",
  window = "invasion.start_of_ground_combat",
  source = "technology/magen_defense_grid_omega_omega",
  condition = function(ctx, player, _, args)
    local enemy = other_side(player, args)
    return enemy ~= nil and ctx:count(player, args.planet, "structure") > 0 and ctx:count(enemy, args.planet, "ground_force") > 0
  end,
  apply = function(ctx, player, _, args)
    local enemy = other_side(player, args)
    if ctx:tracing() then
      ctx:event("magen_defense_grid_omega_omega:" .. ctx:name(player) .. ":hit:" .. ctx:name(args.planet),
        ctx:name(player) .. " produces 1 hit against " .. ctx:name(enemy) .. "'s ground forces on " .. ctx:name(args.planet) .. " (Magen Defense Grid ΩΩ)")
    end
    ctx:assign_hits(enemy, args.planet, 1, GROUND_HIT, INFANTRY_FIRST, ctx:policy(enemy).sustain)
  end,
}
