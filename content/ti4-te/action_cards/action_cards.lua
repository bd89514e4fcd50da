-- Thunder's Edge's action cards (action_cards.toml). Tests: ../tests/action_cards.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Rescue: after another player moved ships into a system with the holder's ships, the holder
-- moves 1 ship of theirs into it from any system that holds none of their command tokens (no
-- move value, no path). The default ship is the most costly one that is not a fighter; it comes
-- alone, and capacity is then checked where it left (its fighters and ground forces stay).
local function rescuer(ctx, player, active)
  local ships = {}
  for _, sys in ipairs(ctx:entities { kind = "system" }) do
    if sys ~= active and #ctx:entities { kind = "command_token", owner = player, location = sys } == 0 then
      for _, u in ipairs(ctx:units(player, sys, "ship")) do ships[#ships + 1] = u end
    end
  end
  return lib.most_costly(ctx, ships, function(u) return not ctx:get(u, "fighter") end)
end

hook {
  id = "rescue",
  window = "tactical_action.after_movement",
  source = "action_card/rescue",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    return args.player ~= player and ctx:count(args.player, args.system, "ship") > 0
      and ctx:count(player, args.system, "ship") > 0 and rescuer(ctx, player, args.system) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local u = rescuer(ctx, player, args.system)
    local from = ctx:location(u)
    ctx:move(u, args.system)
    if ctx:tracing() then
      ctx:event("rescue:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. ctx:name(from),
        ctx:name(player) .. " moves a " .. ctx:type(u) .. " from " .. ctx:name(from) .. " into " .. ctx:name(args.system) .. " (Rescue)")
    end
    lib.check_capacity(ctx, player, from)
  end,
}

-- Crash Landing: when the holder's last ship in the active system is destroyed, 1 of their ground
-- forces in its space area lands on a planet there other than Mecatol Rex. The holder's own planets
-- and uncontrolled ones without units first; else a planet with other players' units, where it is
-- placed into coexistence with them (lib.set_coexisting: it does not fight them, and the holder does
-- not gain control; scripts/ti4/invasion.lua's report counts the planet as coexisting when the
-- holder is the active player). Another player's planet without units is not offered (whether
-- landing there changes control is not modelled).
local function landing_site(ctx, player, sys)
  local coexist
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    local owner = ctx:owner(planet)
    if ctx:type(planet) ~= "mecatol_rex" then
      local others = ctx:count(nil, planet) - ctx:count(player, planet)
      if others == 0 and (owner == nil or owner == player) then return planet, false end
      if others > 0 and not coexist then coexist = planet end
    end
  end
  return coexist, coexist ~= nil
end

-- the most costly of the player's ground forces in the space area
local function lander(ctx, player, sys)
  return lib.most_costly(ctx, ctx:units(player, sys, "ground_force"), function(u) return not ctx:get(u, "ship") end)
end

for _, window in ipairs { "space_combat.unit_destroyed", "tactical_action.unit_destroyed" } do
  hook {
    id = "crash_landing_" .. window:gsub("%..*$", ""),
    window = window,
    source = "action_card/crash_landing",
    optional = true,
    discard = true,
    condition = function(ctx, player, _, args)
      local sys = ctx:role("active_system")
      return args.player == player and args.location == sys and ctx:get(args.unit, "ship")
        and ctx:count(player, sys, "ship") == 0 and lander(ctx, player, sys) ~= nil
        and landing_site(ctx, player, sys) ~= nil
    end,
    apply = function(ctx, player)
      local sys = ctx:role("active_system")
      local u = lander(ctx, player, sys)
      local planet, coexist = landing_site(ctx, player, sys)
      ctx:move(u, planet)
      if coexist then lib.set_coexisting(ctx, planet, player) end
      if ctx:tracing() then
        ctx:event("crash_landing:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. ctx:name(planet),
          ctx:name(player) .. "'s " .. ctx:type(u) .. " lands on " .. ctx:name(planet) .. " (Crash Landing)"
          .. (coexist and ", coexisting with the units there" or ""))
        if coexist then ctx:event("coexist:" .. ctx:name(player) .. ":" .. ctx:name(planet), ctx:name(player) .. "'s units on " .. ctx:name(planet) .. " coexist") end
      end
    end,
  }
end
