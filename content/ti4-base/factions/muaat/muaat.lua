-- The Embers of Muaat: Gashlai Physiology (ships move through supernovas) and Magmus Reactor
-- (into them). The anomaly rule (ti4-base rules/anomalies.lua) closes a supernova first; a
-- player's hooks run after the rules, so these open it again for Muaat's ships.
-- Tests: ../../tests/factions/muaat.toml

local lib = require("lib")  -- scripts/ti4/lib.lua
local owns = lib.owns
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua

hook {
  id = "gashlai_physiology",
  window = "tactical_action.passage",
  source = "faction/muaat",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:get(args.system, "anomaly") == "supernova"
  end,
  apply = function(ctx, player, _, args)
    args.can_pass = true
    if owns(ctx, player, "magmus_reactor") or owns(ctx, player, "magmus_reactor_omega") then args.can_end = true end
  end,
}

-- Magmus Reactor Ω (Codex I), its second part: a supernova holding one of the player's units has
-- Production 5, counted as one of their units: in the Production step of a
-- tactical action whose active system is such a supernova, 5 more to the player's limit (the
-- window opens at a limit of 0 when hooked). It has no planet, so what is produced is placed in
-- its space area (production.lua: no dock).
hook {
  id = "magmus_reactor_omega",
  window = "production.start_of_production",
  source = "technology/magmus_reactor_omega",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:get(args.system, "anomaly") == "supernova" and ctx:count(player, args.system) > 0
  end,
  apply = function(ctx, player, _, args)
    args.limit = args.limit + 5
    if ctx:tracing() then ctx:event("magmus_reactor_omega:" .. ctx:name(player) .. ":" .. ctx:name(args.system), ctx:name(player) .. "'s supernova " .. ctx:name(args.system) .. " has Production 5 (Magmus Reactor Ω)") end
  end,
}

-- Magmus Reactor, its second part: the player gets 1 trade good after using Production in a system
-- that holds a war sun or lies next to a supernova.
hook {
  id = "magmus_reactor",
  window = "production.end_of_production",
  source = "technology/magmus_reactor",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    if ctx:count(nil, args.system, "type:war_sun") > 0 then return true end
    for _, s in ipairs(galaxy.adjacent(ctx, args.system, player)) do  -- as the player sees it (Void Tether)
      if ctx:kind(s) == "system" and ctx:get(s, "anomaly") == "supernova" then return true end
    end
    return false
  end,
  apply = function(ctx, player)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") + 1, "game")
    if ctx:tracing() then ctx:event("trade_good:" .. ctx:name(player), ctx:name(player) .. " gains 1 trade good (Magmus Reactor)") end
  end,
}

-- Adjudicator Ba'al (hero), Nova Seed: once a Muaat war sun has moved into a system that is neither
-- a home system nor Mecatol Rex, every other player's unit there may be destroyed and the tile
-- swapped for the Muaat supernova; the hero and the planet cards of the old tile are then purged.
-- After the Muaat player's movement, when one of their war suns moved into the active system: the
-- other players' units there (space area and planets)
-- are destroyed, the planets leave the game and the system becomes a supernova. Default policy:
-- when other players have units there.
local BAAL = "war_sun_moved_in"  -- a flag on the player, scope action

hook {
  id = "adjudicator_ba_al_war_sun",
  window = "tactical_action.ship_moves",
  source = "leader/adjudicator_ba_al",
  condition = function(ctx, player, _, args) return args.player == player and ctx:type(args.unit) == "war_sun" end,
  apply = function(ctx, player) ctx:set_flag(player, BAAL, "action") end,
}

local function mecatol_rex(ctx, sys)
  if ctx:get(sys, "tile") == 18 then return true end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:type(planet) == "mecatol_rex" or ctx:name(planet) == "mecatol_rex" then return true end
  end
  return false
end


hook {
  id = "adjudicator_ba_al",
  window = "tactical_action.after_movement",
  source = "leader/adjudicator_ba_al",
  optional = true,
  discard = true,  -- purged
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:flag(player, BAAL) and ctx:count(player, args.system, "type:war_sun") > 0
      and not ctx:get(args.system, "home") and not mecatol_rex(ctx, args.system) and #lib.other_players_units(ctx, player, args.system, true) > 0
  end,
  apply = function(ctx, player, _, args)
    local sys = args.system
    for _, u in ipairs(lib.other_players_units(ctx, player, sys, true)) do ctx:destroy(u, "tactical_action.unit_destroyed") end
    for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
      for _, u in ipairs(ctx:units(nil, planet)) do ctx:move(u, sys) end  -- the Muaat units there stay in the system
      ctx:move(planet, "reinforcements")  -- purged with its card
    end
    ctx:set(sys, "anomaly", "supernova")
    if ctx:tracing() then ctx:event("nova_seed:" .. ctx:name(player) .. ":" .. ctx:name(sys), ctx:name(sys) .. " becomes the Muaat supernova (Adjudicator Ba'al)") end
  end,
}
