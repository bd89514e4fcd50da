-- Dacxive Animators (base technology). In short: the winner of a ground combat may put 1 infantry
-- from reinforcements on that planet. Window: invasion.end_of_ground_combat (merged with the
-- last round's end), args {player, opponent, planet}: the owner wins when they are one of the two
-- sides and still have ground forces there while the other side has none (attacker or
-- defender alike). The infantry takes the owner's unit record for infantry (faction unit or
-- Infantry II). Optional: the default policy uses it.
-- Test: tests/cards/dacxive_animators.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local function won(ctx, player, args)
  local enemy
  if args.player == player then enemy = args.opponent elseif args.opponent == player then enemy = args.player end
  return enemy ~= nil and ctx:count(player, args.planet, "ground_force") > 0 and ctx:count(enemy, args.planet, "ground_force") == 0
end

hook {
  id = "dacxive_animators",
  window = "invasion.end_of_ground_combat",
  source = "technology/dacxive_animators",
  optional = true,
  condition = function(ctx, player, _, args) return won(ctx, player, args) end,
  apply = function(ctx, player, _, args)
    lib.place_units(ctx, player, "infantry", 1, args.planet)
    if ctx:tracing() then
      ctx:event("dacxive_animators:" .. ctx:name(player) .. ":" .. ctx:name(args.planet),
        ctx:name(player) .. " places 1 infantry on " .. ctx:name(args.planet) .. " (Dacxive Animators)")
    end
  end,
}
