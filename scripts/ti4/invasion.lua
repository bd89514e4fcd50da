-- TI4 tactical action, step 4: Invasion (shared/rules/ti4-tactical-action.md, "4. Invasion", with
-- the Rules Reference details of shared/reference/ti4-tactical.md): bombardment, commit ground
-- forces, space cannon defense, ground combat, establish control: M.steps, each a function(ctx,
-- st) of the state, st the tactical action's facts (st.player, st.system, st.players). The planets
-- invaded are in the state: counter "invaded" on each, its place in the order of commitment.
--
-- Every roll carries its kind (bombardment, space_cannon_defense, ground_combat), so a modifier
-- of one kind never touches another, and every sub-step opens its own windows.

local M = {}
local lib = require "lib"  -- scripts/ti4/lib.lua

local BOMBARDMENT = { purpose = "bombardment", die = "d10", value = "bombardment", count = "bombardment_dice", eligible = "bombardment" }
local BOMBARDMENT_HITS = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged", keep = "dice",
  decision = "invasion.assign_bombardment_hits", destroyed_window = "invasion.unit_destroyed" }
-- only the PDS (space cannon) on the invaded planet fire
local SPACE_CANNON_DEFENSE = { purpose = "space_cannon_defense", die = "d10", value = "space_cannon", count = "space_cannon_dice" }
local SPACE_CANNON_DEFENSE_HITS = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged", keep = "dice",
  decision = "invasion.assign_space_cannon_defense_hits", destroyed_window = "invasion.unit_destroyed" }
local GROUND = { purpose = "ground_combat", die = "d10", value = "combat", count = "dice", eligible = "ground_force" }
local GROUND_HITS = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged", keep = "dice",
  decision = "invasion.assign_ground_hits", destroyed_window = "invasion.unit_destroyed",
  sustained_window = "invasion.unit_sustained_damage" }
-- Which ground forces are lost first: the player's hit_order (the default loses the units that
-- cannot take or hold a planet first, such as fighters in a ground combat, then infantry, then
-- mechs; a mech sustains first by the player's sustain policy).
local function ground_order(ctx, p) return ctx:policy(p).hit_order end

