-- Thunder's Edge's changes to earlier factions' units (earlier.toml). Tests: ../tests/earlier.toml

-- Eidolon Maximum: repaired at the start of every combat round, space or ground, wherever the
-- combat is that it takes part in (the active system's space area, or the planet fought over).
local function repair(ctx, source)
  if not ctx:get(source, "damaged") then return end
  ctx:set(source, "damaged", false)
  if ctx:tracing() then ctx:event("repaired:" .. ctx:name(ctx:owner(source)) .. ":mech", "the Eidolon Maximum is repaired") end
end

hook {
  id = "eidolon_maximum",
  window = "space_combat.start_of_round",
  source = "unit/naaz_rokha_eidolon_maximum",
  condition = function(ctx, _, source)
    return ctx:get(source, "damaged") and ctx:location(source) == ctx:role("active_system")
  end,
  apply = function(ctx, _, source) repair(ctx, source) end,
}

hook {
  id = "eidolon_maximum_ground",
  window = "invasion.start_of_ground_round",
  source = "unit/naaz_rokha_eidolon_maximum",
  condition = function(ctx, _, source, args)
    return ctx:get(source, "damaged") and ctx:location(source) == args.planet
  end,
  apply = function(ctx, _, source) repair(ctx, source) end,
}

-- The Corsair: while the active system holds another player's ships other than fighters, it may
-- move through systems that contain other players' ships (tactical_action.move_value's
-- through_ships: it searches its own paths; anomalies still hold).
local function others_ships(ctx, player, sys)
  for _, q in ipairs(ctx:players()) do
    if q ~= player and ctx:count(q, sys, "ship") > ctx:count(q, sys, "fighter") then return true end
  end
  return false
end

hook {
  id = "mentak_corsair",
  window = "tactical_action.move_value",
  source = "unit/mentak_corsair",
  condition = function(ctx, player, source, args)
    return args.player == player and args.unit == source and not args.through_ships
      and others_ships(ctx, player, ctx:role("active_system"))
  end,
  apply = function(ctx, player, _, args)
    args.through_ships = true
    if ctx:tracing() then
      ctx:event("corsair_through:" .. ctx:name(player), "the Corsair may move through systems with other players' ships (another player's ships in the active system)")
    end
  end,
}
