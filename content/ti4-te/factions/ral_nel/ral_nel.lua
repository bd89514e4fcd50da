-- The Ral Nel Consortium: Last Dispatch. Tests: ../../tests/factions/ral_nel.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- the most costly ship without Sustain Damage of the opponent left in the active system
local function target(ctx, player)
  local best
  for _, u in ipairs(ctx:units(lib.opponent(ctx, player), ctx:role("active_system"), "ship")) do
    if not ctx:get(u, "sustain_damage") and (not best or lib.unit_cost(ctx, u) > lib.unit_cost(ctx, best)) then best = u end
  end
  return best
end

-- Last Dispatch: when it retreats, its owner may destroy 1 ship without Sustain Damage in the
-- active system (the opponent's: the owner's own ships there have retreated with it).
hook {
  id = "last_dispatch",
  window = "space_combat.retreat",
  source = "unit/ral_nel_flagship",
  optional = true,
  condition = function(ctx, player, source, args)
    if args.player ~= player then return false end
    local with_it = false
    for _, u in ipairs(args.units or {}) do
      if u == source then with_it = true end
    end
    return with_it and target(ctx, player) ~= nil
  end,
  apply = function(ctx, player)
    ctx:destroy(target(ctx, player), "space_combat.unit_destroyed")
  end,
}
