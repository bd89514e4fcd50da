-- Sardakk N'orr: the abilities that need logic (the numbers are modifiers in sardakk_norr.toml).
-- Tests: ../../tests/factions/sardakk_norr.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- a hit a hook produces against ground forces, as a ground combat hit (it may be sustained)
local GROUND_HIT = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "invasion.assign_ground_hits", destroyed_window = "invasion.unit_destroyed",
  sustained_window = "invasion.unit_sustained_damage" }
local GROUND_ORDER = { "infantry", "mech" }

-- The other player with ground forces on `planet`.
local function ground_opponent(ctx, player, planet)
  for _, q in ipairs(ctx:players()) do
    if q ~= player and ctx:count(q, planet, "ground_force") > 0 then return q end
  end
end

-- Valkyrie Exoskeleton (mech): after it uses Sustain Damage during ground combat, 1 hit against
-- the opponent's ground forces on the planet. The window is opened by ground combat hits only
-- (not bombardment or space cannon defense, whose hits it may also sustain).
hook {
  id = "valkyrie_exoskeleton",
  window = "invasion.unit_sustained_damage",
  source = "unit/sardakk_norr_mech",
  condition = function(ctx, player, source, args)
    return args.unit == source and ground_opponent(ctx, player, args.location) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local q = ground_opponent(ctx, player, args.location)
    if ctx:tracing() then
      ctx:event("valkyrie_exoskeleton:" .. ctx:name(player), ctx:name(player) .. "'s mech sustained damage: 1 hit against " .. ctx:name(q))
    end
    ctx:assign_hits(q, args.location, 1, GROUND_HIT, GROUND_ORDER, ctx:policy(q).sustain)
  end,
}

-- Valkyrie Particle Weave: after the rolls of a ground combat round, if the opponent produced 1 or
-- more hits, 1 more hit against the opponent.
hook {
  id = "valkyrie_particle_weave",
  window = "invasion.assign_ground_hits",
  source = "technology/valkyrie_particle_weave",
  condition = function(_, player, _, args) return (args.hits[player] or 0) > 0 end,
  apply = function(ctx, player, _, args)
    for _, q in ipairs(ctx:players()) do
      if q ~= player and args.hits[q] ~= nil then args.hits[q] = args.hits[q] + 1 end
    end
  end,
}

-- Exotrireme II: after a round of space combat, it may destroy itself to destroy up to 2 ships in
-- the system. The player picks the opponent's 2 most costly ships. Default policy: use it when
-- those 2 cost more than the Exotrireme, or when they are all the ships the opponent has left;
-- policy.use = { exotrireme_ii = "always" } uses it whenever it can, "never" never.
local function unit_cost(ctx, u)
  return (ctx:get(u, "cost") or 0) / math.max(1, ctx:get(u, "units_per_cost") or 1)
end

local function targets(ctx, player, sys)
  local out = ctx:units(lib.opponent(ctx, player), sys, "ship")
  table.sort(out, function(a, b)
    local ca, cb = unit_cost(ctx, a), unit_cost(ctx, b)
    if ca ~= cb then return ca > cb end
    return a < b
  end)
  return out
end

hook {
  id = "exotrireme_ii",
  window = "space_combat.end_of_round",
  source = "unit/exotrireme_ii",
  optional = true,
  condition = function(ctx, player, source)
    local sys = ctx:role("active_system")
    if ctx:location(source) ~= sys then return false end
    local t = targets(ctx, player, sys)
    if #t == 0 then return false end
    local use = ctx:policy(player).use
    if use and (use.exotrireme_ii == "always" or use.exotrireme_ii == true) then return true end
    local worth = unit_cost(ctx, t[1]) + (t[2] and unit_cost(ctx, t[2]) or 0)
    return #t <= 2 or worth > unit_cost(ctx, source)
  end,
  apply = function(ctx, player, source)
    local sys = ctx:role("active_system")
    local t = targets(ctx, player, sys)
    ctx:destroy(source, "space_combat.unit_destroyed")
    for i = 1, math.min(2, #t) do ctx:destroy(t[i], "space_combat.unit_destroyed") end
  end,
}

-- Tekklar Legion (promissory note): at the start of a ground combat its holder fights in, +1 to
-- the holder's ground combat rolls; -1 to the opponent's if the opponent is Sardakk N'orr. The
-- note then goes back to the N'orr player (here: discarded).
hook {
  id = "tekklar_legion",
  window = "invasion.start_of_ground_combat",
  source = "promissory_note/tekklar_legion",
  optional = true,
  discard = true,
  condition = function(_, player, _, args) return player == args.player or player == args.opponent end,
  apply = function(ctx, player, _, args)
    ctx:activate("tekklar_legion_bonus", player, "combat")
    local opponent = player == args.player and args.opponent or args.player
    for _, f in ipairs(ctx:entities { kind = "faction", owner = opponent }) do
      if ctx:type(f) == "sardakk_norr" then ctx:activate("tekklar_legion_penalty", opponent, "combat") end
    end
  end,
}
