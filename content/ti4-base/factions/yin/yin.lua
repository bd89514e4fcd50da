-- The Yin Brotherhood: Devotion and Impulse Core. Tests: ../../tests/factions/yin.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }
-- Impulse Core's hit: a non-fighter ship
local NON_FIGHTER_HIT = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  types = { "destroyer", "cruiser", "carrier", "dreadnought", "war_sun", "flagship", "mech" },
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }

local function cost(ctx, u)
  return (ctx:get(u, "cost") or 0) / math.max(1, ctx:get(u, "units_per_cost") or 1)
end

-- the player's cheapest cruiser or destroyer in the active system
local function offering(ctx, player, sys)
  local best
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    local t = ctx:type(u)
    if (t == "cruiser" or t == "destroyer") and (not best or cost(ctx, u) < cost(ctx, best)) then best = u end
  end
  return best
end

-- Whether the default policy trades `u` for a hit: the player keeps another ship, and every ship
-- the opponent could lose to the hit (non-fighters only, when `non_fighters`) costs at least as much.
local function worth_it(ctx, player, u, sys, non_fighters)
  if ctx:count(player, sys, "ship") < 2 then return false end
  local cheapest
  for _, e in ipairs(ctx:units(lib.opponent(ctx, player), sys, "ship")) do
    if not (non_fighters and ctx:get(e, "fighter")) then
      if not cheapest or cost(ctx, e) < cheapest then cheapest = cost(ctx, e) end
    end
  end
  return cheapest ~= nil and cheapest >= cost(ctx, u)
end

local function wants(ctx, player, name, u, sys, non_fighters)
  local use = ctx:policy(player).use
  if use and (use[name] == "always" or use[name] == true) then return true end
  return worth_it(ctx, player, u, sys, non_fighters)
end

-- Devotion: after each round of space combat, destroy 1 cruiser or destroyer to produce 1 hit
-- against the opponent's ships (the opponent assigns it).
hook {
  id = "devotion",
  window = "space_combat.end_of_round",
  source = "faction/yin",
  optional = true,
  condition = function(ctx, player)
    local sys = ctx:role("active_system")
    local u = offering(ctx, player, sys)
    return u ~= nil and ctx:count(lib.opponent(ctx, player), sys, "ship") > 0 and wants(ctx, player, "devotion", u, sys, false)
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    ctx:destroy(offering(ctx, player, sys), "space_combat.unit_destroyed")
    local enemy = lib.opponent(ctx, player)
    ctx:assign_hits(enemy, sys, 1, HITS, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain)
  end,
}

-- Impulse Core: at the start of a space combat, destroy 1 cruiser or destroyer to produce 1 hit
-- against a non-fighter ship of the opponent's (the opponent assigns it).
hook {
  id = "impulse_core",
  window = "space_combat.start_of_combat",
  source = "technology/impulse_core",
  optional = true,
  condition = function(ctx, player)
    local sys = ctx:role("active_system")
    local u = offering(ctx, player, sys)
    if not u then return false end
    local any = false
    for _, e in ipairs(ctx:units(lib.opponent(ctx, player), sys, "ship")) do
      if not ctx:get(e, "fighter") then any = true end
    end
    return any and wants(ctx, player, "impulse_core", u, sys, true)
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    ctx:destroy(offering(ctx, player, sys), "space_combat.unit_destroyed")
    local enemy = lib.opponent(ctx, player)
    ctx:assign_hits(enemy, sys, 1, NON_FIGHTER_HIT, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain)
  end,
}

-- Van Hauge: when it is destroyed, every ship in its system is destroyed (its owner's too).
hook {
  id = "van_hauge",
  window = "space_combat.unit_destroyed",
  source = "faction/yin",
  condition = function(ctx, player, _, args)
    return args.player == player and args.location ~= nil and ctx:record_id(args.unit):find("yin_flagship", 1, true) ~= nil
      and ctx:count(nil, args.location, "ship") > 0
  end,
  apply = function(ctx, _, _, args)
    for _, u in ipairs(ctx:units(nil, args.location, "ship")) do ctx:destroy(u, "space_combat.unit_destroyed") end
  end,
}
