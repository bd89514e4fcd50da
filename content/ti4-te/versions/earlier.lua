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
