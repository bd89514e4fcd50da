-- Experimental Battlestation (base action card). In short: once another player has moved ships into
-- a system in a tactical action, one of your space docks in that system or next to it fires as
-- Space Cannon 5 (x3) at the ships in the active system. Window: tactical_action.after_movement,
-- args {player, system}, when the active player has ships there. The dock (one on a planet of the
-- active system, else of an adjacent one) rolls three dice of the kind space_cannon against 5, and
-- the card opens the space cannon windows the procedure opens for Space Cannon Offense, so what
-- reads them applies (Antimass Deflectors, Plasma Scoring, Scramble Frequency; Maneuvering Jets
-- cancels a hit); the active player assigns the hits to their ships there (hit_order, Sustain
-- Damage), then capacity is checked. The default policy plays it whenever it can. A space dock is a
-- structure with Production. The procedure's lost_to_space_cannon metric does not count its kills.
-- Test: tests/cards/experimental_battlestation.toml

local lib = require "lib"  -- scripts/ti4/lib.lua
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua

local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "tactical_action.assign_space_cannon_hits", destroyed_window = "tactical_action.unit_destroyed",
  sustained_window = "tactical_action.unit_sustained_damage" }

local function dock_on(ctx, player, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    for _, u in ipairs(ctx:units(player, planet, "structure")) do
      if ctx:get(u, "production") > 0 then return u end
    end
  end
  return nil
end

local function dock(ctx, player, sys)
  local d = dock_on(ctx, player, sys)
  if d then return d end
  for _, adj in ipairs(galaxy.adjacent(ctx, sys, player)) do  -- as the player sees it (Void Tether)
    if ctx:kind(adj) == "system" then
      d = dock_on(ctx, player, adj)
      if d then return d end
    end
  end
  return nil
end

local check_capacity = lib.check_capacity  -- scripts/ti4/lib.lua

hook {
  id = "experimental_battlestation",
  window = "tactical_action.after_movement",
  source = "action_card/experimental_battlestation",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    return args.player ~= player and ctx:count(args.player, args.system, "ship") > 0 and dock(ctx, player, args.system) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local target, sys = args.player, args.system
    local station = dock(ctx, player, sys)
    if ctx:tracing() then
      ctx:event("experimental_battlestation:" .. ctx:name(player) .. ":" .. ctx:name(ctx:location(station)),
        ctx:name(player) .. "'s space dock on " .. ctx:name(ctx:location(station)) .. " uses Space Cannon 5 (x3) (Experimental Battlestation)")
    end
    local pool = ctx:roll(player, "d10", 3, { purpose = "space_cannon", unit = station, threshold = 5 })
    ctx:open("tactical_action.after_space_cannon_roll", { player = player, pool = pool, purpose = "space_cannon" })
    local h = { player = player, target = target, hits = { [target] = pool:hits() }, sustain_cancels = {} }
    ctx:open("tactical_action.assign_space_cannon_hits", h)
    local hits = math.max(0, h.hits[target])
    if hits > 0 then
      local tp = ctx:policy(target)
      ctx:assign_hits(target, sys, hits, HITS, tp.hit_order, tp.sustain, h.sustain_cancels[target])
      check_capacity(ctx, target, sys)
    end
  end,
}
