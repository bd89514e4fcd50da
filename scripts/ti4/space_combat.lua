-- TI4 space combat, as the Rules Reference gives it (shared/rules/ti4-space-combat.md). Rule
-- numbers in the comments are that text's. The hot work (rolling a side's dice, assigning hits
-- by policy) is done by runtime primitives; this file is the order of things and the choices.
--
-- Window order in round 1: start_of_combat + start_of_round (one window, 2.1), then
-- before_combat (just before Anti-Fighter Barrage, 2), then the step.

local M = {}

local COMBAT = { purpose = "combat", die = "d10", value = "combat", count = "dice", eligible = "ship" }
local AFB = { purpose = "anti_fighter_barrage", die = "d10", value = "afb", count = "afb_dice", eligible = "ship" }
-- sustain_first: a unit immune to Direct Hit risks nothing by sustaining, so it sustains before
-- anything is lost even under sustain = "last" (policies: see ctx:assign_hits); keep: of two
-- units of a type, the policy loses the one that rolls fewer dice (a galvanized unit rolls 1 more)
local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged", keep = "dice", sustain_first = "direct_hit_immune",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }
-- Anti-Fighter Barrage hits can only be assigned to fighters
local AFB_HITS = { eligible = "fighter", can_sustain = "sustain_damage", damaged = "damaged", keep = "dice",
  decision = "space_combat.assign_afb_hits", destroyed_window = "space_combat.unit_destroyed" }

-- Rounds with no retreat to decide and no hook that can run are plain exchanges of fire; the
-- runtime runs them in C++ (ctx:exchange_fire), exactly as the round below would, and hands a
-- round back as soon as one of these windows has a hook to run.
local FIRE = {
  roll = COMBAT, hits = HITS, counter = "round", counter_scope = "combat", round_scope = "round", metric = "rounds",
  -- under the step memo, one round per run of the step (it returns "again"): runs meet again at
  -- the state a round leaves
  again = true,
  windows = { "space_combat.start_of_round", "space_combat.announce_retreats", "space_combat.before_roll",
    "space_combat.after_roll", "space_combat.after_roll_dice", "space_combat.assign_hits",
    "space_combat.before_retreat", "space_combat.end_of_round" },
}

-- Anti-Fighter Barrage as one exchange in C++ (ctx:exchange_fire with once), when no hook can run
-- from the windows before it to the hits it assigns; else the procedure resolves it below.
local BARRAGE = {
  roll = AFB, hits = AFB_HITS, once = true,
  windows = { "space_combat.before_combat", "space_combat.anti_fighter_barrage",
    "space_combat.after_anti_fighter_barrage_roll", "space_combat.assign_hits" },
}

local lib = require "lib"
local galaxy = require "galaxy"
local has_ships, opponent = lib.has_ships, lib.opponent

-- ------------------------------------------------------------------ retreat eligibility (4.3, 7.3)

local function planets_of(ctx, sys)
  return ctx:entities { kind = "planet", location = sys }
end

-- 7.3: one or more of the player's units or a planet they control, and no other player's ships.
local function eligible_by_rule(ctx, player, sys)
  local own = ctx:count(player, sys) > 0
  for _, planet in ipairs(planets_of(ctx, sys)) do
    if ctx:owner(planet) == player or ctx:count(player, planet) > 0 then own = true end
  end
  return own and not lib.other_ships(ctx, player, sys)
end

