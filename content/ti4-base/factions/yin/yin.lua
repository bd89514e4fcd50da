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

-- Greyfire Mutagen (another player's promissory note): for this tactical action the Yin player has
-- no faction abilities or faction technologies (the action flag greyfire_mutagen).
local function blocked(ctx, player) return ctx:flag(player, "greyfire_mutagen") end


-- Devotion: after each round of space combat, destroy 1 cruiser or destroyer to produce 1 hit
-- against the opponent's ships (the opponent assigns it).
hook {
  id = "devotion",
  window = "space_combat.end_of_round",
  source = "faction/yin",
  optional = true,
  condition = function(ctx, player)
    if blocked(ctx, player) then return false end
    local sys = ctx:role("active_system")
    return offering(ctx, player, sys) ~= nil and ctx:count(lib.opponent(ctx, player), sys, "ship") > 0
  end,
  helps = function(ctx, player)
    local sys = ctx:role("active_system")
    return worth_it(ctx, player, offering(ctx, player, sys), sys, false)
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    ctx:destroy(offering(ctx, player, sys), "space_combat.unit_destroyed")
    local enemy = lib.opponent(ctx, player)
    ctx:assign_hits(enemy, sys, 1, HITS, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain)
  end,
}

-- Impulse Core: at the start of a space combat, destroy 1 cruiser or destroyer to produce 1 hit
-- against the opponent's ships, which the opponent puts on a non-fighter ship of theirs "if able":
-- to a fighter when they have none. The default policy uses it when a non-fighter
-- ship takes the hit and costs at least as much as the ship given.
hook {
  id = "impulse_core",
  window = "space_combat.start_of_combat",
  source = "technology/impulse_core",
  optional = true,
  condition = function(ctx, player)
    if blocked(ctx, player) then return false end
    local sys = ctx:role("active_system")
    return offering(ctx, player, sys) ~= nil and ctx:count(lib.opponent(ctx, player), sys, "ship") > 0
  end,
  helps = function(ctx, player)
    local sys = ctx:role("active_system")
    return worth_it(ctx, player, offering(ctx, player, sys), sys, true)
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    ctx:destroy(offering(ctx, player, sys), "space_combat.unit_destroyed")
    local enemy = lib.opponent(ctx, player)
    local able = ctx:count(enemy, sys, "ship") > ctx:count(enemy, sys, "fighter")
    ctx:assign_hits(enemy, sys, 1, able and NON_FIGHTER_HIT or HITS, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain)
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

-- ------------------------------------------------------------------ Indoctrination

-- Indoctrination: when a ground combat starts, the Yin player may pay 2 influence to swap 1 of the
-- opponent's infantry in it for 1 Yin infantry from reinforcements. Moyin's Ashes (mech), Deploy:
-- with Indoctrination, 1 more influence puts a mech in place of the infantry (while a mech is left
-- in reinforcements). The opponent's infantry goes back to its reinforcements (it is replaced, not
-- destroyed). Influence: lib.spend_influence (ready planets, then trade goods). Default policy:
-- whenever it can be paid; the mech whenever the third influence can be paid too.
local function mech_left(ctx, player)
  local rec = ctx:record("mech", "unit")
  return ctx:count(player, nil, "type:mech") < (rec and rec.reinforcements or 4)
end

-- the opponent's infantry replaced by 1 of `player`'s infantry (or mech)
local function replace_infantry(ctx, player, opponent, planet, with)
  local victim = ctx:units(opponent, planet, "type:infantry")[1]
  ctx:move(victim, "reinforcements")
  local u = ctx:create { kind = "unit", type = with, owner = player, location = planet }
  local record = lib.unit_records(ctx, player)[with]
  if record then ctx:upgrade(u, record) end
  if ctx:tracing() then
    ctx:event("replaced:" .. ctx:name(opponent) .. ":infantry:" .. ctx:name(player) .. ":" .. with,
      ctx:name(opponent) .. "'s infantry on " .. ctx:name(planet) .. " is replaced by " .. ctx:name(player) .. "'s " .. with)
  end
end

local function other_side(player, args) return player == args.player and args.opponent or args.player end

hook {
  id = "indoctrination",
  window = "invasion.start_of_ground_combat",
  source = "faction/yin",
  optional = true,
  condition = function(ctx, player, _, args)
    if blocked(ctx, player) or (player ~= args.player and player ~= args.opponent) then return false end
    return ctx:count(other_side(player, args), args.planet, "type:infantry") > 0 and lib.influence_available(ctx, player) >= 2
  end,
  apply = function(ctx, player, _, args)
    local own_mech = lib.unit_records(ctx, player).mech  -- Moyin's Ashes: the Yin player's mech
    local mech = own_mech ~= nil and own_mech:find("yin_mech", 1, true) ~= nil
      and mech_left(ctx, player) and lib.influence_available(ctx, player) >= 3
      and ctx:policy(player).use.moyins_ashes ~= "never"
    lib.spend_influence(ctx, player, mech and 3 or 2)
    replace_infantry(ctx, player, other_side(player, args), args.planet, mech and "mech" or "infantry")
  end,
}

-- ------------------------------------------------------------------ Brother Milor (agent)

-- Brother Milor: when any player's destroyer or cruiser is destroyed, the agent may be exhausted to
-- let that player put up to 2 fighters from reinforcements in its system. Brother Milor Ω (Codex):
-- when any player's unit is destroyed, the agent may be exhausted to let that player put 2 fighters
-- in its system (a ship) or 2 infantry on its planet (a ground force). The card allows it for any
-- player's unit, the last one of a fight too; the default policy (helps) uses it the first time one
-- of the Yin player's own units that qualifies is destroyed while the fight it was in goes on
-- (another of the Yin player's units and one of the opponent's are still there).
local function place(ctx, player, t, location, n)
  for _ = 1, n do
    local u = ctx:create { kind = "unit", type = t, owner = player, location = location }
    local record = lib.unit_records(ctx, player)[t]
    if record then ctx:upgrade(u, record) end
  end
  if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":" .. t .. ":" .. n, ctx:name(player) .. " places " .. n .. " " .. t .. " (Brother Milor)") end
