-- Upgrade (base action card). In short: played on activating a system where you have ships; one of
-- your cruisers there is swapped for a dreadnought from your reinforcements. Window:
-- tactical_action.activation, args {player, system}. The cruiser goes back to reinforcements (it is
-- not destroyed); the dreadnought takes the player's unit record for dreadnoughts (faction unit or
-- Dreadnought II). Played when the active player has a cruiser there and a dreadnought left in
-- reinforcements (the dreadnought's piece limit, `reinforcements` in units.toml): the default
-- policy.
-- Test: tests/cards/upgrade.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local function cruiser(ctx, player, sys)
  return ctx:units(player, sys, "type:cruiser")[1]
end

local function dreadnought_left(ctx, player)
  local limit = ctx:record("dreadnought", "unit").reinforcements or 0
  return limit == 0 or ctx:count(player, nil, "type:dreadnought") < limit
end

hook {
  id = "upgrade",
  window = "tactical_action.activation",
  source = "action_card/upgrade",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    return args.player == player and cruiser(ctx, player, args.system) ~= nil and dreadnought_left(ctx, player)
  end,
  apply = function(ctx, player, _, args)
    local old = cruiser(ctx, player, args.system)
    ctx:move(old, "reinforcements")
    local u = ctx:create { kind = "unit", type = "dreadnought", owner = player, location = args.system }
    local record = lib.unit_records(ctx, player).dreadnought
    if record then ctx:upgrade(u, record) end
    if ctx:tracing() then
      -- the key names the record the dreadnought took (dreadnought_ii with Dreadnought II)
      ctx:event("upgrade:" .. ctx:name(player) .. ":" .. ctx:name(args.system) .. ":" .. (record or "dreadnought"),
        ctx:name(player) .. " replaces a cruiser in " .. ctx:name(args.system) .. " with a " .. (record or "dreadnought") .. " (Upgrade)")
    end
  end,
}
