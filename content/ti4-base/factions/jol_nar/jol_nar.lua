-- The Universities of Jol-Nar: the flagship's extra hits (Fragile and the mech are modifiers in
-- jol_nar.toml). Tests: ../../tests/factions/jol_nar.toml

-- J.N.S. Hylarim: each of its combat dice showing 9 or 10 before modifiers (Fragile's -1 does not
-- count) produces 2 more hits. A die that was rerolled counts by its new face.
hook {
  id = "jns_hylarim",
  window = "space_combat.after_roll",
  source = "unit/jol_nar_flagship",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player, source, args)
    local pool, n = args.pool, 0
    for i = 1, pool:size() do
      if pool:unit(i) == source and pool:value(i) >= 9 then n = n + 1 end
    end
    if n > 0 then
      args.extra_hits = args.extra_hits + 2 * n
      if ctx:tracing() then
        ctx:event("jns_hylarim:" .. ctx:name(player) .. ":" .. 2 * n, ctx:name(player) .. "'s flagship rolled " .. n .. " nine or ten: " .. 2 * n .. " more hits")
      end
    end
  end,
}

-- Spatial Conduit Cylinder: on activating a system holding a Jol-Nar unit, the card may be
-- exhausted to make that system, for this activation, adjacent to every other system holding a
-- Jol-Nar unit. The active system is linked (kind "spatial_conduit") to every
-- system holding a Jol-Nar unit. Default policy: when a Jol-Nar ship elsewhere cannot reach the
-- active system with its move value through adjacent systems.
local lib = require "lib"  -- scripts/ti4/lib.lua

local units_in = lib.in_system  -- (ctx, player, sys): the player's units in its space or on its planets

hook {
  id = "spatial_conduit_cylinder",
  window = "tactical_action.activation",
  source = "technology/spatial_conduit_cylinder",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    return args.player == player and units_in(ctx, player, args.system)
  end,
  helps = function(ctx, player, _, args)
    for _, u in ipairs(ctx:units(player, nil, "move")) do
      local at = ctx:location(u)
      if ctx:get(u, "ship") and at ~= args.system and ctx:kind(at) == "system"
          and lib.steps_between(ctx, at, args.system, ctx:get(u, "move")) == nil then
        return true
      end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    for _, sys in ipairs(ctx:entities { kind = "system" }) do
      if sys ~= args.system and units_in(ctx, player, sys) and not ctx:is_adjacent(args.system, sys) then
        ctx:link(args.system, sys, "spatial_conduit")
      end
    end
    if ctx:tracing() then ctx:event("spatial_conduit_cylinder:" .. ctx:name(player), ctx:name(args.system) .. " is adjacent to every system with " .. ctx:name(player) .. "'s units (Spatial Conduit Cylinder)") end
  end,
}

-- E-res Siphons: the Jol-Nar player gets 4 trade goods when another player activates a system
-- holding a Jol-Nar ship.
hook {
  id = "e_res_siphons",
  window = "tactical_action.activation",
  source = "technology/e_res_siphons",
  condition = function(ctx, player, _, args) return args.player ~= player and ctx:count(player, args.system, "ship") > 0 end,
  apply = function(ctx, player)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") + 4, "game")
    if ctx:tracing() then ctx:event("trade_goods:" .. ctx:name(player) .. ":4", ctx:name(player) .. " gains 4 trade goods (E-res Siphons)") end
  end,
}