end

-- whether the fight at `location` goes on for `player` (units of theirs and of another player)
local function fighting(ctx, player, location, attr)
  if ctx:count(player, location, attr) == 0 then return false end
  for _, q in ipairs(ctx:players()) do
    if q ~= player and ctx:count(q, location, attr) > 0 then return true end
  end
  return false
end

local MILOR_WINDOWS = { "space_combat.unit_destroyed", "tactical_action.unit_destroyed", "invasion.unit_destroyed" }
for i, w in ipairs(MILOR_WINDOWS) do
  hook {
    id = "brother_milor" .. (i > 1 and ("_" .. i) or ""),
    window = w,
    source = "leader/brother_milor",
    optional = true,
    limit = "game",
    condition = function(ctx, player, _, args)
      local t = ctx:type(args.unit)
      return (t == "destroyer" or t == "cruiser") and args.location ~= nil
    end,
    helps = function(ctx, player, _, args)
      return args.player == player and fighting(ctx, player, args.location, "ship")
    end,
    apply = function(ctx, _, _, args) place(ctx, args.player, "fighter", args.location, 2) end,
  }
  hook {
    id = "brother_milor_omega" .. (i > 1 and ("_" .. i) or ""),
    window = w,
    source = "leader/brother_milor_omega",
    optional = true,
    limit = "game",
    condition = function(ctx, player, _, args)
      if args.location == nil then return false end
      return ctx:get(args.unit, "ship") or (ctx:get(args.unit, "ground_force") and ctx:kind(args.location) == "planet")
    end,
    helps = function(ctx, player, _, args)
      if args.player ~= player then return false end
      return fighting(ctx, player, args.location, ctx:get(args.unit, "ship") and "ship" or "ground_force")
    end,
    apply = function(ctx, _, _, args)
      local t = ctx:get(args.unit, "ship") and "fighter" or "infantry"
      place(ctx, args.player, t, args.location, 2)
    end,
  }
end

-- ------------------------------------------------------------------ Greyfire Mutagen (promissory note)

