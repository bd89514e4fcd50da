-- Magen Defense Grid Omega (Codex I). In short: when a ground combat starts on a planet holding one
-- of the owner's structures, the owner may make 1 hit on one of the opponent's ground forces.
-- Window: invasion.start_of_ground_combat (round 1 only: merged with the start of its
-- first round), args {player, opponent, planet}: the owner is one of the two sides and has a
-- structure there (PDS, space dock). The owner assigns the hit: an infantry before a mech; a mech
-- may still use Sustain Damage by its owner's sustain policy. The default policy uses it.
-- (Its later version, Magen Defense Grid ΩΩ of Codex IV, which also places infantry when the system
-- is activated, is magen_defense_grid_omega_omega.)
-- Test: tests/cards/magen_defense_grid_omega.toml

local GROUND_HIT = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "invasion.assign_ground_hits", destroyed_window = "invasion.unit_destroyed",
  sustained_window = "invasion.unit_sustained_damage" }
local INFANTRY_FIRST = { "infantry", "mech" }

local function other_side(player, args)
  if args.player == player then return args.opponent end
  if args.opponent == player then return args.player end
  return nil
end

hook {
  id = "magen_defense_grid_omega",
  window = "invasion.start_of_ground_combat",
  source = "technology/magen_defense_grid_omega",
  optional = true,
  condition = function(ctx, player, _, args)
    local enemy = other_side(player, args)
    return enemy ~= nil and ctx:count(player, args.planet, "structure") > 0 and ctx:count(enemy, args.planet, "ground_force") > 0
  end,
  apply = function(ctx, player, _, args)
    local enemy = other_side(player, args)
    if ctx:tracing() then
      ctx:event("magen_defense_grid_omega:" .. ctx:name(player) .. ":" .. ctx:name(args.planet),
        ctx:name(player) .. " produces 1 hit against " .. ctx:name(enemy) .. "'s ground forces on " .. ctx:name(args.planet) .. " (Magen Defense Grid Ω)")
    end
    ctx:assign_hits(enemy, args.planet, 1, GROUND_HIT, INFANTRY_FIRST, ctx:policy(enemy).sustain)
  end,
}
