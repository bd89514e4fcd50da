-- Dark Energy Tap (PoK technology). Window: retreat_eligibility, args {player, system,
-- eligible, by_rule}, opened for every adjacent system when a player could announce or carry
-- out a retreat. Rule 7.3 wants the player's own units or planet there and no other player's
-- ships; this technology drops the first half only.
--
-- It widens eligibility while the anomaly rules (ti4-base rules/anomalies.lua: nebula,
-- asteroid field, supernova) narrow it, so it must run before them. Hooks of a player always
-- run after hooks that are rules (no source), so this is written as a rule with a higher
-- priority that checks for the technology itself. Test: tests/dark_energy_tap.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

hook {
  id = "dark_energy_tap",
  window = "space_combat.retreat_eligibility",
  priority = 10,  -- before the anomaly rules (priority 0), which may still say no
  condition = function(ctx, _, _, args)
    return not args.eligible and lib.owns(ctx, args.player, "dark_energy_tap")
      and not lib.other_ships(ctx, args.player, args.system)
  end,
  apply = function(_, _, _, args) args.eligible = true end,
}
