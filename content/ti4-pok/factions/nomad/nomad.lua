-- The Nomad: Quantum Manipulator (mech), The Thundarian, Temporal Command Suite, Field Marshal
-- Mercer, The Cavalry. Tests: ../../tests/factions/nomad.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- While in the space area during a space combat, the mech may use its Sustain Damage to cancel a
-- hit against the player's ships there (it becomes damaged). Default policy: only for a hit that
-- would otherwise destroy a ship, i.e. when no ship there can still sustain (policy sustain not
-- "never"); then as many undamaged mechs as there are such hits.
local function ship_can_sustain(ctx, player, sys)
  if ctx:policy(player).sustain == "never" then return false end
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    if ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then return true end
  end
  return false
end

local function manipulators(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "type:mech")) do
    if not ctx:get(u, "damaged") and ctx:record_id(u):find("nomad_mech", 1, true) then out[#out + 1] = u end
  end
  return out
end

hook {
  id = "quantum_manipulator",
  window = "space_combat.assign_hits",
  source = "unit/nomad_mech",
  optional = true,
  condition = function(ctx, player, source, args)
    local sys = ctx:role("active_system")
    return args.purpose == "space_combat.assign_hits" and (args.hits[player] or 0) > 0 and ctx:location(source) == sys
      and manipulators(ctx, player, sys)[1] == source
  end,
  helps = function(ctx, player) return not ship_can_sustain(ctx, player, ctx:role("active_system")) end,
  apply = function(ctx, player, _, args)
    local sys = ctx:role("active_system")
    for _, m in ipairs(manipulators(ctx, player, sys)) do
      if args.hits[player] <= 0 then return end
      ctx:set(m, "damaged", true)
      args.hits[player] = args.hits[player] - 1
    end
  end,
}

-- Agents are exhausted with the flag "exhausted" on the leader card (for the game here); the flag
-- "exhausted_now" (this round) tells Temporal Command Suite which agent just became exhausted.
local function exhaust(ctx, leader)
  ctx:set_flag(leader, "exhausted", "game")
  ctx:set_flag(leader, "exhausted_now", "round")
end

local function never(ctx, player, name)
  local v = (ctx:policy(player).use or {})[name]
  return v == "never" or v == false
end

-- The two players of the combat a roll-dice window belongs to: ground combat names them, a space
-- combat is the attacker's and the defender's.
local function combatants(ctx, args)
  if args.opponent then return args.player, args.opponent end
  return ctx:role("attacker", "defender")
end

-- The Thundarian: once both sides have rolled in a combat, the agent may be exhausted: nobody
-- assigns those hits and the round goes back to its Roll Dice step. Space and ground combat, any
-- player's. Default policy (helps): in the Nomad player's own combats, when the roll produced more
-- hits against the Nomad player than by them (policy.use = { the_thundarian = "always" }, one key
-- for both hooks: whenever any hit was produced against them; "never": not at all;
-- use.the_thundarian_ground overrides it on the ground).
local function thundarian_wants(ctx, player, args)
  local a, d = combatants(ctx, args)
  if player ~= a and player ~= d then return false end
  if never(ctx, player, "the_thundarian") then return false end
  local enemy = player == a and d or a
  local against, by = args.hits[player] or 0, args.hits[enemy] or 0
  local v = (ctx:policy(player).use or {}).the_thundarian
  if v == "always" or v == true then return against > 0 end
  return against > by
end

-- Temporal Command Suite: when any agent is exhausted, the card may be exhausted to ready that
-- agent again. Here: right after The Thundarian is exhausted (the Nomad player's own
-- agent; default policy: used), so it may be used again after the next Roll Dice step.
local function just_exhausted(ctx, player)
  for _, l in ipairs(ctx:entities { kind = "leader", owner = player }) do
    if ctx:flag(l, "exhausted_now") and ctx:flag(l, "exhausted") then return l end
  end
  return nil
end

for _, w in ipairs { { "", "space_combat.after_roll_dice" }, { "_ground", "invasion.after_ground_roll_dice" } } do
  hook {
    id = "the_thundarian" .. w[1],
    window = w[2],
    source = "leader/the_thundarian",
    optional = true,
    priority = 1,
    condition = function(ctx, player, source, args)
      return not ctx:flag(source, "exhausted") and not args.roll_again
    end,
    helps = function(ctx, player, source, args) return thundarian_wants(ctx, player, args) end,
    apply = function(ctx, _, source, args)
      args.roll_again = true
      exhaust(ctx, source)
    end,
  }
  hook {
    id = "temporal_command_suite" .. w[1],
    window = w[2],
    source = "technology/temporal_command_suite",
    optional = true,
    condition = function(ctx, player, source)
      return not ctx:flag(source, "exhausted") and just_exhausted(ctx, player) ~= nil
    end,
    -- one key for both hooks: policy.use = { temporal_command_suite = "never" }
    helps = function(ctx, player) return not never(ctx, player, "temporal_command_suite") end,
    apply = function(ctx, player, source)
      local agent = just_exhausted(ctx, player)
      ctx:set_flag(source, "exhausted", "game")
      ctx:set_counter(agent, "exhausted", 0, "game")
      ctx:set_counter(agent, "exhausted_now", 0, "round")
      if ctx:tracing() then ctx:event("readied:" .. ctx:name(player) .. ":" .. ctx:type(agent), ctx:name(player) .. " readies " .. ctx:type(agent) .. " (Temporal Command Suite)") end
    end,
  }
end

-- Field Marshal Mercer: when any player's turn ends, the commander may be exhausted to let that
-- player lift up to 2 of their ground forces from the board onto planets they control in the active
-- system. Default policy: at the end of the Nomad player's own turn, when they control a planet
-- there; the ground forces left in the active system's space area first, then others on the board
-- (not on the active system's planets), in entity order; each on the planet with the fewest of
-- their ground forces (damaged mechs stay damaged).
local function mercer_candidates(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "ground_force")) do
    if lib.needs_transport(ctx, u) then out[#out + 1] = u end
  end
  for _, u in ipairs(ctx:units(player, nil, "ground_force")) do
    local loc = ctx:location(u)
    local where = ctx:kind(loc) == "planet" and ctx:location(loc) or loc
    if where ~= sys and not ctx:get(u, "structure") and ctx:kind(where) == "system" then out[#out + 1] = u end
  end
  return out
end

local function own_planets(ctx, player, sys)
  local out = {}
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:owner(planet) == player then out[#out + 1] = planet end
  end
  return out
end

hook {
  id = "field_marshal_mercer",
  window = "tactical_action.end_of_turn",
  source = "leader/field_marshal_mercer",
  optional = true,
  condition = function(ctx, player, source, args)
    return args.player == player and not ctx:flag(source, "exhausted") and #own_planets(ctx, player, args.system) > 0
      and #mercer_candidates(ctx, player, args.system) > 0
  end,
  apply = function(ctx, player, source, args)
    exhaust(ctx, source)
    local planets = own_planets(ctx, player, args.system)
    for i, u in ipairs(mercer_candidates(ctx, player, args.system)) do
      if i > 2 then break end
      local best
      for _, planet in ipairs(planets) do
        if not best or ctx:count(player, planet, "ground_force") < ctx:count(player, best, "ground_force") then best = planet end
      end
      ctx:move(u, best)
      if ctx:tracing() then
        ctx:event("mercer:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. ctx:name(best), ctx:name(player) .. " places a " .. ctx:type(u) .. " on " .. ctx:name(best) .. " (Field Marshal Mercer)")
      end
    end
  end,
}

-- The Cavalry (promissory note): played when a space combat against someone other than the Nomad
-- starts; for that combat one non-fighter ship of the holder has the Nomad flagship's Sustain
-- Damage, combat value and Anti-Fighter Barrage, and the note goes back to the Nomad player when
-- the combat ends. The flagship is Memoria II when a Nomad player in the game owns the upgrade,
-- else Memoria I. The ship chosen (default policy): the non-fighter ship
-- that gains the most: without Sustain Damage first, then the worst combat value, then the most
-- costly; used when that ship gains anything. Its own values come back at the end of the combat (a
-- ship damaged meanwhile stays damaged).
local CAVALRY = "the_cavalry"  -- flag on the ship (this combat)

local function memoria(ctx)
  for _, q in ipairs(ctx:players()) do
    local f = ctx:entities { kind = "faction", owner = q }[1]
    if f and ctx:type(f) == "nomad" and lib.owns(ctx, q, "memoria_ii") then return ctx:record("nomad_flagship_ii", "unit") end
  end
  return ctx:record("nomad_flagship", "unit")
end

local function against_nomad(ctx, player)
  local f = ctx:entities { kind = "faction", owner = lib.opponent(ctx, player) }[1]
  return f ~= nil and ctx:type(f) == "nomad"
end

local function gains(ctx, u, fs)
  return not ctx:get(u, "sustain_damage") or ctx:get(u, "combat") > fs.combat
    or ctx:get(u, "combat") == fs.combat and ctx:get(u, "dice") < fs.dice or ctx:get(u, "afb") == 0
end

-- (rank: without Sustain Damage above with it, then the worse combat value above the better)
local function cavalry_rank(ctx, u)
  return (ctx:get(u, "sustain_damage") and 0 or 1001) + ctx:get(u, "combat")
end

local function cavalry_ship(ctx, player, fs)
  local ships, top = ctx:units(player, ctx:role("active_system"), "ship"), nil
  for _, u in ipairs(ships) do
    if not ctx:get(u, "fighter") and gains(ctx, u, fs) then
      local r = cavalry_rank(ctx, u)
      if not top or r > top then top = r end
    end
  end
  if not top then return nil end
  -- among the ships of the best rank, the most costly
  return lib.most_costly(ctx, ships, function(u)
    return not ctx:get(u, "fighter") and gains(ctx, u, fs) and cavalry_rank(ctx, u) == top
  end)
end

hook {
  id = "the_cavalry",
  window = "space_combat.start_of_combat",
  source = "promissory_note/the_cavalry",
  optional = true,
  condition = function(ctx, player, source)
    local a, d = ctx:role("attacker", "defender")
    return (player == a or player == d) and not ctx:flag(source, CAVALRY) and not against_nomad(ctx, player)
      and cavalry_ship(ctx, player, memoria(ctx)) ~= nil
  end,
  apply = function(ctx, player, source)
    local fs = memoria(ctx)
    local u = cavalry_ship(ctx, player, fs)
    ctx:set_flag(source, CAVALRY, "game")
    ctx:set_flag(u, CAVALRY, "combat")
    ctx:set(u, "sustain_damage", true)
    ctx:set(u, "combat", fs.combat)
    ctx:set(u, "dice", fs.dice)
    ctx:set(u, "afb", fs.afb)
    ctx:set(u, "afb_dice", fs.afb_dice)
    if ctx:tracing() then ctx:event("the_cavalry:" .. ctx:name(player) .. ":" .. ctx:type(u), ctx:name(player) .. "'s " .. ctx:type(u) .. " takes the values of " .. fs.name .. " (The Cavalry)") end
  end,
}

-- the end of the combat: the ship's own values again (its record's), and the card goes back to
-- the Nomad player (it leaves the holder's hand)
hook {
  id = "the_cavalry_returned",
  window = "space_combat.end_of_combat",
  source = "promissory_note/the_cavalry",
  condition = function(ctx, _, source) return ctx:flag(source, CAVALRY) end,
  apply = function(ctx, player, source)
    ctx:move(source, "reinforcements")
    if ctx:tracing() then ctx:event("returned:" .. ctx:name(player) .. ":the_cavalry", ctx:name(player) .. " returns The Cavalry to the Nomad player") end
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player }) do
      if ctx:flag(u, CAVALRY) then
        local rec = ctx:record(ctx:record_id(u))
        ctx:set(u, "sustain_damage", rec.sustain_damage or false)
        ctx:set(u, "combat", rec.combat or 0)
        ctx:set(u, "dice", rec.dice or 0)
        ctx:set(u, "afb", rec.afb or 0)
        ctx:set(u, "afb_dice", rec.afb_dice or 0)
        ctx:set_counter(u, CAVALRY, 0, "combat")
      end
    end
  end,
}

-- Memoria I and II: the flagship counts as adjacent to every system holding a Nomad mech. The
-- flagship may move from its system straight into an active system that
-- holds one of the Nomad player's mechs (space area or planet), as if adjacent (a move of 1, the
-- anomaly rules of its own system applying). Through other systems holding mechs on the way: not
-- modelled; nor retreats (the Rules Reference: not into a mech's system unless adjacent otherwise).
for _, rec in ipairs { "nomad_flagship", "nomad_flagship_ii" } do
  hook {
    id = rec == "nomad_flagship" and "memoria" or "memoria_ii",
    window = "tactical_action.ship_paths",
    source = "unit/" .. rec,
    optional = true,
    condition = function(ctx, player, source, args)
      return args.unit == source and lib.in_system(ctx, player, ctx:role("active_system"), "mech")
    end,
    apply = function(_, _, _, args) args.direct = true end,
  }
end
