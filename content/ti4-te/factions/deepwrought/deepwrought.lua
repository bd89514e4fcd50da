-- The Deepwrought Scholarate: the D.W.S. Luminous's movement. Tests: ../../tests/factions/deepwrought.toml
--
-- The D.W.S. Luminous may move through systems that contain its owner's units (in the space area
-- or on a planet), even where other players' ships are, and each such system it moves through
-- adds 1 to its move value (whether or not another player is there; source A's note). The
-- flagship searches its paths alone (tactical_action.move_value's own_passage); for it, each
-- system it could move through (not its start) that holds its owner's units is passable as for a
-- ship that moves through other players' ships (anomalies still hold) and has move_bonus + 1 (a
-- path's cost is one per system moved out of, less its move_bonus). Not optional: a path that
-- does not use it costs the same as without the ability.

local lib = require "lib"  -- scripts/ti4/lib.lua

local own_units_in = lib.in_system  -- (ctx, player, sys): in its space area or on its planets

hook {
  id = "luminous_own_passage",
  window = "tactical_action.move_value",
  source = "unit/deepwrought_flagship",
  condition = function(_, player, source, args) return args.player == player and args.unit == source end,
  apply = function(_, _, _, args) args.own_passage = true end,
}

hook {
  id = "luminous_passage",
  window = "tactical_action.ship_passage",
  source = "unit/deepwrought_flagship",
  condition = function(ctx, player, source, args)
    return args.unit == source and args.system ~= ctx:location(source) and own_units_in(ctx, player, args.system)
  end,
  apply = function(ctx, player, _, args)
    args.can_pass = args.can_pass_through_ships
    args.move_bonus = args.move_bonus + 1
    if ctx:tracing() then
      ctx:event("luminous:" .. ctx:name(player) .. ":" .. ctx:name(args.system),
        "the D.W.S. Luminous may move through " .. ctx:name(args.system) .. " (" .. ctx:name(player) .. "'s units there): +1 move")
    end
  end,
}

-- Research Team: when ground forces are committed to a planet where the Deepwrought and another
-- player both have ground forces (the Deepwrought committing, or another player committing to a
-- planet holding theirs), the Deepwrought may choose that their units there coexist, unless they
-- already do (scripts/ti4/invasion.lua, M.coexistence; whether to is the policy's: decision
-- invasion.use_coexistence, use = { coexistence = "always" }). Coexisting as the active player,
-- they gain no control of the planet; as the other player, they keep none: the active player gains
-- it, their structures stay.
hook {
  id = "research_team",
  window = "invasion.coexistence",
  source = "faction/deepwrought",
  condition = function(ctx, player, _, args)
    return (args.player == player or args.opponent == player) and not lib.coexisting(ctx, args.planet, player)
  end,
  apply = function(_, player, _, args) args.may[player] = true end,
}
