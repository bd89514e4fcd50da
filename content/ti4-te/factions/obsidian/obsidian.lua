-- The Obsidian: Vos Hollow. Tests: ../../tests/factions/obsidian.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- the ship of `owner` in the active system of the same type as the destroyed unit
local function same_type(ctx, owner, unit)
  return ctx:units(owner, ctx:role("active_system"), "type:" .. ctx:type(unit))[1]
end

-- Vos Hollow (agent): when a player's ship is destroyed in a combat, exhaust: that player's
-- opponent destroys one of their ships of the same type in the active system. Used when one of
-- the Obsidian's own ships is destroyed (default policy: always, when legal).
hook {
  id = "vos_hollow",
  window = "space_combat.unit_destroyed",
  source = "leader/vos_hollow",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:get(args.unit, "ship")
      and same_type(ctx, lib.opponent(ctx, player), args.unit) ~= nil
  end,
  apply = function(ctx, player, _, args)
    ctx:destroy(same_type(ctx, lib.opponent(ctx, player), args.unit), "space_combat.unit_destroyed")
  end,
}