-- Greyfire Mutagen: played after an activation, it takes the Yin player's faction abilities and
-- faction technologies away for that tactical action, then goes back to the Yin player. Its holder
-- may play it on any activation; the default policy (helps) when the Yin player has units in the
-- active system.
local function yin_players(ctx)
  local out = {}
  for _, f in ipairs(ctx:entities { kind = "faction", type = "yin" }) do out[#out + 1] = ctx:owner(f) end
  return out
end

hook {
  id = "greyfire_mutagen",
  window = "tactical_action.activation",
  source = "promissory_note/greyfire_mutagen",
  optional = true,
  discard = true,
  condition = function(ctx, player)
    for _, y in ipairs(yin_players(ctx)) do
      if y ~= player then return true end
    end
    return false
  end,
  helps = function(ctx, player, _, args)
    for _, y in ipairs(yin_players(ctx)) do
      if y ~= player and ctx:count(y, args.system) > 0 then return true end
      for _, planet in ipairs(ctx:entities { kind = "planet", location = args.system }) do
        if y ~= player and ctx:count(y, planet) > 0 then return true end
      end
    end
    return false
  end,
  apply = function(ctx, player)
    for _, y in ipairs(yin_players(ctx)) do
      if y ~= player then ctx:set_flag(y, "greyfire_mutagen", "action") end
    end
  end,
}

-- Greyfire Mutagen Ω (Codex): played when a ground combat starts against at least 2 ground forces
-- of a player other than Yin: 1 opponent infantry is swapped for 1 of the holder's own from
-- reinforcements, then the note goes back to the Yin player.
hook {
  id = "greyfire_mutagen_omega",
  window = "invasion.start_of_ground_combat",
  source = "promissory_note/greyfire_mutagen_omega",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    if player ~= args.player and player ~= args.opponent then return false end
    local opponent = other_side(player, args)
    for _, y in ipairs(yin_players(ctx)) do
      if y == opponent then return false end
    end
    return ctx:count(opponent, args.planet, "ground_force") >= 2 and ctx:count(opponent, args.planet, "type:infantry") > 0
  end,
  apply = function(ctx, player, _, args) replace_infantry(ctx, player, other_side(player, args), args.planet, "infantry") end,
}

-- ------------------------------------------------------------------ Yin Spinner

-- Yin Spinner: after the player's units use Production, 1 infantry on a planet the player
-- controls in that system (the first such planet, in the system's order).
hook {
  id = "yin_spinner",
  window = "production.end_of_production",
  source = "technology/yin_spinner",
  condition = function(ctx, player, _, args)
    return args.player == player and not blocked(ctx, player) and lib.controlled_planet(ctx, player, args.system) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local planet = lib.controlled_planet(ctx, player, args.system)
    lib.place_units(ctx, player, "infantry", 1, planet)
    if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":infantry:" .. ctx:name(planet), ctx:name(player) .. " places 1 infantry on " .. ctx:name(planet) .. " (Yin Spinner)") end
  end,
}

-- Yin Spinner Ω (Codex I): after the player produces units (production.end_of_production opens
-- only when units were produced), up to 2 infantry on any of its planets or in a space area with
-- its ships: both on the first planet the player controls in the active system, in the system's
-- order. Elsewhere they would change nothing in the tactical action, so
-- with no such planet nothing is placed. Default policy: it places them (free units).
hook {
  id = "yin_spinner_omega",
  window = "production.end_of_production",
  source = "technology/yin_spinner_omega",
  optional = true,
  condition = function(ctx, player, _, args)
    return args.player == player and not blocked(ctx, player) and lib.controlled_planet(ctx, player, args.system) ~= nil
  end,
  helps = function() return true end,
  apply = function(ctx, player, _, args)
    local planet = lib.controlled_planet(ctx, player, args.system)
    lib.place_units(ctx, player, "infantry", 2, planet)
    if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":infantry:2:" .. ctx:name(planet), ctx:name(player) .. " places 2 infantry on " .. ctx:name(planet) .. " (Yin Spinner Ω)") end
  end,
}