-- The systems a player may retreat to. Content extends eligibility through the
-- retreat_eligibility window (anomalies, Dark Energy Tap): hooks read and set args.eligible.
local function eligible_systems(ctx, player, neighbours)
  local out = {}
  local hooked = ctx:hooked("space_combat.retreat_eligibility")
  for _, sys in ipairs(neighbours) do
    local ok = eligible_by_rule(ctx, player, sys)
    if hooked then
      local args = { player = player, system = sys, eligible = ok, by_rule = ok }
      ctx:open("space_combat.retreat_eligibility", args)
      ok = args.eligible
    end
    if ok then out[#out + 1] = sys end
  end
  return out
end

-- ------------------------------------------------------------------ step 2: announce retreats (4)

-- Returns whether the player announced, and whether the retreat still stands (an ability such
-- as Intercept may stop it; the announcement was made all the same, 4.2).
local function announce(ctx, player, sys, neighbours)
  if #neighbours == 0 or not has_ships(ctx, player, sys) then return false, false end
  if #eligible_systems(ctx, player, neighbours) == 0 then return false, false end  -- 4.3
  -- an ability may force the announcement: the round-scoped flag "must_announce_retreat" (Rout:
  -- the opponent has to announce a retreat "if able")
  if ctx:flag(player, "must_announce_retreat") then
    if ctx:tracing() then ctx:event("retreat_forced:" .. ctx:name(player), ctx:name(player) .. " must announce a retreat") end
  elseif ctx:decide(player, "space_combat.announce_retreat", { "no", "yes" }) ~= "yes" then
    return false, false
  end
  ctx:set_flag(player, "retreat_announced", "round")
  if ctx:tracing() then ctx:event("retreat_announced:" .. ctx:name(player), ctx:name(player) .. " announces a retreat") end
  ctx:open("space_combat.retreat_announced", { player = player })
  return true, ctx:flag(player, "retreat_announced")
end

-- Whether the player may announce a retreat this round: a retreat policy that can say yes
-- (policies.lua: "never", the default, always says no), or an answer from outside the policy
-- (a scripted answer waiting, a person at the terminal).
local function may_announce(ctx, player, policy)
  local r = policy.retreat
  return (r ~= nil and r ~= "never") or not ctx:by_policy(player, "space_combat.announce_retreat")
end

-- ------------------------------------------------------------------ step 5: retreat (7)

-- 7.4: a command token from reinforcements, else from the command sheet (tactic, then fleet,
-- then strategy pool), unless one of the player's tokens is already there.
local function place_command_token(ctx, player, sys)
  if #ctx:entities { kind = "command_token", owner = player, location = sys } > 0 then return end
  local from
  for _, pool in ipairs { "reinforcement_tokens", "tactic_tokens", "fleet_tokens", "strategy_tokens" } do
    if ctx:get(player, pool) > 0 then
      ctx:set(player, pool, ctx:get(player, pool) - 1)
      from = pool
      break
    end
  end
  if not from then return end
  ctx:create { kind = "command_token", owner = player, location = sys }
  if ctx:tracing() then
    ctx:event("command_token:" .. ctx:name(player) .. ":" .. ctx:name(sys) .. ":" .. from,
      ctx:name(player) .. " places a command token in " .. lib.place(ctx, sys) .. " from " .. from:gsub("_tokens", ""))
  end
end

local needs_transport = lib.needs_transport

local function remove_unit(ctx, u, why)
  local owner = ctx:owner(u)
  ctx:move(u, "reinforcements")
  if ctx:tracing() then
    ctx:event("removed:" .. ctx:name(owner) .. ":" .. ctx:type(u), ctx:name(owner) .. "'s " .. ctx:type(u) .. " is removed (" .. why .. ")")
  end
end

-- The ships of a retreat leave the active system: rules that act on ships leaving a system hook
-- the departure window (a gravity rift destroys some, space combat notes). Returns the units that
-- still go: the ships left, and the fighters and ground forces those ships can carry. The rest of
-- the cargo was aboard the ships destroyed and is destroyed with them, the last loaded first.
local function depart(ctx, player, sys, dest, moved)
  local from = {}
  for _, u in ipairs(moved) do from[u] = ctx:location(u) end
  ctx:open("space_combat.retreat_departure", { player = player, from = sys, to = dest, units = moved })
  local going, room = {}, 0
  for _, u in ipairs(moved) do
    if ctx:location(u) == from[u] and ctx:get(u, "move") > 0 then
      going[#going + 1] = u
      room = room + ctx:get(u, "capacity")
    end
  end
  for _, u in ipairs(moved) do
    if ctx:location(u) == from[u] and ctx:get(u, "move") == 0 then
      if room > 0 then
        going[#going + 1] = u
        room = room - 1
      else
        if ctx:tracing() then
          ctx:event("lost_with_ship:" .. ctx:name(player) .. ":" .. ctx:type(u),
            ctx:name(player) .. "'s " .. ctx:type(u) .. " is destroyed with the ship that carried it")
        end
        ctx:destroy(u, "space_combat.unit_destroyed")
      end
    end
  end
  return going
end

local function retreat(ctx, player, sys, neighbours)
  -- 7.1: the opponent has no ships left: the combat ends and the retreat does not occur
  if not has_ships(ctx, opponent(ctx, player), sys) then
    if ctx:tracing() then ctx:event("retreat_cancelled:" .. ctx:name(player), "no opposing ships remain: " .. ctx:name(player) .. " does not retreat (7.1)") end
    return
  end
  local eligible = eligible_systems(ctx, player, neighbours)
  if #eligible == 0 then  -- 7: no eligible system is left by now
    if ctx:tracing() then ctx:event("retreat_impossible:" .. ctx:name(player), "no eligible system remains: " .. ctx:name(player) .. " cannot retreat") end
    return
  end
  local names = {}
  for i, s in ipairs(eligible) do names[i] = ctx:name(s) end
  local choice = ctx:decide(player, "space_combat.retreat_to", names)
  local dest
  for i, n in ipairs(names) do if n == choice then dest = eligible[i] end end

  -- 7.2: every ship with a move value goes; its capacity carries fighters and ground forces (and a
  -- structure in the space area that moves and retreats as a ship: the Floating Factory)
  local movers, capacity = {}, 0
  for _, u in ipairs(ctx:units(player, sys, "ship", "structure")) do
    if ctx:get(u, "move") > 0 then
      movers[#movers + 1] = u
      capacity = capacity + ctx:get(u, "capacity")
    end
  end
  local cargo = {}
  for _, u in ipairs(ctx:units(player, sys)) do
    if needs_transport(ctx, u) then cargo[#cargo + 1] = u end
  end
  local planet_forces = {}
  for _, planet in ipairs(planets_of(ctx, sys)) do
    if ctx:owner(planet) == player then
      for _, u in ipairs(ctx:units(player, planet, "ground_force")) do
        if needs_transport(ctx, u) then planet_forces[#planet_forces + 1] = u end
      end
    end
  end
  -- ground forces from planets: zero or more, the player's choice (notes); the rest of the
  -- capacity must carry units from the space area (a player cannot leave them with room unused)
  local from_planets = 0
  if #movers > 0 and #planet_forces > 0 and capacity > 0 then
    local options = {}
    for n = 0, math.min(capacity, #planet_forces) do options[#options + 1] = tostring(n) end
    from_planets = tonumber(ctx:decide(player, "space_combat.retreat_ground_forces", options))
  end
  lib.sort_cargo(ctx, player, cargo)
  local room = capacity - from_planets
  local moved = {}
  for _, u in ipairs(movers) do moved[#moved + 1] = u end
  for i, u in ipairs(cargo) do
    if i <= room then moved[#moved + 1] = u else remove_unit(ctx, u, "no capacity to retreat") end
  end
  for i = 1, from_planets do moved[#moved + 1] = planet_forces[i] end
  if #movers == 0 then
    -- only units that cannot move (fighters I): they are removed and no token is placed (notes)
    return
  end
  if ctx:hooked("space_combat.retreat_departure") then
    moved = depart(ctx, player, sys, dest, moved)
    if #moved == 0 then return end  -- nothing retreated: no command token (7.4)
  end
  for _, u in ipairs(moved) do ctx:move(u, dest) end
  if ctx:tracing() then
    ctx:event("retreat:" .. ctx:name(player) .. ":" .. ctx:name(dest),
      ctx:name(player) .. " retreats " .. #moved .. " units to " .. ctx:name(dest))
  end
  place_command_token(ctx, player, dest)  -- 7.4
  ctx:open("space_combat.retreat", { player = player, system = dest, units = moved })
end

-- ------------------------------------------------------------------ 10.1: capacity after combat

-- `carried`: the player's fighters and ground forces in the space area (more than 0)
local function check_capacity(ctx, player, sys, carried)
  -- (a structure in the space area with a capacity holds units as a ship does: Floating Factory)
  if carried <= ctx:sum(player, sys, "capacity", "ship", "structure") then return end  -- all fit
  local capacity, fighter_room = 0, 0
  for _, u in ipairs(ctx:units(player, sys, "ship", "structure")) do capacity = capacity + ctx:get(u, "capacity") end
  for _, planet in ipairs(planets_of(ctx, sys)) do
    for _, u in ipairs(ctx:units(player, planet)) do fighter_room = fighter_room + ctx:get(u, "fighter_capacity") end
  end
  lib.remove_excess(ctx, player, sys, capacity, fighter_room, "space_combat.remove_excess", function(u)
    remove_unit(ctx, u, "over capacity after combat (10.1)")
  end)
end

-- ------------------------------------------------------------------ the combat

-- Rolls one side's dice, then opens the after-roll window for that player (5.5: abilities that
-- reroll or affect dice resolve right after the player's own roll). Returns the hits.
local function roll(ctx, player, sys, spec, window, hooked)
  -- no script sees the dice: only their hits (the step memo and the exact mode branch on them)
  if not hooked then return ctx:roll_hits(player, sys, spec) end
  local pool, hits = ctx:roll_units(player, sys, spec)
  if hooked then
    -- extra_hits: hits the roll produces beyond its dice (an ability such as Jol-Nar's flagship)
    local args = { player = player, pool = pool, purpose = spec.purpose, extra_hits = 0 }
    ctx:open(window, args)
    hits = pool:hits() + math.max(0, args.extra_hits)
  end
  return hits
end

-- Step 3, roll dice: the attacker rolls all their dice before the defender (5.6). Then the window
-- after the step: an ability there may have no hits assigned and the step resolved again
-- (args.roll_again); a content loop is stopped after MAX_ROLL_AGAIN repeats in one round.
local MAX_ROLL_AGAIN = 20
local function roll_dice(ctx, a, d, sys, after_roll_hooked)
  local after_step_hooked = ctx:hooked("space_combat.after_roll_dice")
  for _ = 0, MAX_ROLL_AGAIN do
    local hits_a = roll(ctx, a, sys, COMBAT, "space_combat.after_roll", after_roll_hooked)
    local hits_d = roll(ctx, d, sys, COMBAT, "space_combat.after_roll", after_roll_hooked)
    if not after_step_hooked then return hits_a, hits_d end
    local args = { hits = { [a] = hits_d, [d] = hits_a }, roll_again = false }
    ctx:open("space_combat.after_roll_dice", args)
    if args.roll_again ~= true then return hits_a, hits_d end
    if ctx:tracing() then ctx:event("roll_again", "no hits are assigned: the Roll Dice step is resolved again") end
  end
  error("space_combat.after_roll_dice: roll_again was set more than " .. MAX_ROLL_AGAIN .. " times in one round", 0)
end

-- Assigns hits on both sides after letting abilities cancel them (6.1). `spec` is the step's
-- (its decision is the window's `purpose`); `spec_a` and `spec_d` (default: `spec`) are how the
-- hits on each side are assigned.
local function assign(ctx, a, d, pa, pd, sys, hits_on_a, hits_on_d, spec, hooked, spec_a, spec_d)
  spec_a, spec_d = spec_a or spec, spec_d or spec
  -- sustain_cancels: the hits each Sustain Damage of a player cancels in this assignment, when a
  -- hook's ability makes it more than 1 (a declared modifier, Non-Euclidean Shielding, needs none)
  local cancels_a, cancels_d
  if hooked then
    local args = { hits = { [a] = hits_on_a, [d] = hits_on_d }, purpose = spec.decision, sustain_cancels = {} }
    ctx:open("space_combat.assign_hits", args)
    hits_on_a, hits_on_d = math.max(0, args.hits[a]), math.max(0, args.hits[d])
    cancels_a, cancels_d = args.sustain_cancels[a], args.sustain_cancels[d]
  end
  local sustain_a = spec_a == AFB_HITS and "never" or pa.sustain
  local sustain_d = spec_d == AFB_HITS and "never" or pd.sustain
  -- 6: each player assigns against the board as the rolls left it; the units destroyed leave
  -- together, then the windows after a loss open
  return (ctx:assign_hits_each(sys, {
    { player = a, hits = hits_on_a, spec = spec_a, order = pa.hit_order, sustain = sustain_a, sustain_cancels = cancels_a },
    { player = d, hits = hits_on_d, spec = spec_d, order = pd.hit_order, sustain = sustain_d, sustain_cancels = cancels_d },
  }))
end

-- How the hits of `player`'s Anti-Fighter Barrage are assigned: to fighters (3), or to any ship
-- when an ability set the combat flag "barrage_hits_all_ships" on that player (Waylay); then
-- they are hits like a combat roll's, and Sustain Damage may cancel them.
local function barrage_hits(ctx, player)
  return ctx:flag(player, "barrage_hits_all_ships") and HITS or AFB_HITS
end

-- The combat, as steps (ctx:steps): M.begin (start of combat, Anti-Fighter Barrage), M.rounds
-- (one round, or in C++ as many as nothing can interrupt; it returns "again" while the combat
-- goes on), M.finish (the end windows, the result, the rounds), M.after (the after-combat
-- window, capacity). What one step tells the next is in the state: the counter "round" on the
-- active system (0: no combat), its flags "combat_over" and "ended_after_round" (scope combat).
-- The tactical action runs the same steps among its own.

-- The counter "round" counts up to the highest round number a rule in play asks about: 2 (round
-- 1 or a later one), a retreat policy's N + 1 ("retreat after N rounds") or the scenario's stop
-- k + 1 (rounds = k: lib.round_limit). A round that changes
-- nothing then leads back to the same state, where the step memo and the exact mode meet it
-- again; the metric "rounds" (the number of the last round begun) is added to as each begins.
local function round_cap(ctx, a, d)
  local cap = math.max(2, lib.round_limit(ctx) + 1)
  for _, p in ipairs { a, d } do
    local r = ctx:policy(p).retreat
    if math.type(r) == "integer" and r + 1 > cap then cap = r + 1 end
  end
  return cap
end

-- The resources lost in the combat (a best play's objective, docs/exact.md: a retreat saves
-- them), counted in half resources so that they are whole numbers (a run's metrics are tallied
-- as whole numbers): a fighter or infantry lost counts 1, another unit twice its cost. What a side
-- lost is what it had at any time in the combat, units that arrived while it went on included
-- (created by a card: the Crimson Rebellion hero's ships), less what it kept: the units that went
-- into its reinforcements meanwhile (units are never removed from the state, only moved there).
-- So each side's units in its reinforcements are taken off "attacker_half_resources_lost" and
-- "defender_half_resources_lost" as the combat begins and added when it is over (M.after:
-- capacity's losses count); "half_resources_margin" is the defender's minus the attacker's (what
-- the attacker came out ahead by). Units that only move about the board count nothing, so where
-- no unit is created in the combat this is the units on the board at its start less those at its
-- end.
local function half_resources_in_reinforcements(ctx, player)
  local r = 0
  for _, u in ipairs(ctx:units(player, "reinforcements")) do r = r + math.floor(2 * lib.unit_cost(ctx, u) + 0.5) end
  return r
end

local function count_resources(ctx, a, d, sign)
  local ra, rd = half_resources_in_reinforcements(ctx, a), half_resources_in_reinforcements(ctx, d)
  ctx:add_metric("attacker_half_resources_lost", sign * ra)
  ctx:add_metric("defender_half_resources_lost", sign * rd)
  ctx:add_metric("half_resources_margin", sign * (rd - ra))
end

-- As the combat ends (or stops after round k): how many damaged units each side has in the
-- active system ("attacker_damaged_units", "defender_damaged_units"; the report's state after
-- the combat beside the survivors).
local function count_damaged(ctx, a, d, sys)
  ctx:metric("attacker_damaged_units", ctx:count(a, sys, "damaged"))
  ctx:metric("defender_damaged_units", ctx:count(d, sys, "damaged"))
end

local function fighting(ctx, sys)
  return ctx:counter(sys, "round") > 0 and not ctx:flag(sys, "combat_over")
end

local function over(ctx, sys)
  ctx:set_flag(sys, "combat_over", "combat")
end

function M.begin(ctx)
  local a, d, sys = ctx:role("attacker", "defender", "active_system")
  local pa, pd = ctx:policy(a), ctx:policy(d)
  -- 1: a space combat is resolved only when two players have ships in the active system; else
  -- the step is skipped (no windows, no Anti-Fighter Barrage, no rounds)
  local a_ships, d_ships = ctx:count(a, sys, "ship"), ctx:count(d, sys, "ship")
  if a_ships == 0 or d_ships == 0 then
    if ctx:tracing() then ctx:event("no_combat", "only one player (or none) has ships in the active system: no space combat (1)") end
    ctx:result(a_ships > 0 and "attacker_win" or d_ships > 0 and "defender_win" or "draw")
    ctx:add_metric("rounds", 0)
    return
  end
  ctx:set_counter(sys, "round", 1, "combat")
  ctx:add_metric("rounds", 1)  -- the rounds begun (the number of the last one)
  count_resources(ctx, a, d, -1)
  -- 9: an ability at the start of combat may leave one side without ships (Skilled Retreat);
  -- both had ships before it (1), so only a hook that ran can have changed that
  local ongoing = true
  if ctx:open("space_combat.start_of_combat", "space_combat.start_of_round") > 0 then  -- 2.1
    ongoing = has_ships(ctx, a, sys) and has_ships(ctx, d, sys)
  end
  -- Step 1, Anti-Fighter Barrage: first round only (3.2), simultaneous, even with no fighters (3.3);
  -- 3.1: if a side has no ships after the barrage, the combat ends at once
  local fired = ongoing and ctx:exchange_fire(sys, a, d, BARRAGE, pa.hit_order, "never", pd.hit_order, "never")
  if fired ~= nil then
    ongoing = fired
  elseif ongoing then
    local after_afb_hooked, assign_hooked = ctx:hooked("space_combat.after_anti_fighter_barrage_roll", "space_combat.assign_hits")
    local ran = ctx:open("space_combat.before_combat")                     -- 2
    ran = ran + ctx:open("space_combat.anti_fighter_barrage")
    local afb_a = roll(ctx, a, sys, AFB, "space_combat.after_anti_fighter_barrage_roll", after_afb_hooked)
    local afb_d = roll(ctx, d, sys, AFB, "space_combat.after_anti_fighter_barrage_roll", after_afb_hooked)
    local destroyed = assign(ctx, a, d, pa, pd, sys, afb_d, afb_a, AFB_HITS, assign_hooked,
      barrage_hits(ctx, d), barrage_hits(ctx, a))
    if destroyed > 0 or ran > 0 or after_afb_hooked or assign_hooked then
      ongoing = has_ships(ctx, a, sys) and has_ships(ctx, d, sys)
    end
  end
  if not ongoing then over(ctx, sys) end
end

-- One round of the combat (steps 2 to 5), or as many as ctx:exchange_fire runs in C++; "again"
-- while both sides still have ships. With a stop (rounds = k) every round is run here, one per
-- step, and the combat stops after round k (lib.stop_rounds).
function M.rounds(ctx)
  local a, d, sys = ctx:role("attacker", "defender", "active_system")
  if not fighting(ctx, sys) then return end
  -- the systems each side may retreat to are those adjacent as it sees them (a border closed to
  -- it is not crossed: galaxy.adjacent)
  local neighbours_a, neighbours_d = galaxy.adjacent(ctx, sys, a), galaxy.adjacent(ctx, sys, d)
  local pa, pd = ctx:policy(a), ctx:policy(d)
  local limit = lib.round_limit(ctx)
  -- no retreat is possible, or none will be announced: nothing to decide in a round
  if limit == 0 and not ((#neighbours_a > 0 and may_announce(ctx, a, pa)) or (#neighbours_d > 0 and may_announce(ctx, d, pd))) then
    local ongoing = ctx:exchange_fire(sys, a, d, FIRE, pa.hit_order, pa.sustain, pd.hit_order, pd.sustain, round_cap(ctx, a, d))
    if not ongoing then return over(ctx, sys) end
    if ongoing == "again" then return "again" end
  end
  local round = ctx:counter(sys, "round")
  if round > 1 then
    -- 9: only an ability at the start of the round can have changed who has ships
    if ctx:open("space_combat.start_of_round") > 0 and not (has_ships(ctx, a, sys) and has_ships(ctx, d, sys)) then
      return over(ctx, sys)
    end
  end
  local after_roll_hooked, assign_hooked = ctx:hooked("space_combat.after_roll", "space_combat.assign_hits")

  -- Step 2, announce retreats: the defender first; the attacker cannot if the defender did (4.2)
  ctx:open("space_combat.announce_retreats")
  local announced_d, retreating_d = announce(ctx, d, sys, neighbours_d)
  local retreating_a = false
  if not announced_d then
    local _
    _, retreating_a = announce(ctx, a, sys, neighbours_a)
  end

  -- Step 3, roll dice: the attacker rolls all their dice before the defender (5.6)
  ctx:open("space_combat.before_roll")
  local hits_a, hits_d = roll_dice(ctx, a, d, sys, after_roll_hooked)

  -- Step 4, assign hits: each player destroys one of their own ships per hit produced (6)
  assign(ctx, a, d, pa, pd, sys, hits_d, hits_a, HITS, assign_hooked)

  -- Step 5, retreat (7)
  ctx:open("space_combat.before_retreat")
  if retreating_d then retreat(ctx, d, sys, neighbours_d) end
  if retreating_a then retreat(ctx, a, sys, neighbours_a) end

  -- 8, 9: another round while both still have ships; the last round's end windows merge (9.1)
  if not (has_ships(ctx, a, sys) and has_ships(ctx, d, sys)) then return over(ctx, sys) end
  -- an ability after the round (Exotrireme II) may leave a side without ships: then this was
  -- the last round and its end is the end of combat
  if ctx:open("space_combat.end_of_round") > 0 and not (has_ships(ctx, a, sys) and has_ships(ctx, d, sys)) then
    ctx:set_flag(sys, "ended_after_round", "combat")
    return over(ctx, sys)
  end
  ctx:end_scope("round")
  -- rounds = k: both sides still have ships after round k; the run ends here (ongoing)
  if limit > 0 and round >= limit then
    lib.stop_rounds(ctx, sys, round)
    return over(ctx, sys)
  end
  ctx:set_counter(sys, "round", math.min(round + 1, round_cap(ctx, a, d)), "combat")
  ctx:add_metric("rounds", 1)  -- a new round begins
  return "again"
end

-- The end of the combat: its windows (9.1) and the winner (10). A combat stopped after round k
-- (rounds = k) has not ended: no end windows, the outcome stays "ongoing".
function M.finish(ctx)
  local a, d, sys = ctx:role("attacker", "defender", "active_system")
  if ctx:counter(sys, "round") == 0 then return end  -- no combat
  if lib.rounds_stopped(ctx) then return end
  if ctx:flag(sys, "ended_after_round") then
    ctx:open("space_combat.end_of_combat")
  else
    ctx:open("space_combat.end_of_round", "space_combat.end_of_combat")
  end
  ctx:end_scope("round")

  -- 10: the player with ships left wins; neither: a draw
  local a_left, d_left = ctx:count(a, sys, "ship") > 0, ctx:count(d, sys, "ship") > 0
  if a_left and not d_left then
    ctx:result("attacker_win")
  elseif d_left and not a_left then
    ctx:result("defender_win")
  else
    ctx:result("draw")
  end
end

function M.after(ctx)
  local a, d, sys = ctx:role("attacker", "defender", "active_system")
  if ctx:counter(sys, "round") == 0 then return end  -- no combat
  -- stopped (rounds = k): the run ends there, with what each side lost until then
  if lib.rounds_stopped(ctx) then
    count_resources(ctx, a, d, 1)
    return count_damaged(ctx, a, d, sys)
  end
  ctx:open("space_combat.after_combat")
  -- 10.1 and notes: capacity is checked after the winner is known
  local carried_a, carried_d = ctx:count(a, sys, "fighter", "ground_force"), ctx:count(d, sys, "fighter", "ground_force")
  if carried_a > 0 then check_capacity(ctx, a, sys, carried_a) end
  if carried_d > 0 then check_capacity(ctx, d, sys, carried_d) end
  count_resources(ctx, a, d, 1)
  count_damaged(ctx, a, d, sys)
  ctx:end_scope("combat")
end

M.steps = { M.begin, M.rounds, M.finish, M.after }

function M.run(ctx)
  ctx:steps(M.steps)
end

return M
