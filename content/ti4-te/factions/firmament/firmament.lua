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

-- Myru Vos (agent): when a player moves ships, its owner may exhaust it: no Space Cannon may be
-- used against those ships, and those not transporting units may also move through other
-- players' ships. Used at the start of the active player's movement, for that player's ships
-- (the counter `myru_vos` on the mover, scope action). The condition allows it for any active
-- player with a ship that may move; the default uses it for its owner's own ships only (`helps`:
-- another player's ships protected from the owner's own Space Cannon never help it).
--   - Space Cannon: Space Cannon Offense at the mover's ships in the active system is forbidden
--     when every one of them moved this action (each marked as it moves, window
--     tactical_action.ship_moves); ships that were there already may still be fired at, and then
--     the procedure fires as usual (README: not modelled).
--   - Passage: ships without capacity (they cannot be transporting units) move through systems
--     with other players' ships (tactical_action.move_value's through_ships); a ship with
--     capacity that would move empty is not given it (README).
local function mover_ships_here(ctx, mover, sys)
  local ships = ctx:units(mover, sys, "ship")
  if #ships == 0 then return false end
  for _, u in ipairs(ships) do
    if ctx:counter(u, "myru_vos_moved") == 0 then return false end
  end
  return true
end

hook {
  id = "myru_vos",
  window = "tactical_action.before_movement",
  source = "leader/myru_vos",
  optional = true,
  limit = "game",
  condition = function(ctx, _, _, args)
    for _, u in ipairs(ctx:units(args.player, nil, "ship")) do
      local at = ctx:location(u)
      if at ~= args.system and ctx:kind(at) == "system" and (ctx:get(u, "move") or 0) > 0 then return true end
    end
    return false
  end,
  helps = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player, _, args)
    ctx:set_counter(args.player, "myru_vos", 1, "action")
    if ctx:tracing() then
      ctx:event("myru_vos:" .. ctx:name(args.player), ctx:name(player) .. " exhausts Myru Vos for " .. ctx:name(args.player)
        .. "'s ships: no Space Cannon against them; those without capacity move through other players' ships")
    end
  end,
}

hook {
  id = "myru_vos_passage",
  window = "tactical_action.move_value",
  source = "leader/myru_vos",
  condition = function(ctx, _, _, args)
    return ctx:counter(args.player, "myru_vos") > 0 and not args.through_ships and (ctx:get(args.unit, "capacity") or 0) == 0
  end,
  apply = function(_, _, _, args) args.through_ships = true end,
}

hook {
  id = "myru_vos_moved",
  window = "tactical_action.ship_moves",
  source = "leader/myru_vos",
  condition = function(ctx, _, _, args) return ctx:counter(args.player, "myru_vos") > 0 end,
  apply = function(ctx, _, _, args) ctx:set_counter(args.unit, "myru_vos_moved", 1, "action") end,
}

hook {
  id = "myru_vos_space_cannon",
  window = "tactical_action.before_space_cannon_offense",
  source = "leader/myru_vos",
  condition = function(ctx, _, _, args)
    return args.can_fire and ctx:counter(args.target, "myru_vos") > 0 and mover_ships_here(ctx, args.target, args.system)
  end,
  apply = function(ctx, _, _, args)
    args.can_fire = false
    if ctx:tracing() then
      ctx:event("myru_vos_no_space_cannon:" .. ctx:name(args.player), ctx:name(args.player) .. " cannot fire Space Cannon at "
        .. ctx:name(args.target) .. "'s ships that moved (Myru Vos)")
    end
  end,
}
