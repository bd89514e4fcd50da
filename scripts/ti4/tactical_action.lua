-- TI4 tactical action, as the Learn to Play gives it (shared/rules/ti4-tactical-action.md):
-- 1 Activation, 2 Movement (with Space Cannon Offense and capacity), 3 Space Combat, 4 Invasion
-- (invasion.lua), 5 Production (production.lua): M.steps, run by ctx:steps. Each step is a
-- function(ctx) of the state alone (what one step tells the next, such as the planets invaded,
-- goes through the state), so the runtime may replay a step it has already run from the same
-- state (scripts/README.md, ctx:steps). Inside a step, st holds the facts it reads from the
-- state (st.player, st.system, st.players) and what it works out as it goes.
--
-- Movement is a search over paths: for each system holding the active player's ships, every
-- simple path of adjacent systems into the active system whose cost fits a ship's move value is
-- found (a detour around a blocked system included); each ship then takes one of them (decision
-- tactical_action.move_ship), and the chosen path decides pick-ups and what happens on the way
-- (the gravity rift's rolls hook tactical_action.ship_moves). What a system allows is asked once
-- per action through the window tactical_action.passage: the procedure fills in the Learn to
-- Play's own rules (no leaving a system with your command token, no passing another player's
-- ships other than fighters) and content adds the rest (anomalies in ti4-base/rules/anomalies.lua).

local M = {}

local lib = require "lib"
local space_combat = require "space_combat"
local invasion = require "invasion"
local production = require "production"

local SPACE_CANNON = { purpose = "space_cannon", die = "d10", value = "space_cannon", count = "space_cannon_dice" }
-- from an adjacent system: only units whose space cannon reaches (PDS II)
local SPACE_CANNON_ADJACENT = { purpose = "space_cannon", die = "d10", value = "space_cannon",
  count = "space_cannon_dice", eligible = "space_cannon_range" }
local SPACE_CANNON_HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "tactical_action.assign_space_cannon_hits", destroyed_window = "tactical_action.unit_destroyed" }


-- A step window with args {player, system}: opened when a hook can run there or the run is
-- traced (tests read the window events); else no args table is built.
local function open(ctx, st, window, player, sys)
  if st.hooked[window] == nil then st.hooked[window] = ctx:hooked(window) end
  if st.hooked[window] or ctx:tracing() then ctx:open(window, { player = player, system = sys }) end
end

-- What a step reads from the state: the active player and system, the players.
local function facts(ctx)
  return { player = ctx:role("active_player"), system = ctx:role("active_system"), players = ctx:players(),
    passage = {}, passage_through = {}, names = {}, hooked = {} }
end
M.facts = facts

-- The tallies of the report, each written by the step that counts it (zero until then).
local TALLIES = { "ships_moved", "lost_to_rifts", "lost_to_space_cannon", "resources_spent", "trade_goods_spent",
  "units_produced", "lost_to_bombardment", "lost_to_space_cannon_defense", "ground_rounds", "planets_invaded" }

-- ------------------------------------------------------------------ 1. Activation

