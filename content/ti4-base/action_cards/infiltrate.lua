-- Infiltrate (base action card). In short: on taking a planet, each PDS and space dock there is
-- swapped for one of the same kind from your reinforcements. The procedure (invasion.lua, establish
-- control) destroys the other players' structures on the planet and then opens
-- invasion.planet_gained, args {player, planet, from}. So the card first
-- counts what is destroyed there: on invasion.unit_destroyed, a PDS (a structure with Space
-- Cannon) or a space dock (a structure with Production) of another player destroyed on a planet
-- while the owner is the active player adds to the counter "infiltrate_pds" or
-- "infiltrate_space_dock" on that planet (scope action). Then, on planet_gained, the owner may
-- play it (the default policy: when something was destroyed there): as many PDS and space docks
-- of their own come from reinforcements, with the owner's unit upgrades (PDS II, Space Dock II).
-- Structures lost to earlier steps of the invasion (none in the base game) would count too.
-- Test: tests/cards/infiltrate.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local KINDS = {
  { counter = "infiltrate_pds", type = "pds", attr = "space_cannon" },
  { counter = "infiltrate_space_dock", type = "space_dock", attr = "production" },
}

hook {
  id = "infiltrate_count",
  window = "invasion.unit_destroyed",
  source = "action_card/infiltrate",
  condition = function(ctx, player, _, args)
    return ctx:role("active_player") == player and args.player ~= player and ctx:get(args.unit, "structure")
      and ctx:kind(args.location) == "planet"
  end,
  apply = function(ctx, _, _, args)
    for _, k in ipairs(KINDS) do
      if ctx:get(args.unit, k.attr) > 0 then
        ctx:add_counter(args.location, k.counter, 1, "action")
        return
      end
    end
  end,
}

hook {
  id = "infiltrate",
  window = "invasion.planet_gained",
  source = "action_card/infiltrate",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    return args.player == player and (ctx:counter(args.planet, KINDS[1].counter) + ctx:counter(args.planet, KINDS[2].counter)) > 0
  end,
  apply = function(ctx, player, _, args)
    local records = lib.unit_records(ctx, player)
    for _, k in ipairs(KINDS) do
      local record = records[k.type]
      for _ = 1, ctx:counter(args.planet, k.counter) do
        local u = ctx:create { kind = "unit", type = k.type, owner = player, location = args.planet }
        if record then ctx:upgrade(u, record) end
        if ctx:tracing() then
          -- the key names the record the unit took (pds_ii with PDS II)
          ctx:event("infiltrate:" .. ctx:name(player) .. ":" .. (record or k.type) .. ":" .. ctx:name(args.planet),
            ctx:name(player) .. " places a " .. (record or k.type) .. " of their own on " .. ctx:name(args.planet) .. " (Infiltrate)")
        end
      end
    end
  end,
}
