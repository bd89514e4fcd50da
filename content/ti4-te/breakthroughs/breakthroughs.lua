-- Thunder's Edge's breakthroughs that act inside the tactical action (breakthroughs.toml).
-- Tests: ../tests/breakthroughs.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Gravleash Maneuvers (Letnev): before each of the player's space combat rolls, one of its ships'
-- dice gets +X, X the number of its ship types in the combat. The die is chosen before the roll,
-- so by its threshold only: the one that gains most (min(X, threshold - 1)), the first such.
hook {
  id = "gravleash_maneuvers",
  window = "space_combat.after_roll",
  source = "technology/gravleash_maneuvers",
  condition = function(_, player, _, args) return args.player == player and args.purpose == "combat" end,
  apply = function(ctx, player, _, args)
    local types, x = {}, 0
    for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "ship")) do
      local t = ctx:type(u)
      if not types[t] then types[t], x = true, x + 1 end
    end
    local pool, best, gain = args.pool, nil, 0
    for i = 1, pool:size() do
      local g = math.min(x, pool:threshold(i) - 1)
      if not pool:cancelled(i) and g > gain then best, gain = i, g end
    end
    if not best then return end
    pool:modify(best, x)
    if ctx:tracing() then
      ctx:event("gravleash:" .. ctx:name(player) .. ":" .. x,
        "Gravleash Maneuvers: +" .. x .. " to one of " .. ctx:name(player) .. "'s " .. ctx:type(pool:unit(best)) .. " dice")
    end
  end,
}

-- Imperator (Winnu): +1 to each of the player's combat rolls, space and ground, for each Support
-- for the Throne in the opponent's play area (the opponent's counter support_for_the_throne).
local function imperator(ctx, player, opponent, pool)
  local n = ctx:counter(opponent, "support_for_the_throne")
  for i = 1, pool:size() do pool:modify(i, n) end
  if ctx:tracing() then ctx:event("imperator:" .. ctx:name(player) .. ":" .. n, "Imperator: +" .. n .. " to " .. ctx:name(player) .. "'s combat rolls") end
end

hook {
  id = "imperator",
  window = "space_combat.after_roll",
  source = "technology/imperator",
  condition = function(ctx, player, _, args)
    return args.player == player and args.purpose == "combat" and ctx:counter(lib.opponent(ctx, player), "support_for_the_throne") > 0
  end,
  apply = function(ctx, player, _, args) imperator(ctx, player, lib.opponent(ctx, player), args.pool) end,
}

hook {
  id = "imperator_ground",
  window = "invasion.after_ground_roll",
  source = "technology/imperator",
  condition = function(ctx, player, _, args)
    return args.player == player and args.purpose == "ground_combat" and ctx:counter(args.opponent, "support_for_the_throne") > 0
  end,
  apply = function(ctx, player, _, args) imperator(ctx, player, args.opponent, args.pool) end,
}

-- Fealty Uplink (L1Z1X): on gaining control of a planet, as many infantry as its influence are
-- placed on it from reinforcements (infantry are not limited: tokens stand in).
hook {
  id = "fealty_uplink",
  window = "invasion.planet_gained",
  source = "technology/fealty_uplink",
  condition = function(ctx, player, _, args) return args.player == player and (ctx:get(args.planet, "influence") or 0) > 0 end,
  apply = function(ctx, player, _, args)
    local n = ctx:get(args.planet, "influence")
    local record = lib.unit_records(ctx, player).infantry
    for _ = 1, n do
      local u = ctx:create { kind = "unit", type = "infantry", owner = player, location = args.planet }
      if record then ctx:upgrade(u, record) end
    end
    if ctx:tracing() then
      ctx:event("fealty_uplink:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. " places " .. n .. " infantry on " .. lib.place(ctx, args.planet) .. " (Fealty Uplink)")
    end
  end,
}
