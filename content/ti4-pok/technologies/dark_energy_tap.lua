-- Dark Energy Tap (PoK technology). In short: the owner may retreat into an adjacent system with no
-- other player's units in it, without units or planets of their own there.
-- (Its first sentence, exploring a frontier token after a tactical action, is outside combat: not
-- modelled.) Window: retreat_eligibility, args {player, system, eligible, by_rule}, opened for
-- every adjacent system when a player could announce or carry out a retreat. Rule 7.3 wants the
-- player's own units or planet there and no other player's ships; this technology makes a system
-- with no other player's units at all (ships, ground forces and structures on its planets)
-- eligible too.
--
-- It widens eligibility while the anomaly rules (ti4-base rules/anomalies.lua: nebula,
-- asteroid field, supernova) narrow it, so it must run before them. Hooks of a player always
-- run after hooks that are rules (no source), so this is written as a rule with a higher
-- priority that checks for the technology itself. Test: tests/cards/dark_energy_tap.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Whether a player other than `player` has a unit in `sys`: its space area or its planets.
local function other_units(ctx, player, sys)
  local places = ctx:entities { kind = "planet", location = sys }
  places[#places + 1] = sys
  for _, at in ipairs(places) do
    if ctx:count(nil, at) > ctx:count(player, at) then return true end
  end
  return false
end

hook {
  id = "dark_energy_tap",
  window = "space_combat.retreat_eligibility",
  priority = 10,  -- before the anomaly rules (priority 0), which may still say no
  condition = function(ctx, _, _, args)
    return not args.eligible and lib.owns(ctx, args.player, "dark_energy_tap")
      and not other_units(ctx, args.player, args.system)
  end,
  apply = function(_, _, _, args) args.eligible = true end,
}
