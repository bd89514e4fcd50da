-- The Ral Nel Consortium: Last Dispatch, Alarum. Tests: ../../tests/factions/ral_nel.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Last Dispatch: when it retreats, its owner may destroy 1 ship without Sustain Damage in the
-- active system, the most costly (lib.retreat_strike).
hook(lib.retreat_strike("last_dispatch", "unit/ral_nel_flagship",
  function(ctx, u) return not ctx:get(u, "sustain_damage") end))

-- Alarum (mech): at the end of a round of a ground combat on its planet, its owner may move up to
-- 2 of their ground forces onto that planet from planets in systems adjacent to it. Used at the
-- end of a round after which the combat goes on (the opponent still has ground forces there, and
-- the Alarum is alive: its owner's forces are too); the default uses it (more forces in the
-- combat). Which forces: those with the best combat value first (a mech before infantry), the
-- adjacent systems and their planets in the galaxy's order; each Alarum there moves up to 2.
local function alarum_forces(ctx, player, planet)
  local out = {}
  for _, sys in ipairs(ctx:adjacent(ctx:location(planet))) do
    for _, p in ipairs(ctx:entities { kind = "planet", location = sys }) do
      for _, u in ipairs(ctx:units(player, p, "ground_force")) do out[#out + 1] = u end
    end
  end
  -- stable: equal combat values keep the order found
  for i = 2, #out do
    local u, j = out[i], i - 1
    while j >= 1 and (ctx:get(out[j], "combat") or 10) > (ctx:get(u, "combat") or 10) do
      out[j + 1] = out[j]
      j = j - 1
    end
    out[j + 1] = u
  end
  return out
end

hook {
  id = "alarum",
  window = "invasion.end_of_ground_round",
  source = "unit/ral_nel_mech",
  optional = true,
  limit = "round",
  condition = function(ctx, player, source, args)
    if player ~= args.player and player ~= args.opponent then return false end
    if ctx:location(source) ~= args.planet then return false end
    local enemy = player == args.player and args.opponent or args.player
    return ctx:count(enemy, args.planet, "ground_force") > 0 and #alarum_forces(ctx, player, args.planet) > 0
  end,
  apply = function(ctx, player, _, args)
    local forces = alarum_forces(ctx, player, args.planet)
    for i = 1, math.min(2, #forces) do
      local u = forces[i]
      if ctx:tracing() then
        ctx:event("alarum:" .. ctx:name(player) .. ":" .. ctx:type(u),
          ctx:name(player) .. "'s " .. ctx:type(u) .. " moves from " .. lib.place(ctx, ctx:location(u)) .. " to " .. lib.place(ctx, args.planet) .. " (Alarum)")
      end
      ctx:move(u, args.planet)
    end
  end,
}
