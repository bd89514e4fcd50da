-- The Firmament: Heaven's Eye. Tests: ../../tests/factions/firmament.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Heaven's Eye: if the active system holds units of a player with a control token on one of the
-- Firmament's plots (that player's counter `puppeted`, scenario `counters = { puppeted = 1 }`),
-- it is repaired at the end of every combat round, and (below) it has +1 to its move value.
hook {
  id = "heavens_eye",
  window = "space_combat.end_of_round",
  source = "unit/firmament_flagship",
  condition = function(ctx, player, source)
    local sys = ctx:role("active_system")
    local enemy = lib.opponent(ctx, player)
    return ctx:location(source) == sys and ctx:get(source, "damaged") and ctx:counter(enemy, "puppeted") > 0
      and ctx:count(enemy, sys) > 0
  end,
  apply = function(ctx, _, source)
    ctx:set(source, "damaged", false)
    if ctx:tracing() then ctx:event("repaired:" .. ctx:name(ctx:owner(source)) .. ":flagship", "Heaven's Eye is repaired") end
  end,
}

-- Whether a player other than `owner` with a control token on one of the Firmament's plots (the
-- counter `puppeted`) has units in `sys`: in its space area or on one of its planets.
local function puppet_in(ctx, owner, sys)
  for _, q in ipairs(ctx:players()) do
    if q ~= owner and ctx:counter(q, "puppeted") > 0 and lib.in_system(ctx, q, sys) then return true end
  end
  return false
end

-- Heaven's Eye's movement: when its owner's tactical action activates a system holding a puppeted
-- player's units, the flagship's move value is 1 more (not optional: it never hurts).
hook {
  id = "heavens_eye_move",
  window = "tactical_action.move_value",
  source = "unit/firmament_flagship",
  condition = function(ctx, player, source, args)
    return args.player == player and args.unit == source and puppet_in(ctx, player, ctx:role("active_system"))
  end,
  apply = function(ctx, player, _, args)
    args.move = args.move + 1
    if ctx:tracing() then
      ctx:event("heavens_eye_move:" .. ctx:name(player), "Heaven's Eye gets +1 move (a puppeted player's units in the active system): " .. args.move)
    end
  end,
}

-- Viper EX-23 (mech): when another player commits ground forces to the planet it is on, its owner
-- may choose that their units there coexist with the committing player's, unless they already do
-- (scripts/ti4/invasion.lua, M.coexistence; decision invasion.use_coexistence). The committing
-- player then gains control of the planet as usual, and the owner's structures there stay.
hook {
  id = "viper_ex_23",
  window = "invasion.coexistence",
  source = "unit/firmament_mech",
  condition = function(ctx, player, source, args)
    return args.opponent == player and ctx:location(source) == args.planet and not lib.coexisting(ctx, args.planet, player)
  end,
  apply = function(_, player, _, args) args.may[player] = true end,
}