function M.activation(ctx, st)
  local p, sys = st.player, st.system
  -- a hook may forbid the activation (another player's ability: Chaos Mapping); then the scenario
  -- is not a legal tactical action, an error naming why
  if ctx:hooked("tactical_action.before_activation") or ctx:tracing() then
    local args = { player = p, system = sys, allowed = true, reason = "" }
    ctx:open("tactical_action.before_activation", args)
    if not args.allowed then error("activation: " .. ctx:name(p) .. " cannot activate " .. ctx:name(sys) .. ": " .. tostring(args.reason), 0) end
  end
  -- setup rejects both with the scenario line; a hook cannot have changed them before this
  if ctx:get(p, "tactic_tokens") <= 0 then error("activation: " .. ctx:name(p) .. " has no command token in the tactic pool") end
  if #ctx:entities { kind = "command_token", owner = p, location = sys } > 0 then
    error("activation: " .. ctx:name(sys) .. " already contains one of " .. ctx:name(p) .. "'s command tokens")
  end
  for _, name in ipairs(TALLIES) do ctx:metric(name, 0) end
  ctx:set(p, "tactic_tokens", ctx:get(p, "tactic_tokens") - 1)
  ctx:create { kind = "command_token", owner = p, location = sys }
  ctx:metric("tactic_tokens", ctx:get(p, "tactic_tokens"))
  if ctx:tracing() then
    ctx:event("command_token:" .. ctx:name(p) .. ":" .. ctx:name(sys) .. ":tactic",
      ctx:name(p) .. " places a command token in " .. lib.place(ctx, sys) .. " from tactic")
    ctx:event("activate:" .. ctx:name(p) .. ":" .. ctx:name(sys),
      ctx:name(p) .. " activates " .. lib.place(ctx, sys) .. " with a token from the tactic pool (" .. ctx:get(p, "tactic_tokens") .. " left)")
  end
  open(ctx, st, "tactical_action.activation", p, sys)
end

-- ------------------------------------------------------------------ 2. Movement: the search

-- What a system allows the active player's ships, once per action (memo[sys]). `through`: for a
-- ship that may move through systems that contain other players' ships (tactical_action.move_value's
-- through_ships): other players' ships do not block it, what else the hooks say still holds.
local function passage(ctx, st, sys, through)
  local memo = through and st.passage_through or st.passage
  local f = memo[sys]
  if f then return f end
  local p = st.player
  -- "A ship cannot pass through a system that contains another player's ships, excluding fighters."
  local blocked = false
  for _, other in ipairs(st.players) do
    if other ~= p and ctx:count(other, sys, "ship") > ctx:count(other, sys, "fighter") then blocked = true end
  end
  f = {
    player = p, system = sys, active = sys == st.system,
    -- "A player cannot move units out of a system that contains one of his command tokens."
    can_leave = not st.tokens[sys],
    can_pass = through or not blocked,
    can_end = true,
    move_bonus = 0,   -- added to the move value of a ship that moves out of or through it
    move_limit = -1,  -- >= 0: the move value of a ship that moves out of it
    risk = false,     -- the default policy prefers paths through fewer risky systems
  }
  if st.passage_hooked then ctx:open("tactical_action.passage", f) end
  memo[sys] = f
  return f
end

-- The order the default policy reads paths in: fewest risky systems left, then the fewest systems,
-- then the cheapest, then by name.
local function path_order(a, b)
  if a.risk ~= b.risk then return a.risk < b.risk end
  if #a.systems ~= #b.systems then return #a.systems < #b.systems end
  if a.cost ~= b.cost then return a.cost < b.cost end
  return a.label < b.label
end

