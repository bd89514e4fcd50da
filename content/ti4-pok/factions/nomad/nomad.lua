-- The Nomad: Quantum Manipulator (mech). Tests: ../../tests/factions/nomad.toml

-- While in the space area during a space combat, the mech may use its Sustain Damage to cancel a
-- hit against the player's ships there (it becomes damaged). Default policy: only for a hit that
-- would otherwise destroy a ship, i.e. when no ship there can still sustain (policy sustain not
-- "never"); then as many undamaged mechs as there are such hits.
local function ship_can_sustain(ctx, player, sys)
  if ctx:policy(player).sustain == "never" then return false end
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    if ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then return true end
  end
  return false
end

local function manipulators(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "type:mech")) do
    if not ctx:get(u, "damaged") and ctx:record_id(u):find("nomad_mech", 1, true) then out[#out + 1] = u end
  end
  return out
end

hook {
  id = "quantum_manipulator",
  window = "space_combat.assign_hits",
  source = "unit/nomad_mech",
  optional = true,
  condition = function(ctx, player, source, args)
    local sys = ctx:role("active_system")
    return args.purpose == "space_combat.assign_hits" and (args.hits[player] or 0) > 0 and ctx:location(source) == sys
      and manipulators(ctx, player, sys)[1] == source and not ship_can_sustain(ctx, player, sys)
  end,
  apply = function(ctx, player, _, args)
    local sys = ctx:role("active_system")
    for _, m in ipairs(manipulators(ctx, player, sys)) do
      if args.hits[player] <= 0 then return end
      ctx:set(m, "damaged", true)
      args.hits[player] = args.hits[player] - 1
    end
  end,
}
