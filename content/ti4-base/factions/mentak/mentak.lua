-- The Mentak Coalition: Ambush. Tests: ../../tests/factions/mentak.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }

-- up to 2 cruisers or destroyers: the ones most likely to hit (lowest combat value) first
local function ambushers(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    local t = ctx:type(u)
    if t == "cruiser" or t == "destroyer" then out[#out + 1] = u end
  end
  table.sort(out, function(a, b)
    local ca, cb = ctx:get(a, "combat"), ctx:get(b, "combat")
    if ca ~= cb then return ca < cb end
    return a < b
  end)
  return out
end

-- At the start of a space combat, 1 die for each of up to 2 of the player's cruisers or
-- destroyers, against that ship's combat value (a roll of its own kind, "ambush": combat
-- modifiers do not apply); the opponent assigns the hits to their ships.
hook {
  id = "ambush",
  window = "space_combat.start_of_combat",
  source = "faction/mentak",
  optional = true,
  condition = function(ctx, player)
    return #ambushers(ctx, player, ctx:role("active_system")) > 0
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    local hits = 0
    for i, u in ipairs(ambushers(ctx, player, sys)) do
      if i > 2 then break end
      local pool = ctx:roll(player, "d10", 1, { purpose = "ambush", unit = u, threshold = ctx:get(u, "combat") })
      hits = hits + pool:hits()
    end
    local enemy = lib.opponent(ctx, player)
    if hits > 0 then ctx:assign_hits(enemy, sys, hits, HITS, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain) end
  end,
}

-- Fourth Moon: other players' ships in its system cannot use Sustain Damage. At the start of a
-- space combat with the flagship in the active system, the other players' ships there lose the
-- ability (marked with a flag for the combat); they get it back at the end of the combat, or as
-- soon as the flagship is destroyed.
local SUPPRESSED = "fourth_moon"

local function restore(ctx)
  for _, u in ipairs(ctx:entities { kind = "unit" }) do
    if ctx:flag(u, SUPPRESSED) then ctx:set(u, "sustain_damage", true) end
  end
end

hook {
  id = "fourth_moon",
  window = "space_combat.start_of_combat",
  source = "unit/mentak_flagship",
  condition = function(ctx, _, source) return ctx:location(source) == ctx:role("active_system") end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    for _, q in ipairs(ctx:players()) do
      if q ~= player then
        for _, u in ipairs(ctx:units(q, sys, "ship")) do
          if ctx:get(u, "sustain_damage") then
            ctx:set(u, "sustain_damage", false)
            ctx:set_flag(u, SUPPRESSED, "combat")
          end
        end
      end
    end
  end,
}

hook {
  id = "fourth_moon_destroyed",
  window = "space_combat.unit_destroyed",
  source = "faction/mentak",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:record_id(args.unit):find("mentak_flagship", 1, true) ~= nil
  end,
  apply = function(ctx) restore(ctx) end,
}

hook {
  id = "fourth_moon_end",
  window = "space_combat.end_of_combat",
  source = "faction/mentak",
  apply = function(ctx) restore(ctx) end,
}

-- Moll Terminus (mech): other players' ground forces on its planet cannot use Sustain Damage. At
-- the start of a ground combat on a planet holding one, the opponent's ground forces there lose
-- the ability until the end of that ground combat, or until no Moll Terminus is left there.
local GROUND_SUPPRESSED = "moll_terminus"

local function restore_ground(ctx)
  for _, u in ipairs(ctx:entities { kind = "unit" }) do
    if ctx:flag(u, GROUND_SUPPRESSED) then ctx:set(u, "sustain_damage", true) end
  end
end

hook {
  id = "moll_terminus",
  window = "invasion.start_of_ground_combat",
  source = "unit/mentak_mech",
  limit = "combat",
  condition = function(ctx, player, source, args)
    return ctx:location(source) == args.planet and (args.player == player or args.opponent == player)
  end,
  apply = function(ctx, player, _, args)
    local opponent = player == args.player and args.opponent or args.player
    for _, u in ipairs(ctx:units(opponent, args.planet, "ground_force")) do
      if ctx:get(u, "sustain_damage") then
        ctx:set(u, "sustain_damage", false)
        ctx:set_flag(u, GROUND_SUPPRESSED, "combat")
      end
    end
  end,
}

hook {
  id = "moll_terminus_destroyed",
  window = "invasion.unit_destroyed",
  source = "faction/mentak",
  condition = function(ctx, player, _, args)
    if args.player ~= player or not ctx:record_id(args.unit):find("mentak_mech", 1, true) then return false end
    for _, m in ipairs(ctx:units(player, args.location, "type:mech")) do
      if ctx:record_id(m):find("mentak_mech", 1, true) then return false end  -- another one is still there
    end
    return true
  end,
  apply = function(ctx) restore_ground(ctx) end,
}

hook {
  id = "moll_terminus_end",
  window = "invasion.end_of_ground_combat",
  source = "faction/mentak",
  apply = function(ctx) restore_ground(ctx) end,
}