-- The systems a ship may move to from `u`: its adjacent systems, less those adjacent only through
-- identical wormholes (links of kind "wormhole", scripts/ti4/galaxy.lua) whose every shared type
-- has no effect during this movement (st.inactive_wormholes, set by a before_movement hook:
-- Enforced Travel Ban). Adjacency from other links (cards, laws, scenarios) and hexes stays.
local WORMHOLE_ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }
local function neighbours(ctx, st, u)
  local all = ctx:adjacent(u)
  local off = st.inactive_wormholes
  if not off then return all end
  local out = {}
  for _, v in ipairs(all) do
    local kinds, keep = ctx:link_kinds(u, v), true
    if #kinds == 1 and kinds[1] == "wormhole" then
      keep = false
      for _, a in ipairs(WORMHOLE_ATTRS) do
        local w = ctx:get(u, a)
        if w and not off[w] then
          for _, b in ipairs(WORMHOLE_ATTRS) do
            if ctx:get(v, b) == w then keep = true end
          end
        end
      end
    end
    if keep then out[#out + 1] = v end
  end
  return out
end

-- Every simple path from `start` into the active system whose cost is at most `budget`; the cost
-- of a path is what it asks of a move value: one per system moved out of, less that system's
-- move_bonus. Paths pass only systems that allow it, and the active system only where the Rules
-- Reference's movement is in force (st.pass_active: a ship may pass through it and come back).
-- `through`: the paths of a ship that may move through other players' ships (passage above).
local function find_paths(ctx, st, start, budget, through)
  local out, path, on = {}, { start }, { [start] = true }
  local function walk(u, spent)
    local fu = passage(ctx, st, u, through)
    local cost = spent + 1 - fu.move_bonus
    if cost > budget then return end
    for _, v in ipairs(st.inactive_wormholes and neighbours(ctx, st, u) or ctx:adjacent(u)) do
      if v == st.system then
        if passage(ctx, st, v, through).can_end then
          local copy = {}
          for i = 1, #path do copy[i] = path[i] end
          copy[#copy + 1] = v
          out[#out + 1] = { systems = copy, cost = cost }
        end
        -- the Rules Reference (pass_active): through the active system and back into it later
        if st.pass_active and not on[v] and passage(ctx, st, v, through).can_pass then
          on[v] = true
          path[#path + 1] = v
          walk(v, cost)
          path[#path] = nil
          on[v] = nil
        end
      elseif not on[v] then
        if passage(ctx, st, v, through).can_pass then
          on[v] = true
          path[#path + 1] = v
          walk(v, cost)
          path[#path] = nil
          on[v] = nil
        end
      end
    end
  end
  walk(start, 0)
  -- the default policy takes the first: fewest risky systems left, then the fewest systems
  for _, pth in ipairs(out) do
    local risk, names = 0, {}
    for i, s in ipairs(pth.systems) do
      if i < #pth.systems and passage(ctx, st, s, through).risk then risk = risk + 1 end
      local n = st.names[s]
      if not n then n = ctx:name(s); st.names[s] = n end
      names[i] = n
    end
    pth.risk, pth.label = risk, table.concat(names, ">")
  end
  table.sort(out, path_order)
  return out
end

-- A ship that may move from its system straight into the active system as if the two were
-- adjacent (a hook on tactical_action.ship_paths said so): its paths and that one, in order.
local function with_direct(ctx, st, paths, start)
  local from = passage(ctx, st, start)
  local label = ctx:name(start) .. ">" .. ctx:name(st.system)
  for _, pth in ipairs(paths) do
    if pth.label == label then return paths end
  end
  local out = { { systems = { start, st.system }, cost = 1 - from.move_bonus, risk = from.risk and 1 or 0, label = label } }
  for _, pth in ipairs(paths) do out[#out + 1] = pth end
  table.sort(out, path_order)
  return out
end

-- A ship's move value out of `start`: its own, or the start system's limit (nebula); then hooks,
-- which may also say the ship moves through systems that contain other players' ships
-- (through_ships). Returns the move value and through_ships.
local function move_value(ctx, st, u, start)
  local move = ctx:get(u, "move")
  local limit = passage(ctx, st, start).move_limit
  if limit >= 0 then move = limit end
  if st.move_value_hooked then
    local args = { player = st.player, unit = u, move = move, through_ships = false }
    ctx:open("tactical_action.move_value", args)
    return args.move, args.through_ships == true
  end
  return move, false
end

-- ------------------------------------------------------------------ 2. Movement: transport

-- The fighters and ground forces a ship on `pth` can pick up, in pick-up order: the start system,
-- then each system passed that holds none of the player's command tokens; in each, the space area,
-- then the ground forces on planets the player controls.
local function cargo_along(ctx, st, pth)
  local p, out = st.player, {}
  for i = 1, #pth.systems - 1 do
    local s = pth.systems[i]
    if i == 1 or passage(ctx, st, s).can_leave then
      for _, u in ipairs(ctx:units(p, s)) do
        if lib.needs_transport(ctx, u) then out[#out + 1] = u end
      end
      for _, planet in ipairs(ctx:entities { kind = "planet", location = s }) do
        if ctx:owner(planet) == p then
          for _, u in ipairs(ctx:units(p, planet, "ground_force")) do
            if lib.needs_transport(ctx, u) then out[#out + 1] = u end
          end
        end
      end
    end
  end
  return out
end

-- The cargo the player takes on ship `u`: for each type (in transport_order), how many
-- (decision tactical_action.pick_up, options "type:n").
local function load_cargo(ctx, st, u, pth)
  local room = ctx:get(u, "capacity")
  if room <= 0 then return {} end
  local available = cargo_along(ctx, st, pth)
  if #available == 0 then return {} end
  -- types in transport_order; within a type, in pick-up order
  local firsts, by_type, types = {}, {}, {}
  for _, c in ipairs(available) do
    local t = ctx:type(c)
    if not by_type[t] then by_type[t] = {}; firsts[#firsts + 1] = c end
    local list = by_type[t]
    list[#list + 1] = c
  end
  lib.sort_cargo(ctx, st.player, firsts)
  for i, c in ipairs(firsts) do types[i] = ctx:type(c) end
  local cargo = {}
  for _, t in ipairs(types) do
    if room <= 0 then break end
    local list = by_type[t]
    local options = {}
    for n = 0, math.min(room, #list) do options[#options + 1] = t .. ":" .. n end
    local n = tonumber(ctx:decide(st.player, "tactical_action.pick_up", options):match(":(%d+)$"))
    for i = 1, n do cargo[#cargo + 1] = list[i] end
    room = room - n
    if n > 0 and ctx:tracing() then
      ctx:event("pick_up:" .. ctx:name(st.player) .. ":" .. ctx:type(u) .. ":" .. t .. ":" .. n,
        ctx:name(st.player) .. "'s " .. ctx:type(u) .. " takes " .. n .. " " .. t)
    end
  end
  return cargo
end

-- ------------------------------------------------------------------ capacity (Key Concept)

-- lib.check_capacity: excess fighters and ground forces in the space area are destroyed.
function M.check_capacity(ctx, _, player, sys) lib.check_capacity(ctx, player, sys) end

-- ------------------------------------------------------------------ 2. Movement

function M.movement(ctx, st)
  local p, active = st.player, st.system
  -- the movement rules in force: the Learn to Play's, unless a hook switches on the Rules
  -- Reference's (ti4-lrr): every moving ship declared before any moves, passing the active system
  -- first: ships that move before the player's other ships (each takes its path on its own, first)
  local rules = { player = p, system = active, declare_first = false, pass_active = false, inactive_wormholes = nil,
    first = {} }
  if ctx:hooked("tactical_action.before_movement") or ctx:tracing() then ctx:open("tactical_action.before_movement", rules) end
  st.pass_active = rules.pass_active == true
  st.inactive_wormholes = type(rules.inactive_wormholes) == "table" and next(rules.inactive_wormholes) and rules.inactive_wormholes or nil
  st.passage_hooked, st.move_value_hooked, st.ship_moves_hooked, st.ship_paths_hooked =
    ctx:hooked("tactical_action.passage", "tactical_action.move_value", "tactical_action.ship_moves", "tactical_action.ship_paths")

  -- the systems holding one of the player's command tokens
  st.tokens = {}
  for _, t in ipairs(ctx:entities { kind = "command_token", owner = p }) do st.tokens[ctx:location(t)] = true end
  -- the ships that may move, by start system (in the order of the first ship's entity), each
  -- with its move value
  local starts, at = {}, {}
  for _, u in ipairs(ctx:units(p, nil, "move")) do
    local sys = ctx:location(u)
    -- a ship, or a structure with a move value in a space area (it moves as a ship: Floating Factory)
    if sys ~= active and (ctx:get(u, "ship") or ctx:get(u, "structure")) and ctx:kind(sys) == "system" then
      local start = at[sys]
      if not start then start = { system = sys, ships = {} }; at[sys] = start; starts[#starts + 1] = start end
      start.ships[#start.ships + 1] = u
    end
  end
  -- the ships a hook named to move first: each on its own, before every other start system
  if #rules.first > 0 then
    local firsts, rest, named = {}, {}, {}
    for _, u in ipairs(rules.first) do named[u] = true end
    for _, start in ipairs(starts) do
      local others = {}
      for _, u in ipairs(start.ships) do
        if named[u] then firsts[#firsts + 1] = { system = start.system, ships = { u } } else others[#others + 1] = u end
      end
      if #others > 0 then rest[#rest + 1] = { system = start.system, ships = others } end
    end
    starts = firsts
    for _, start in ipairs(rest) do starts[#starts + 1] = start end
  end

  local left = {}   -- systems ships or cargo left: capacity is checked there afterwards
  local moved, lost = 0, 0
  -- a ship's move: its path chosen (decision tactical_action.move_ship), then taken
  local function choose(u, t, sys, paths, move, n)
    local options, by_label = {}, {}
    for _, pth in ipairs(paths) do
      if pth.cost <= move then options[#options + 1] = pth.label; by_label[pth.label] = pth end
    end
    if #options == 0 then
      if ctx:tracing() then
        ctx:event("cannot_move:" .. ctx:name(p) .. ":" .. t .. ":" .. ctx:name(sys),
          ctx:name(p) .. "'s " .. t .. " in " .. lib.place(ctx, sys) .. " cannot reach " .. lib.place(ctx, active))
      end
      return nil
    end
    options[#options + 1] = "stay"
    ctx:set_role("moving_ship", u)
    ctx:set_counter(u, "move_ordinal", n, "action")  -- the n-th of its type here (scripted moves)
    return by_label[ctx:decide(p, "tactical_action.move_ship", options)]
  end
  local function go(u, t, sys, pth)
    ctx:set_role("moving_ship", u)
    local cargo = load_cargo(ctx, st, u, pth)
    for _, c in ipairs(cargo) do left[#left + 1] = ctx:location(c) end
    left[#left + 1] = sys
    if ctx:tracing() then
      ctx:event("move:" .. ctx:name(p) .. ":" .. t .. ":" .. pth.label,
        ctx:name(p) .. "'s " .. t .. " moves " .. lib.path_text(ctx, pth.systems) .. (#cargo > 0 and (" carrying " .. #cargo) or ""))
    end
    if st.ship_moves_hooked then
      ctx:open("tactical_action.ship_moves", { player = p, unit = u, path = pth.systems, cargo = cargo })
    end
    if ctx:location(u) == sys then
      ctx:move(u, active)
      for _, c in ipairs(cargo) do ctx:move(c, active) end
      moved = moved + 1
    else
      -- destroyed on the way (gravity rift): what it carries is destroyed with it
      if ctx:location(u) == "reinforcements" or ctx:location(u) == nil then lost = lost + 1 end
      for _, c in ipairs(cargo) do
        if ctx:tracing() then
          ctx:event("lost_with_ship:" .. ctx:name(p) .. ":" .. ctx:type(c),
            ctx:name(p) .. "'s " .. ctx:type(c) .. " is destroyed with the ship that carried it")
        end
        ctx:destroy(c, "tactical_action.unit_destroyed")
      end
    end
  end
  local declared = {}  -- declare_first: the moves chosen, taken once every ship has chosen
  for _, start in ipairs(starts) do
    local sys = start.system
    local paths, budget, moves = {}, -1, {}
    -- ships that move through other players' ships search their own paths
    local through, through_paths, through_budget = {}, {}, -1
    if passage(ctx, st, sys).can_leave then
      for i, u in ipairs(start.ships) do
        moves[i], through[i] = move_value(ctx, st, u, sys)
        if through[i] then
          if moves[i] > through_budget then through_budget = moves[i] end
        elseif moves[i] > budget then
          budget = moves[i]
        end
      end
      if budget > 0 then paths = find_paths(ctx, st, sys, budget) end
      if through_budget > 0 then through_paths = find_paths(ctx, st, sys, through_budget, true) end
    end
    local ordinal = {}
    for i, u in ipairs(start.ships) do
      local t = ctx:type(u)
      ordinal[t] = (ordinal[t] or 0) + 1
      local own = through[i] and through_paths or paths
      -- a ship that may treat itself as adjacent to the active system (the window says so)
      if st.ship_paths_hooked and moves[i] and moves[i] >= 1 and passage(ctx, st, st.system).can_end then
        local args = { player = p, unit = u, start = sys, direct = false }
        ctx:open("tactical_action.ship_paths", args)
        if args.direct == true then own = with_direct(ctx, st, own, sys) end
      end
      local pth = choose(u, t, sys, own, moves[i] or -1, ordinal[t])
      if pth and rules.declare_first then
        declared[#declared + 1] = { u, t, sys, pth }
      elseif pth then
        go(u, t, sys, pth)
      end
    end
  end
  for _, m in ipairs(declared) do go(m[1], m[2], m[3], m[4]) end
  ctx:set_role("moving_ship", nil)
  ctx:metric("ships_moved", moved)
  ctx:metric("lost_to_rifts", lost)

  -- capacity: in the active system, and where units were left behind
  M.check_capacity(ctx, st, p, active)
  local seen = {}
  for _, s in ipairs(left) do
    local sys = ctx:kind(s) == "planet" and ctx:location(s) or s
    if not seen[sys] then seen[sys] = true; M.check_capacity(ctx, st, p, sys) end
  end
  open(ctx, st, "tactical_action.after_movement", p, active)
end

-- ------------------------------------------------------------------ Space Cannon Offense

-- Where a player's units may fire at the active system from: the active system's space area and
-- planets (every unit with space cannon), then each adjacent system's space area and planets
-- (only units whose space cannon reaches: space_cannon_range).
local function firing_positions(ctx, st, p)
  local out = {}
  local function add(loc, spec)
    local attr = spec == SPACE_CANNON and "space_cannon" or "space_cannon_range"
    if ctx:count(p, loc, attr) > 0 then out[#out + 1] = { loc, spec } end
  end
  local function system_and_planets(sys, spec)
    add(sys, spec)
    for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do add(planet, spec) end
  end
  system_and_planets(st.system, SPACE_CANNON)
  for _, adj in ipairs(ctx:adjacent(st.system)) do system_and_planets(adj, SPACE_CANNON_ADJACENT) end
  return out
end

function M.space_cannon_offense(ctx, st)
  local active, sys = st.player, st.system
  if ctx:flag(active, "skip_to_commit") then return end  -- a hook skipped to Commit Ground Forces
  local hooked_roll, hooked_assign = ctx:hooked("tactical_action.after_space_cannon_roll", "tactical_action.assign_space_cannon_hits")
  local opened, lost = false, 0
  -- the active player first, then the others in turn order from the active player
  local order, at = {}, 1
  for i, q in ipairs(st.players) do if q == active then at = i end end
  for k = 0, #st.players - 1 do order[#order + 1] = st.players[(at - 1 + k) % #st.players + 1] end
  for _, p in ipairs(order) do
    -- the others fire at the active player's ships; the active player at another player's ships
    local target = lib.space_cannon_target(ctx, p)
    local positions = target and firing_positions(ctx, st, p) or {}
    if #positions > 0 then
      if not opened then
        open(ctx, st, "tactical_action.before_space_cannon", active, sys)
        opened = true
      end
      -- can_fire: a hook may forbid it (an ability that protects the target's ships)
      local can_fire = true
      if st.hooked.offense_target == nil then st.hooked.offense_target = ctx:hooked("tactical_action.before_space_cannon_offense") end
      if st.hooked.offense_target then
        local args = { player = p, target = target, system = sys, can_fire = true }
        ctx:open("tactical_action.before_space_cannon_offense", args)
        can_fire = args.can_fire
      end
      if can_fire and ctx:decide(p, "tactical_action.use_space_cannon", { "yes", "no" }) == "yes" then
        local hits = 0
        for _, pos in ipairs(positions) do
          local pool, h = ctx:roll_units(p, pos[1], pos[2])
          if hooked_roll and #pool > 0 then
            ctx:open("tactical_action.after_space_cannon_roll", { player = p, pool = pool, purpose = "space_cannon" })
            h = pool:hits()
          end
          hits = hits + h
        end
        if hooked_assign then
          local args = { player = p, target = target, hits = { [target] = hits } }
          ctx:open("tactical_action.assign_space_cannon_hits", args)
          hits = math.max(0, args.hits[target])
        end
        if hits > 0 then
          local tp = ctx:policy(target)
          local before = ctx:count(target, sys, "ship")
          ctx:assign_hits(target, sys, hits, SPACE_CANNON_HITS, tp.hit_order, tp.sustain)
          if target == active then lost = lost + before - ctx:count(target, sys, "ship") end
          M.check_capacity(ctx, st, target, sys)
        end
      end
    end
  end
  ctx:metric("lost_to_space_cannon", lost)
end

-- ------------------------------------------------------------------ 3. Space Combat

function M.space_combat(ctx, st)
  local a, d, sys = st.player, ctx:role("defender"), st.system
  -- a hook may skip to the Commit Ground Forces step (the action flag skip_to_commit on the
  -- active player, set after movement): no space combat
  if d and ctx:count(a, sys, "ship") > 0 and ctx:count(d, sys, "ship") > 0 and not ctx:flag(a, "skip_to_commit") then
    space_combat.begin(ctx)   -- attacker = the active player (setup); its rounds follow
  else
    if ctx:tracing() then ctx:event("no_combat", "no two players have ships in the active system: no space combat") end
    ctx:result("no_combat")
    ctx:add_metric("rounds", 0)
  end
end

-- ------------------------------------------------------------------ 4. Invasion, 5. Production

-- production.lua; then capacity, as fighters produced in space may exceed it
function M.production(ctx, st)
  if production.run(ctx, st) > 0 then M.check_capacity(ctx, st, st.player, st.system) end
end

-- The end of the active player's turn, after Production: "at the end of a player's turn" abilities;
-- then the report (one step: each step costs the memo a lookup).
function M.end_of_turn(ctx, st) open(ctx, st, "tactical_action.end_of_turn", st.player, st.system) end
function M.finish(ctx, st)
  M.end_of_turn(ctx, st)
  invasion.report(ctx, st)
end

-- The steps in order, each a function(ctx): invasion.lua's are bombardment, commit ground forces,
-- space cannon defense, ground combat and establish control.
-- A hook may end the active player's turn (the action flag turn_ended on them, after activation
-- say: Minister of Peace, Nullification Field): the steps up to Production are skipped (no combat: the outcome is no_combat; the combat's
-- own steps find no round begun); the end of the turn and the report still run.
local function step(f, always)
  return function(ctx)
    local st = facts(ctx)
    if not always and ctx:flag(st.player, "turn_ended") then
      if f == M.space_combat then
        if ctx:tracing() then ctx:event("turn_ended:" .. ctx:name(st.player), ctx:name(st.player) .. "'s turn has ended") end
        ctx:result("no_combat")
        ctx:add_metric("rounds", 0)
      end
      return
    end
    return f(ctx, st)
  end
end
M.steps = { step(M.activation), step(M.movement), step(M.space_cannon_offense), step(M.space_combat),
  -- the combat's rounds, its end and what follows it (space_combat.lua's steps; they do nothing
  -- when no combat began: the active system's round counter is 0)
  space_combat.rounds, space_combat.finish, space_combat.after }
for _, f in ipairs(invasion.steps) do M.steps[#M.steps + 1] = step(f) end
M.steps[#M.steps + 1] = step(M.production)
M.steps[#M.steps + 1] = step(M.finish, true)

function M.run(ctx)
  ctx:steps(M.steps)
  ctx:end_scope("action")
end

return M