-- Rounds of ground combat with no hook that can run are plain exchanges of fire, run in C++
-- exactly as the round below would; a round is handed back as soon as one of these can run.
-- The counter "round" counts to 2 (round 1 or a later one: nothing else asks more; a stop after
-- round k, rounds = k, counts to k + 1), so a round that changes nothing leads back to the same state; the metric "ground_rounds" is added to as each
-- round begins.
local ROUND_CAP = 2
local FIRE = {
  roll = GROUND, hits = GROUND_HITS, counter = "round", counter_scope = "combat", round_scope = "round",
  metric = "ground_rounds",
  -- under the step memo, one round per run of the ground combat step (it returns "again"): runs
  -- meet again at the state a round leaves (see M.ground_combats)
  again = true,
  windows = { "invasion.start_of_ground_round", "invasion.after_ground_roll", "invasion.after_ground_roll_dice",
    "invasion.assign_ground_hits", "invasion.end_of_ground_round" },
  -- the round below opens these at the start of a round after the first and at the end of a
  -- round when the combat goes on (args: the call's last argument); the exact mode runs their
  -- hooks (the Dunlain Reaper, Harrow) in the rounds it enumerates in C++ rather than handing
  -- them back
  start_of_round = "invasion.start_of_ground_round",
  end_of_round = "invasion.end_of_ground_round",
}

local function planets_of(ctx, sys)
  return ctx:entities { kind = "planet", location = sys }
end

-- The players other than `p` with ground forces on `planet`, in turn order.
local function others_on(ctx, st, p, planet)
  local out = {}
  for _, q in ipairs(st.players) do
    if q ~= p and ctx:count(q, planet, "ground_force") > 0 then out[#out + 1] = q end
  end
  return out
end

-- The planets the active player committed ground forces to this action, in that order.
local function invaded(ctx, st)
  local out = {}
  for _, planet in ipairs(planets_of(ctx, st.system)) do
    if ctx:counter(planet, "invaded") > 0 then out[#out + 1] = planet end
  end
  table.sort(out, function(a, b) return ctx:counter(a, "invaded") < ctx:counter(b, "invaded") end)
  return out
end

local function open(ctx, st, window, args)
  if st.hooked[window] == nil then st.hooked[window] = ctx:hooked(window) end
  if st.hooked[window] or ctx:tracing() then return ctx:open(window, args) end
  return 0
end

local function event(ctx, key, text)
  if ctx:tracing() then ctx:event(key, text) end
end

-- ------------------------------------------------------------------ 1. Bombardment

-- Whether a planet cannot be bombarded by the player: shielded (a unit with Planetary Shield on it,
-- unless the player has a war sun in the system; hooks change it: Disable, Letnev flagship), or
-- forbidden (a hook forbids bombardment there whatever ignores shields: Conventions of War).
local function shielded(ctx, st, planet)
  local shield = false
  for _, q in ipairs(st.players) do
    if q ~= st.player and ctx:count(q, planet, "planetary_shield") > 0 then shield = true end
  end
  if shield and ctx:count(st.player, st.system, "type:war_sun") > 0 then shield = false end
  local args = { player = st.player, planet = planet, shielded = shield, forbidden = false }
  open(ctx, st, "invasion.planetary_shield", args)
  return args.shielded or args.forbidden
end

function M.bombardment(ctx, st)
  local p, sys = st.player, st.system
  open(ctx, st, "invasion.start_of_invasion", { player = p, system = sys })
  if ctx:flag(p, "skip_to_commit") then return end  -- a hook skipped to Commit Ground Forces
  -- when another player has ground forces on a planet of the active system
  local targets, names = {}, {}
  for _, planet in ipairs(planets_of(ctx, sys)) do
    if #others_on(ctx, st, p, planet) > 0 and not shielded(ctx, st, planet) then
      targets[#targets + 1] = planet
      names[#names + 1] = ctx:name(planet)
    end
  end
  if #targets == 0 then return end
  -- a ground force with Bombardment on one of the system's planets bombards as a ship would (the
  -- L1Z1X mech: it bombards like a ship while not in a ground combat): it joins the
  -- space area's units for the declaration and the roll (one pool), and goes back to its planet
  local from_planets = {}
  for _, planet in ipairs(planets_of(ctx, sys)) do
    for _, u in ipairs(ctx:units(p, planet, "bombardment")) do
      from_planets[#from_planets + 1] = { u, planet }
      ctx:move(u, sys)
    end
  end
  local function back()
    for _, up in ipairs(from_planets) do
      if ctx:location(up[1]) == sys then ctx:move(up[1], up[2]) end
    end
  end
  if ctx:count(p, sys, "bombardment") == 0 then return end
  open(ctx, st, "invasion.before_bombardment", { player = p, system = sys })
  -- each unit declares its target planet before any die is rolled
  local target_of, options = {}, { "none" }
  for _, n in ipairs(names) do options[#options + 1] = n end
  local any = false
  for _, u in ipairs(ctx:units(p, sys, "bombardment")) do
    ctx:set_role("bombarding_unit", u)
    local choice = ctx:decide(p, "invasion.bombardment_target", options)
    for i, n in ipairs(names) do if n == choice then target_of[u] = targets[i]; any = true end end
    if target_of[u] then event(ctx, "bombardment_target:" .. ctx:name(p) .. ":" .. ctx:type(u) .. ":" .. choice,
      ctx:name(p) .. "'s " .. ctx:type(u) .. " will bombard " .. choice) end
  end
  ctx:set_role("bombarding_unit", nil)
  if not any then return back() end
  local pool = ctx:roll_units(p, sys, BOMBARDMENT)
  -- a unit that declared no target does not roll: its dice are cancelled
  for i = 1, #pool do
    if not target_of[pool:unit(i)] then pool:cancel(i) end
  end
  open(ctx, st, "invasion.after_bombardment_roll", { player = p, pool = pool, purpose = "bombardment" })
  back()
  local hits, lost = {}, 0
  for i = 1, #pool do
    local planet = target_of[pool:unit(i)]
    if planet and pool:hit(i) then hits[planet] = (hits[planet] or 0) + 1 end
  end
  for _, planet in ipairs(targets) do
    local n = hits[planet] or 0
    if n > 0 then
      local args = { player = p, planet = planet, hits = n, sustain_cancels = {} }
      open(ctx, st, "invasion.assign_bombardment_hits", args)
      n = math.max(0, args.hits)
      -- hits destroy ground forces on that planet: those of the first other player there in turn
      -- order (a planet holds one other player's ground forces in play)
      local q = others_on(ctx, st, p, planet)[1]
      if n > 0 and q then
        local before = ctx:count(q, planet, "ground_force")
        ctx:assign_hits(q, planet, n, BOMBARDMENT_HITS, ground_order(ctx, q), ctx:policy(q).sustain, args.sustain_cancels[q])
        lost = lost + before - ctx:count(q, planet, "ground_force")
      end
    end
  end
  -- the planets bombarded: each that a unit of the player declared as its target, in the system's order
  local bombarded, seen = {}, {}
  for _, planet in pairs(target_of) do seen[planet] = true end  -- a set: the order comes from targets
  for _, planet in ipairs(targets) do if seen[planet] then bombarded[#bombarded + 1] = planet end end
  open(ctx, st, "invasion.after_bombardment", { player = p, system = sys, planets = bombarded })
  ctx:metric("lost_to_bombardment", lost)
end

-- ------------------------------------------------------------------ 2. Commit ground forces

-- The planets in the order commitments are asked: those without other players' ground forces
-- first (the default policy lands one ground force on each), then the contested ones.
local function commit_order(ctx, st)
  local free, contested = {}, {}
  for _, planet in ipairs(planets_of(ctx, st.system)) do
    if #others_on(ctx, st, st.player, planet) > 0 then contested[#contested + 1] = planet
    else free[#free + 1] = planet end
  end
  for _, planet in ipairs(contested) do free[#free + 1] = planet end
  return free
end

function M.commit(ctx, st)
  local p, sys = st.player, st.system
  local planets = {}
  -- a hook may bring more ground forces to commit (from planets: G'hom Sek'kus)
  open(ctx, st, "invasion.before_commit", { player = p, system = sys })
  -- nothing to commit: a ground combat Coalescence made may still turn to coexistence
  if ctx:count(p, sys, "ground_force") == 0 then return M.coexistence(ctx, st) end
  for _, planet in ipairs(commit_order(ctx, st)) do
    if ctx:count(p, sys, "ground_force") == 0 then break end
    ctx:set_role("invaded_planet", planet)
    -- by type, in the order the units are in the space area
    local types, by_type = {}, {}
    for _, u in ipairs(ctx:units(p, sys, "ground_force")) do
      local t = ctx:type(u)
      if not by_type[t] then by_type[t] = {}; types[#types + 1] = t end
      by_type[t][#by_type[t] + 1] = u
    end
    local landed = 0
    for _, t in ipairs(types) do
      local options = {}
      for n = 0, #by_type[t] do options[#options + 1] = t .. ":" .. n end
      local n = tonumber(ctx:decide(p, "invasion.commit_ground_forces", options):match(":(%d+)$"))
      for i = 1, n do ctx:move(by_type[t][i], planet) end
      landed = landed + n
      if n > 0 then
        event(ctx, "commit:" .. ctx:name(p) .. ":" .. t .. ":" .. n .. ":" .. ctx:name(planet),
          ctx:name(p) .. " commits " .. n .. " " .. t .. " to " .. lib.place(ctx, planet))
      end
    end
    if landed > 0 and ctx:owner(planet) ~= p then
      planets[#planets + 1] = planet
      ctx:set_counter(planet, "invaded", #planets, "action")
    end
  end
  ctx:set_role("invaded_planet", nil)
  ctx:metric("planets_invaded", #planets)
  open(ctx, st, "invasion.commit_ground_forces", { player = p, system = sys, planets = planets })
  M.coexistence(ctx, st)
end

-- Coexistence (Thunder's Edge; the pack ti4-te's README, "Coexistence"): when ground forces are
-- committed to a planet holding another player's ground forces, an ability may let either player
-- choose that their units there coexist instead of fighting. For each planet the active player
-- committed to (or Coalescence made a ground combat on) and each other player with ground forces
-- there, in turn order, the window invasion.coexistence asks which of the two may (args.may[player]
-- = true: a hook states only that the rules allow it); each that may is asked, the active player
-- first, whether to coexist (decision invasion.use_coexistence; the default policy fights). The
-- first "yes" settles it: no ground combat between the two on that planet (the planet's flag
-- "coexists_with:<opponent>", scope action), and the chooser's units coexist (lib.set_coexisting).
-- Establish Control then reads who chose; Space Cannon Defense, not a combat, still fires.
function M.coexistence(ctx, st)
  local w = "invasion.coexistence"
  if st.hooked[w] == nil then st.hooked[w] = ctx:hooked(w) end
  if not st.hooked[w] then return end
  local p = st.player
  for _, planet in ipairs(invaded(ctx, st)) do
    if ctx:count(p, planet, "ground_force") > 0 then
      for _, q in ipairs(others_on(ctx, st, p, planet)) do
        local args = { player = p, opponent = q, planet = planet, may = {} }
        ctx:open(w, args)
        for _, x in ipairs { p, q } do
          if args.may[x] then
            ctx:set_role("invaded_planet", planet)
            local yes = ctx:decide(x, "invasion.use_coexistence", { "yes", "no" }) == "yes"
            ctx:set_role("invaded_planet", nil)
            if yes then
              lib.set_coexisting(ctx, planet, x)
              ctx:set_flag(planet, "coexists_with:" .. ctx:name(q), "action")
              event(ctx, "coexist:" .. ctx:name(x) .. ":" .. ctx:name(planet),
                ctx:name(x) .. "'s units on " .. lib.place(ctx, planet) .. " coexist with " .. ctx:name(x == p and q or p)
                .. "'s: no ground combat between them there")
              break
            end
          end
        end
      end
    end
  end
end

-- ------------------------------------------------------------------ 3. Space cannon defense

function M.space_cannon_defense(ctx, st)
  local p, lost = st.player, 0
  for _, planet in ipairs(invaded(ctx, st)) do
    for _, q in ipairs(st.players) do
      if q ~= p and ctx:count(q, planet, "space_cannon") > 0 and ctx:count(p, planet, "ground_force") > 0 then
        -- can_fire: a hook may forbid it (L4 Disruptors)
        local before = { player = q, target = p, planet = planet, can_fire = true }
        open(ctx, st, "invasion.before_space_cannon_defense", before)
        if before.can_fire and ctx:decide(q, "invasion.use_space_cannon_defense", { "yes", "no" }) == "yes" then
          local pool, hits = ctx:roll_units(q, planet, SPACE_CANNON_DEFENSE)
          if open(ctx, st, "invasion.after_space_cannon_defense_roll", { player = q, pool = pool, purpose = "space_cannon_defense" }) > 0 then
            hits = pool:hits()
          end
          local args = { player = q, target = p, planet = planet, hits = { [p] = hits }, sustain_cancels = {} }
          if open(ctx, st, "invasion.assign_space_cannon_defense_hits", args) > 0 then hits = math.max(0, args.hits[p]) end
          if hits > 0 then
            local forces = ctx:count(p, planet, "ground_force")
            ctx:assign_hits(p, planet, hits, SPACE_CANNON_DEFENSE_HITS, ground_order(ctx, p), ctx:policy(p).sustain,
              args.sustain_cancels[p])
            lost = lost + forces - ctx:count(p, planet, "ground_force")
          end
        end
        open(ctx, st, "invasion.after_space_cannon_defense", { player = q, target = p, planet = planet })
      end
    end
  end
  ctx:metric("lost_to_space_cannon_defense", lost)
end

-- ------------------------------------------------------------------ 4. Ground combat

local function has_forces(ctx, p, planet) return ctx:count(p, planet, "ground_force") > 0 end

-- Whether the active player chose, or let `q` choose, coexistence with `q` on `planet` this action
-- (M.coexistence): then they do not fight there.
local function coexists_with(ctx, planet, q) return ctx:flag(planet, "coexists_with:" .. ctx:name(q)) end

-- The players the active player `p` fights on `planet`: those with ground forces there, in turn
-- order, but those they coexist with.
local function opponents_on(ctx, st, p, planet)
  local out = {}
  for _, q in ipairs(others_on(ctx, st, p, planet)) do
    if not coexists_with(ctx, planet, q) then out[#out + 1] = q end
  end
  return out
end

-- The place of player `q` in the action's players (a counter can hold it), 0 if none.
local function player_index(st, q)
  for i, x in ipairs(st.players) do
    if x == q then return i end
  end
  return 0
end

local START_WINDOWS = { "invasion.start_of_ground_combat", "invasion.start_of_ground_round" }

-- Make Combat Rolls: the active player first (only their hits when no script sees the dice);
-- then the window after the step, where an ability may have no hits assigned and the step
-- resolved again (args.roll_again; at most MAX_ROLL_AGAIN repeats in one round).
local MAX_ROLL_AGAIN = 20
local function roll_dice(ctx, st, planet, a, d)
  for _, w in ipairs { "invasion.after_ground_roll", "invasion.after_ground_roll_dice" } do
    if st.hooked[w] == nil then st.hooked[w] = ctx:hooked(w) end
  end
  for _ = 0, MAX_ROLL_AGAIN do
    local hits_a, hits_d
    if st.hooked["invasion.after_ground_roll"] or ctx:tracing() then
      local pool_a, pool_d
      pool_a, hits_a = ctx:roll_units(a, planet, GROUND)
      if open(ctx, st, "invasion.after_ground_roll", { player = a, opponent = d, planet = planet, pool = pool_a, purpose = "ground_combat" }) > 0 then hits_a = pool_a:hits() end
      pool_d, hits_d = ctx:roll_units(d, planet, GROUND)
      if open(ctx, st, "invasion.after_ground_roll", { player = d, opponent = a, planet = planet, pool = pool_d, purpose = "ground_combat" }) > 0 then hits_d = pool_d:hits() end
    else
      hits_a, hits_d = ctx:roll_hits(a, planet, GROUND), ctx:roll_hits(d, planet, GROUND)
    end
    if not st.hooked["invasion.after_ground_roll_dice"] then return hits_a, hits_d end
    local args = { player = a, opponent = d, planet = planet, hits = { [a] = hits_d, [d] = hits_a }, roll_again = false }
    ctx:open("invasion.after_ground_roll_dice", args)
    if args.roll_again ~= true then return hits_a, hits_d end
    event(ctx, "roll_again", "no hits are assigned: the Make Combat Rolls step is resolved again")
  end
  error("invasion.after_ground_roll_dice: roll_again was set more than " .. MAX_ROLL_AGAIN .. " times in one round", 0)
end

-- The end of a ground combat on `planet`: its last round's end and the combat's (only the
-- combat's when the round's end has opened already: a hook there, Harrow's bombardment, left a
-- side without ground forces), who won, the scopes. `begun`: the rounds begun in this call.
local function end_ground_combat(ctx, st, planet, a, d, args, round_ended, begun)
  if st.hooked["invasion.end_of_ground_round"] == nil then st.hooked["invasion.end_of_ground_round"] = ctx:hooked("invasion.end_of_ground_round") end
  if st.hooked["invasion.end_of_ground_combat"] == nil then st.hooked["invasion.end_of_ground_combat"] = ctx:hooked("invasion.end_of_ground_combat") end
  if round_ended then
    if st.hooked["invasion.end_of_ground_combat"] or ctx:tracing() then ctx:open("invasion.end_of_ground_combat", args) end
  elseif st.hooked["invasion.end_of_ground_round"] or st.hooked["invasion.end_of_ground_combat"] or ctx:tracing() then
    ctx:open("invasion.end_of_ground_round", "invasion.end_of_ground_combat", args)
  end
  ctx:end_scope("round")
  -- who won (the report's planet_n_ground_combat_*): 1 the active player, 2 the other, 3 neither
  -- has ground forces left
  local left_a, left_d = has_forces(ctx, a, planet), has_forces(ctx, d, planet)
  ctx:set_counter(planet, "ground_combat_result", left_a and not left_d and 1 or left_d and not left_a and 2 or 3, "action")
  if ctx:tracing() then  -- (a traced run fights every round in Lua: `begun` counts them all)
    event(ctx, "ground_combat_over:" .. ctx:name(planet) .. ":" .. begun,
      "ground combat on " .. lib.place(ctx, planet) .. " over after " .. begun .. " round(s): "
      .. ctx:count(a, planet, "ground_force") .. " against " .. ctx:count(d, planet, "ground_force") .. " ground forces left")
  end
  ctx:end_scope("combat")
end

-- One ground combat on `planet` between the active player `a` and `d`, in rounds of Make Combat
-- Rolls and Assign Hits, as the space combat steps of the same name. Returns "again" when the
-- step memo runs its rounds one per step (ctx:exchange_fire returned "again" after a round);
-- `resume` then goes on with it (the counter "round" on the planet says it is under way).
local function ground_combat(ctx, st, planet, a, d, resume)
  local pa, pd = ctx:policy(a), ctx:policy(d)
  local args = { player = a, opponent = d, planet = planet }
  local tracing = ctx:tracing()  -- (the events' texts are built only for a trace)
  -- the counter (capped), and the rounds begun in this call (in a trace all of them: its rounds
  -- are the procedure's, in one call)
  local round, begun = 1, 1
  local ongoing, round_ended = true, false
  -- rounds = k: every round is run here (not in C++), and the combat stops after round k
  local limit = lib.round_limit(ctx)
  local cap = math.max(ROUND_CAP, limit + 1)
  if not resume then
    ctx:set_counter(planet, "round", round, "combat")
    ctx:set_counter(planet, "opponent", player_index(st, d), "combat")
    ctx:add_metric("ground_rounds", 1)
    if tracing then
      event(ctx, "ground_combat:" .. ctx:name(planet), "ground combat on " .. lib.place(ctx, planet) .. ": " .. ctx:name(a) .. " against " .. ctx:name(d))
    end
    -- round 1: the start of the combat and of its first round are one window
    for _, w in ipairs(START_WINDOWS) do
      if st.hooked[w] == nil then st.hooked[w] = ctx:hooked(w) end
    end
    if st.hooked["invasion.start_of_ground_combat"] or st.hooked["invasion.start_of_ground_round"] or tracing then
      if ctx:open("invasion.start_of_ground_combat", "invasion.start_of_ground_round", args) > 0 then
        ongoing = has_forces(ctx, a, planet) and has_forces(ctx, d, planet)
      end
    end
  end
  while ongoing do
    if limit == 0 then
      ongoing = ctx:exchange_fire(planet, a, d, FIRE, pa.hit_order, pa.sustain, pd.hit_order, pd.sustain, ROUND_CAP, args)
      if ongoing == "again" then return "again" end
    end
    round = ctx:counter(planet, "round")
    if not ongoing then break end
    if round > 1 and open(ctx, st, "invasion.start_of_ground_round", args) > 0
      and not (has_forces(ctx, a, planet) and has_forces(ctx, d, planet)) then break end
    -- Make Combat Rolls: the active player first (only their hits when no script sees the dice)
    local hits_a, hits_d = roll_dice(ctx, st, planet, a, d)
    -- Assign Hits
    local hargs = { planet = planet, hits = { [a] = hits_d, [d] = hits_a }, sustain_cancels = {} }
    if open(ctx, st, "invasion.assign_ground_hits", hargs) > 0 then
      hits_d, hits_a = math.max(0, hargs.hits[a]), math.max(0, hargs.hits[d])
    end
    -- each player assigns against the board the rolls left; the units destroyed leave together
    -- (sustain_cancels: a hook's ability that makes a Sustain Damage cancel more hits here)
    ctx:assign_hits_each(planet, {
      { player = a, hits = hits_d, spec = GROUND_HITS, order = pa.hit_order, sustain = pa.sustain,
        sustain_cancels = hargs.sustain_cancels[a] },
      { player = d, hits = hits_a, spec = GROUND_HITS, order = pd.hit_order, sustain = pd.sustain,
        sustain_cancels = hargs.sustain_cancels[d] },
    })
    ongoing = has_forces(ctx, a, planet) and has_forces(ctx, d, planet)
    if ongoing then
      if open(ctx, st, "invasion.end_of_ground_round", args) > 0
        and not (has_forces(ctx, a, planet) and has_forces(ctx, d, planet)) then
        round_ended = true  -- a hook there (Harrow) left a side without ground forces: it is over
        break
      end
      ctx:end_scope("round")
      -- rounds = k: both sides still have ground forces after round k; the run ends here (the
      -- step runs again and finds the run stopped: tactical_action.lua's steps)
      if limit > 0 and round >= limit then
        lib.stop_rounds(ctx, planet, round)
        return "again"
      end
      round, begun = math.min(round + 1, cap), begun + 1
      ctx:set_counter(planet, "round", round, "combat")
      ctx:add_metric("ground_rounds", 1)
      -- the next round is the step's next run (a trace fights them all in this call): the exact
      -- mode's chain and the step memo meet again at the state a round leaves
      if not tracing then return "again" end
    end
  end
  end_ground_combat(ctx, st, planet, a, d, args, round_ended, begun)
end

-- The ground combats on `planet`: with several other players there, one against each in turn
-- order. With `resume`, the first of them is under way. "again": see ground_combat.
local function ground_combats_on(ctx, st, planet, p, resume)
  if resume then
    -- the combat under way ended at its last round's end, which ctx:exchange_fire's round opened
    -- (spec.end_of_round): a hook there (Harrow) left a side without ground forces
    local d = st.players[ctx:counter(planet, "opponent")]
    if d and not (has_forces(ctx, p, planet) and has_forces(ctx, d, planet)) then
      end_ground_combat(ctx, st, planet, p, d, { player = p, opponent = d, planet = planet }, true, ctx:counter(planet, "round"))
      resume = false
    end
  end
  for _, d in ipairs(opponents_on(ctx, st, p, planet)) do
    if has_forces(ctx, p, planet) and has_forces(ctx, d, planet) then
      if ground_combat(ctx, st, planet, p, d, resume) == "again" then return "again" end
      resume = false
    end
  end
end

-- The ground combats of the invasion, planet by planet in the order of the active player's
-- choice. Under the step memo the step runs one round and returns "again" (ctx:steps runs it
-- again from the state that round left); it then goes on with the ground combat under way (the
-- counter "round" on its planet: an earlier opponent there has no ground forces left), and
-- chooses among the planets where both sides still have ground forces.
function M.ground_combats(ctx, st)
  local p = st.player
  local planets = invaded(ctx, st)
  for _, planet in ipairs(planets) do
    if ctx:counter(planet, "round") > 0 then
      if ground_combats_on(ctx, st, planet, p, true) == "again" then return "again" end
      break
    end
  end
  local left = {}
  for _, planet in ipairs(planets) do
    if has_forces(ctx, p, planet) and #opponents_on(ctx, st, p, planet) > 0 then left[#left + 1] = planet end
  end
  while #left > 0 do
    local k = 1
    if #left > 1 then
      local names = {}
      for i, planet in ipairs(left) do names[i] = ctx:name(planet) end
      local choice = ctx:decide(p, "invasion.ground_combat_order", names)
      for i, n in ipairs(names) do if n == choice then k = i end end
    end
    local planet = table.remove(left, k)
    if ground_combats_on(ctx, st, planet, p) == "again" then return "again" end
  end
end

-- ------------------------------------------------------------------ 5. Establish control

-- With coexistence on an invaded planet (M.coexistence) and both players' ground forces still there:
-- when the active player's units coexist, they do not gain control; when the other player's do,
-- that player does not keep control: the active player gains it as usual, but the other player's
-- structures there are not destroyed (they coexist too). When the coexisting player's ground forces
-- are gone, control is established as without it.
local function coexisting_here(ctx, st, p, planet)
  local active, kept = false, {}
  for _, q in ipairs(others_on(ctx, st, p, planet)) do
    if coexists_with(ctx, planet, q) then
      kept[q] = true
      if lib.coexisting(ctx, planet, p) then active = true end
    end
  end
  return active, kept
end

function M.establish_control(ctx, st)
  local p = st.player
  for _, planet in ipairs(invaded(ctx, st)) do
    local coexists, kept = false, {}
    if has_forces(ctx, p, planet) then coexists, kept = coexisting_here(ctx, st, p, planet) end
    if coexists then
      event(ctx, "coexisting:" .. ctx:name(p) .. ":" .. ctx:name(planet),
        ctx:name(p) .. "'s ground forces coexist on " .. lib.place(ctx, planet) .. ": control does not change")
    elseif has_forces(ctx, p, planet) and ctx:owner(planet) ~= p then
      local from = ctx:owner(planet)
      ctx:set_owner(planet, p)
      ctx:set_flag(planet, "exhausted", "game")  -- the planet card is gained exhausted
      event(ctx, "planet_gained:" .. ctx:name(p) .. ":" .. ctx:name(planet),
        ctx:name(p) .. " gains control of " .. lib.place(ctx, planet) .. " (its card exhausted)")
      -- other players' structures there are destroyed
      for _, q in ipairs(st.players) do
        if q ~= p and not kept[q] then
          for _, u in ipairs(ctx:units(q, planet, "structure")) do
            event(ctx, "structure_destroyed:" .. ctx:name(q) .. ":" .. ctx:type(u) .. ":" .. ctx:name(planet),
              ctx:name(q) .. "'s " .. ctx:type(u) .. " on " .. lib.place(ctx, planet) .. " is destroyed")
            ctx:destroy(u, "invasion.unit_destroyed")
          end
        end
      end
      open(ctx, st, "invasion.planet_gained", { player = p, planet = planet, from = from })
    elseif not has_forces(ctx, p, planet) then
      event(ctx, "planet_kept:" .. ctx:name(planet), "no ground force of " .. ctx:name(p) .. " is left on " .. lib.place(ctx, planet) .. ": control does not change")
    end
  end
end

-- ------------------------------------------------------------------ the steps

function M.end_of_invasion(ctx, st)
  M.establish_control(ctx, st)
  open(ctx, st, "invasion.end_of_invasion", { player = st.player, system = st.system })
end

-- start_of_invasion opens with the bombardment step
M.steps = { M.bombardment, M.commit, M.space_cannon_defense, M.ground_combats, M.end_of_invasion }

-- The report after the whole action: who holds each planet of the active system, and the ground
-- forces on them (those production placed included); where each side's ships are: in the active
-- system, or elsewhere (those that did not or could not move, those that retreated; a ship
-- captured onto another player's faction sheet is in neither); the victory points each side
-- gained or lost (Shard of the Throne).
-- Whether the active player's ground forces and another player's are on `planet`, one side's
-- coexisting (chosen this action, or placed so: Crash Landing).
local function coexisting_with_active(ctx, st, p, planet)
  if not has_forces(ctx, p, planet) then return false end
  for _, q in ipairs(others_on(ctx, st, p, planet)) do
    if lib.coexisting(ctx, planet, p) or lib.coexisting(ctx, planet, q) then return true end
  end
  return false
end

function M.report(ctx, st)
  local p, sys = st.player, st.system
  for _, side in ipairs { "attacker", "defender" } do
    local q = ctx:role(side)
    local here, elsewhere = q and ctx:count(q, sys, "ship") or 0, 0
    -- elsewhere: in another system's space area (not a unit captured onto a faction sheet)
    for _, u in ipairs(q and ctx:units(q, nil, "ship") or {}) do
      local loc = ctx:location(u)
      if loc ~= sys and ctx:kind(loc) == "system" then elsewhere = elsewhere + 1 end
    end
    ctx:metric(side .. "_ships_in_active_system", here)
    ctx:metric(side .. "_ships_elsewhere", elsewhere)
    -- victory points gained (or lost) during the action: the player counter victory_points,
    -- written only when not 0 (a metric a run does not write counts as 0 in the report's mean)
    local vp = q and ctx:counter(q, "victory_points") or 0
    if vp ~= 0 then ctx:metric(side .. "_victory_points", vp) end
  end
  -- the space combat won: a defender had ships in the active system and only the active
  -- player's are left (not written without a defender: then nothing is conditional on it);
  -- lost: only the defender's are left. Either may come of Space Cannon Offense alone (no
  -- combat then): best play's wins in the tactical action
  local won
  local d = ctx:role("defender")
  if d and d ~= p then
    won = ctx:count(p, sys, "ship") > 0 and not lib.other_ships(ctx, p, sys)
    ctx:metric("space_combat_won", won and 1 or 0)
    ctx:metric("space_combat_lost", (ctx:count(p, sys, "ship") == 0 and ctx:count(d, sys, "ship") > 0) and 1 or 0)
  end
  local mine, theirs = 0, 0
  local RESULTS = { "won", "lost", "both_destroyed" }
  for i, planet in ipairs(planets_of(ctx, sys)) do
    mine = mine + ctx:count(p, planet, "ground_force")
    theirs = theirs + ctx:count(nil, planet, "ground_force") - ctx:count(p, planet, "ground_force")
    if i <= 3 then
      local controlled = ctx:owner(planet) == p
      ctx:metric("planet_" .. i .. "_controlled", controlled and 1 or 0)
      -- (a ground combat's report: the defender keeps the planet, best play's defender win)
      if i == 1 then ctx:metric("planet_1_not_controlled", controlled and 0 or 1) end
      if won ~= nil then ctx:metric("planet_" .. i .. "_controlled_and_won", (controlled and won) and 1 or 0) end
      -- the last ground combat fought there, by the active player's view of it
      local r = ctx:counter(planet, "ground_combat_result")
      if r > 0 then ctx:metric("planet_" .. i .. "_ground_combat_" .. RESULTS[r], 1) end
      -- the active player's ground forces coexist there with another player's (either side's
      -- units coexisting): neither a ground combat won nor lost; written only then
      if coexisting_with_active(ctx, st, p, planet) then ctx:metric("planet_" .. i .. "_coexisting", 1) end
    end
  end
  ctx:metric("ground_forces_attacker", mine)
  ctx:metric("ground_forces_defender", theirs)
  -- a combat stopped after round k (rounds = k): written only then (the report leaves an
  -- unwritten probability out)
  if lib.rounds_stopped(ctx) then ctx:metric("rounds_stopped", 1) end
end

return M
