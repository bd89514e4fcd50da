-- The Embers of Muaat: Gashlai Physiology (ships move through supernovas) and Magmus Reactor
-- (into them). The anomaly rule (ti4-base rules/anomalies.lua) closes a supernova first; a
-- player's hooks run after the rules, so these open it again for Muaat's ships.
-- Tests: ../../tests/factions/muaat.toml

local owns = require("lib").owns  -- scripts/ti4/lib.lua

hook {
  id = "gashlai_physiology",
  window = "tactical_action.passage",
  source = "faction/muaat",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:get(args.system, "anomaly") == "supernova"
  end,
  apply = function(ctx, player, _, args)
    args.can_pass = true
    if owns(ctx, player, "magmus_reactor") then args.can_end = true end
  end,
}
