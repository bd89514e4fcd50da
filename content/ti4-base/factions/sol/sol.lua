-- The Federation of Sol: Claire Gibson (commander). Tests: ../../tests/factions/sol.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- At the start of a ground combat on a planet the player controls, 1 infantry from reinforcements
-- (unlimited: infantry have no piece limit) joins it; the player's infantry record (Spec Ops).
hook {
  id = "claire_gibson",
  window = "invasion.start_of_ground_combat",
  source = "leader/claire_gibson",
  optional = true,
  condition = function(ctx, player, _, args)
    return ctx:owner(args.planet) == player and (args.player == player or args.opponent == player)
  end,
  apply = function(ctx, player, _, args)
    local u = ctx:create { kind = "unit", type = "infantry", owner = player, location = args.planet }
    local record = lib.unit_records(ctx, player).infantry
    if record then ctx:upgrade(u, record) end
    if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":infantry", ctx:name(player) .. " places 1 infantry on " .. ctx:name(args.planet) .. " (Claire Gibson)") end
  end,
}
