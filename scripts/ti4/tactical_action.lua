-- TI4 tactical action, as the Learn to Play gives it (shared/rules/ti4-tactical-action.md):
-- 1 Activation, 2 Movement (with Space Cannon Offense and capacity), 3 Space Combat, 4 Invasion
-- (invasion.lua), 5 Production (production.lua): M.steps, run by ctx:steps. Each step is a
-- function(ctx) of the state alone (what one step tells the next, such as the planets invaded,
-- goes through the state), so the runtime may replay a step it has already run from the same
-- state (scripts/README.md, ctx:steps). Inside a step, st holds the facts it reads from the
-- state (st.player, st.system, st.players) and what it works out as it goes.
--
-- Movement is a search over paths: for each system holding the active player's ships, the simple
-- paths of adjacent systems into the active system whose cost fits a ship's move value are
-- searched (a detour around a blocked system included), and a path is offered for each distinct
-- outcome (what the ship can pick up on the way, whether it moves through a wormhole, the risky
-- systems it leaves: find_paths); each ship then takes one (decision tactical_action.move_ship),
-- and the chosen path decides pick-ups and what happens on the way (the gravity rift's rolls hook
-- tactical_action.ship_moves). What a system allows is asked once
-- per action through the window tactical_action.passage: the procedure fills in the Learn to
-- Play's own rules (no leaving a system with your command token, no passing another player's
-- ships other than fighters) and content adds the rest (anomalies in ti4-base/rules/anomalies.lua).

local M = {}

local lib = require "lib"
local galaxy = require "galaxy"
local space_combat = require "space_combat"
local invasion = require "invasion"
local production = require "production"

local SPACE_CANNON = { purpose = "space_cannon", die = "d10", value = "space_cannon", count = "space_cannon_dice" }
-- from an adjacent system: only units whose space cannon reaches (PDS II)
local SPACE_CANNON_ADJACENT = { purpose = "space_cannon", die = "d10", value = "space_cannon",
  count = "space_cannon_dice", eligible = "space_cannon_range" }
local SPACE_CANNON_HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged", keep = "dice",
  decision = "tactical_action.assign_space_cannon_hits", destroyed_window = "tactical_action.unit_destroyed",
  sustained_window = "tactical_action.unit_sustained_damage" }


-- A step window with args {player, system}: opened when a hook can run there or the run is
-- traced (tests read the window events); else no args table is built.
local function open(ctx, st, window, player, sys)
  if st.hooked[window] == nil then st.hooked[window] = ctx:hooked(window) end
  if st.hooked[window] or ctx:tracing() then ctx:open(window, { player = player, system = sys }) end
end

-- What a step reads from the state: the active player and system, the players.
local function facts(ctx)
  return { player = ctx:role("active_player"), system = ctx:role("active_system"), players = ctx:players(),
    passage = {}, passage_through = {}, passage_of = {}, names = {}, hooked = {} }
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
-- `unit`: a ship with a passage of its own (move_value's own_passage): what the system allows the
-- player's ships, then the window tactical_action.ship_passage for that ship alone, which also
-- reads what the system allows a ship that moves through other players' ships
-- (can_pass_through_ships); once per ship and system (D.W.S. Luminous).
local function passage(ctx, st, sys, through, unit)
  if unit then
    local mine = st.passage_of[unit] or {}
    st.passage_of[unit] = mine
    local f = mine[sys]
    if f then return f end
    f = { unit = unit, can_pass_through_ships = passage(ctx, st, sys, true).can_pass }
    for k, v in pairs(passage(ctx, st, sys, through)) do f[k] = v end
    ctx:open("tactical_action.ship_passage", f)
    mine[sys] = f
    return f
  end
  local memo = through and st.passage_through or st.passage
  local f = memo[sys]
  if f then return f end
  local p = st.player
  -- No ship passes through a system holding another player's ships other than fighters.
  local blocked = false
  for _, other in ipairs(st.players) do
    if other ~= p and ctx:count(other, sys, "ship") > ctx:count(other, sys, "fighter") then blocked = true end
  end
  f = {
    player = p, system = sys, active = sys == st.system,
    -- Units do not leave a system holding their owner's command token. (The
    -- Rules Reference lets ships leave the active system and come back: st.leave_active.)
    can_leave = not st.tokens[sys] or (sys == st.system and st.leave_active),
    can_pass = through or not blocked,
    through_ships = through == true,  -- the passage of a ship that moves through other players' ships
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
-- Borders closed to the active player (Void Tether) are left out first (galaxy.adjacent).
local WORMHOLE_ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }
local function neighbours(ctx, st, u)
  local all = galaxy.adjacent(ctx, u, st.player)
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

-- The most steps one path search may take (a step: a system entered, or two partial paths
-- compared). Ordinary maps need hundreds; a map whose rifts or links let a ship wander through
-- dozens of systems needs thousands. Past it the run ends with an error naming the search.
local SEARCH_STEPS = 100000
-- Up to this many pick-up systems still ahead, a partial path is bounded by each order it could
-- pick them up in (find_paths); past it, only once none is left.
local MAX_PICKUP_BOUNDS = 4
-- The steps of the plain walk find_paths tries first (every simple path, as the old search did):
-- past it, the pruned search takes over.
local QUICK_STEPS = 500

-- A binary heap of { priority, value } (the distance searches below).
local function heap_push(h, priority, value)
  local i = #h + 1
  h[i] = { priority, value }
  while i > 1 do
    local j = i // 2
    if h[j][1] <= h[i][1] then break end
    h[i], h[j] = h[j], h[i]
    i = j
  end
end

local function heap_pop(h)
  local top, n = h[1], #h
  h[1] = h[n]
  h[n] = nil
  n = n - 1
  local i = 1
  while true do
    local l, m = 2 * i, i
    if l <= n and h[l][1] < h[m][1] then m = l end
    if l + 1 <= n and h[l + 1][1] < h[m][1] then m = l + 1 end
    if m == i then break end
    h[i], h[m] = h[m], h[i]
    i = m
  end
  return top[1], top[2]
end

-- For each system of a search's region: the least sum of weight(s) over the systems a path from
-- it still leaves (itself included) before it ends in the active system. `ends`: the systems a
-- path may end from; `preds[v]`: the systems of the region a path may enter v from. Weights >= 0.
local function to_end(ends, preds, weight)
  local dist, h = {}, {}
  for _, u in ipairs(ends) do heap_push(h, weight(u), u) end
  while #h > 0 do
    local d, u = heap_pop(h)
    if dist[u] == nil then
      dist[u] = d
      for _, x in ipairs(preds[u] or {}) do
        if dist[x] == nil then heap_push(h, d + weight(x), x) end
      end
    end
  end
  return dist
end

-- The fighters and ground forces of player `p` that a ship passing system `s` can take, appended
-- to `out` in pick-up order: the space area, then the ground forces on planets `p` controls.
local function cargo_in(ctx, p, s, out)
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
  return out
end

-- The bit of a risky system's kind of risk in a path's outcome: its anomaly (every gravity rift
-- acts alike: one roll each), or "" for a risk with no anomaly (Dimensional Tear). Bits are
-- given in the order kinds are met, once per action (st.risk_kinds).
local function risk_bit(ctx, st, s)
  local kind = ctx:get(s, "anomaly") or ""
  local bit = st.risk_kinds[kind]
  if not bit then
    local n = st.risk_kind_count + 1
    if n > 62 then error("movement: more than 62 kinds of risky systems", 0) end
    st.risk_kind_count = n
    bit = 1 << (n - 1)
    st.risk_kinds[kind] = bit
  end
  return bit
end

-- The paths from `start` into the active system whose cost is at most `budget`, one or a few for
-- each distinct outcome. A path is a simple path of adjacent systems; its cost is what it asks of
-- a move value: one per system moved out of, less that system's move_bonus (every prefix must fit
-- too). It passes only systems that allow it, and the active system only where the Rules
-- Reference's movement is in force (st.pass_active: a ship may pass through it and come back).
-- `through`: the paths of a ship that may move through other players' ships (passage above).
--
-- What a path changes in the game is its outcome: the units it can pick up (the systems passed
-- that hold some, in order: only when `carries`, a ship here has capacity), whether it moves
-- through a wormhole, the kinds of risky systems it leaves (a gravity rift's roll is the same
-- roll in every rift), and how many risky systems it leaves. The systems in between change
-- nothing, and there may be astronomically many ways through them (gravity rifts make moves
-- free). So, of the paths with the same outcome key (pick-ups, wormhole, kinds of risk), only
-- those a ship could prefer are kept: a path is dropped when another of its key comes first in
-- path_order (fewer risky systems, then fewer systems, then cheaper, then by name) and costs no
-- more. For any move value, the first path that fits is then the same as among all paths, and
-- each key offers the ship one path: its first that fits (choose, in M.movement).
--
-- Most searches are small: they walk every simple path, as the search always did, and keep what
-- they find as above. Past QUICK_STEPS steps the walk starts again, pruned: it walks partial
-- paths depth first, the most promising next system first, and drops one that cannot lead to a
-- path that would be kept:
-- * it cannot reach the active system within the budget (the least cost from each system to
--   the end, by a Dijkstra over the region a path from `start` can reach);
-- * another partial path to the same system, with the same key so far, came first in
--   path_order, cost no more and visited no system this one has not (its continuations are open
--   to that one, with results that come first); or a shortcut (an earlier system is adjacent)
--   leaves out only systems that change nothing in its key;
-- * only pick-ups (at most MAX_PICKUP_BOUNDS) can still change its key, and for each order it
--   could make them in, a path found already comes before anything it could still become (by
--   the least risks, systems and cost between the systems; seeds find such paths first).
-- All three keep the result exact. What they cannot prune (many pick-ups in a field of rifts)
-- ends after SEARCH_STEPS steps with an error naming the search.
local function find_paths(ctx, st, start, budget, through, carries, unit)
  local p, active = st.player, st.system
  local function pass(s) return passage(ctx, st, s, through, unit) end
  local function weight(s) return 1 - pass(s).move_bonus end
  local function name(s)
    local n = st.names[s]
    if not n then n = ctx:name(s); st.names[s] = n end
    return n
  end
  local adjacent = {}
  local function adj(u)
    local a = adjacent[u]
    if not a then
      a = neighbours(ctx, st, u)
      adjacent[u] = a
    end
    return a
  end
  local can_end = pass(active).can_end
  if not can_end then return {} end
  local function risk_of(s) return pass(s).risk and 1 or 0 end
  local kind_memo = {}
  local function kind_bit(s)
    local k = kind_memo[s]
    if not k then
      k = pass(s).risk and risk_bit(ctx, st, s) or 0
      kind_memo[s] = k
    end
    return k
  end
  -- whether a step from a to b moves through a wormhole: the two are linked as wormhole systems
  -- or share a wormhole type (Sai Seravus reads this off the path); each system's wormholes once
  local holes = {}
  local function holes_of(s)
    local h = holes[s]
    if not h then
      h = { types = {}, linked = {}, any = false }
      for _, x in ipairs(WORMHOLE_ATTRS) do
        local w = ctx:get(s, x)
        if w then h.types[w], h.any = true, true end
      end
      for _, y in ipairs(ctx:adjacent(s, "wormhole")) do h.linked[y], h.any = true, true end
      holes[s] = h
    end
    return h
  end
  local function through_wormhole(a, b)
    local ha = holes_of(a)
    if not ha.any then return false end
    if ha.linked[b] then return true end
    local hb = holes_of(b)
    for w in pairs(ha.types) do
      if hb.types[w] then return true end
    end
    return false
  end

  -- the paths found, by key: a path is kept unless a path of its key comes first and costs no more
  local found = {}
  local function keep(pth)
    local list = found[pth.key] or {}
    local kept = {}
    for _, f in ipairs(list) do
      if f.cost <= pth.cost and path_order(f, pth) then return end
      if not (pth.cost <= f.cost and path_order(pth, f)) then kept[#kept + 1] = f end
    end
    kept[#kept + 1] = pth
    found[pth.key] = kept
  end
  local function finish(path, cost, risk, label, pickups_key, wormhole, kinds)
    local plain = (wormhole and "w" or "-") .. kinds
    local systems = {}
    for i = 1, #path do systems[i] = path[i] end
    systems[#systems + 1] = active
    keep { systems = systems, cost = cost, risk = risk, label = label .. ">" .. name(active), key = pickups_key .. "|" .. plain,
      plain = plain }
  end
  local function all_found()
    local out = {}
    for _, list in pairs(found) do
      for _, pth in ipairs(list) do out[#out + 1] = pth end
    end
    table.sort(out, path_order)
    return out
  end
  local offers_memo = {}
  local function offers(s)  -- whether passing s offers units to pick up (for a ship with capacity)
    local o = offers_memo[s]
    if o == nil then
      o = carries and s ~= start and s ~= active and pass(s).can_leave and #cargo_in(ctx, p, s, {}) > 0
      offers_memo[s] = o
    end
    return o
  end

  -- 0. Most searches are small: every simple path is walked, as it comes, up to QUICK_STEPS steps.
  do
    local path, on, steps, done = { start }, { [start] = true }, 0, true
    local function walk(u, spent, risk, label, picks, wormhole, kinds)
      steps = steps + 1
      if steps > QUICK_STEPS then done = false end
      if not done then return end
      local cost = spent + weight(u)
      if cost > budget then return end
      for _, v in ipairs(adj(u)) do
        if v == active then finish(path, cost, risk, label, picks, wormhole or through_wormhole(u, v), kinds) end
        if not on[v] and (v ~= active or st.pass_active) and pass(v).can_pass then
          on[v] = true
          path[#path + 1] = v
          walk(v, cost, risk + risk_of(v), label .. ">" .. name(v), offers(v) and (picks .. "," .. v) or picks,
            wormhole or through_wormhole(u, v), kinds | kind_bit(v))
          path[#path] = nil
          on[v] = nil
        end
      end
    end
    walk(start, 0, risk_of(start), name(start), "", false, kind_bit(start))
    if done then return all_found() end
    found = {}
  end

  -- 1. The region: the systems a path may leave within the budget (a Dijkstra from start). A
  -- system with a negative cost (move_bonus above 1) voids the bound: then the region is every
  -- system a path can enter, and no cost bound prunes.
  local region, nodes, bounded = {}, {}, true
  local function explore()
    region, nodes = {}, {}
    local best, h = { [start] = 0 }, { { 0, start } }
    while #h > 0 do
      local f, u = heap_pop(h)
      if not region[u] and f == best[u] then
        local w = weight(u)
        if w < 0 and bounded then
          bounded = false
          return explore()
        end
        if not bounded or f + w <= budget then
          region[u] = true
          nodes[#nodes + 1] = u
          for _, v in ipairs(adj(u)) do
            if v ~= start and (v ~= active or st.pass_active) and pass(v).can_pass then
              local fv = f + math.max(w, 0)
              if best[v] == nil or fv < best[v] then
                best[v] = fv
                heap_push(h, fv, v)
              end
            end
          end
        end
      end
    end
  end
  explore()

  -- 2. Bounds to the end, and what could still change a key: the systems that offer units to pick
  -- up, the kinds of risk and the wormhole steps on some way from start to the end.
  local ends, active_next, preds, index = {}, {}, {}, {}
  for i, u in ipairs(nodes) do
    index[u] = i - 1
    for _, v in ipairs(adj(u)) do
      if v == active then ends[#ends + 1] = u; active_next[u] = true end
      if region[v] then
        local list = preds[v]
        if not list then list = {}; preds[v] = list end
        list[#list + 1] = u
      end
    end
  end
  local cost_to_end = bounded and to_end(ends, preds, function(s) return math.max(weight(s), 0) end) or nil
  local systems_to_end = to_end(ends, preds, function() return 1 end)
  local risks_to_end = to_end(ends, preds, risk_of)
  local pickup, pickups = {}, {}  -- the systems that offer units to pick up (when `carries`)
  local any_wormhole, kinds_all = false, 0
  for _, u in ipairs(nodes) do
    if systems_to_end[u] then
      if offers(u) then
        pickup[u] = true
        pickups[#pickups + 1] = u
      end
      kinds_all = kinds_all | kind_bit(u)
      if not any_wormhole and holes_of(u).any then
        for _, v in ipairs(adj(u)) do
          if v ~= start and (v == active or systems_to_end[v]) and through_wormhole(u, v) then any_wormhole = true end
        end
      end
    end
  end

  -- the least cost, systems and risks from each system to each pick-up system, and each system's
  -- next systems on the way to the end, the most promising first
  local to_pickup = {}
  if bounded then
    for _, q in ipairs(pickups) do
      to_pickup[q] = { cost = to_end(preds[q] or {}, preds, function(s) return math.max(weight(s), 0) end),
        systems = to_end(preds[q] or {}, preds, function() return 1 end), risks = to_end(preds[q] or {}, preds, risk_of) }
    end
  end
  local onward = {}
  for _, u in ipairs(nodes) do
    local list = {}
    for _, v in ipairs(adj(u)) do
      if region[v] and systems_to_end[v] and v ~= start then list[#list + 1] = v end
    end
    table.sort(list, function(a, b)
      if risks_to_end[a] ~= risks_to_end[b] then return risks_to_end[a] < risks_to_end[b] end
      if systems_to_end[a] ~= systems_to_end[b] then return systems_to_end[a] < systems_to_end[b] end
      return index[a] < index[b]
    end)
    onward[u] = list
  end

  -- 3. The walk. Visited systems are also kept as bits over the region's systems (index), for
  -- the comparison of partial paths (62 to a word: on a huge region each costs more steps).
  local words, nwords = {}, (#nodes - 1) // 62 + 1
  for i = 1, nwords do words[i] = 0 end
  local function toggle(s)
    local i = index[s]
    local k = i // 62 + 1
    words[k] = words[k] ~ (1 << (i % 62))
  end
  local function within(other)
    for i = 1, nwords do
      if other[i] & ~words[i] ~= 0 then return false end
    end
    return true
  end
  -- the partial path: its systems, each system's place on it, and at each place what the path
  -- had gathered on arriving there (cost so far, pick-ups, wormhole, kinds of risk)
  local path, at_place = { start }, { [start] = 1 }
  local spent_at, npick_at, wormhole_at, kinds_at = {}, {}, {}, {}
  toggle(start)
  local partial, steps = {}, 0
  local function too_long()
    error("movement: the paths from " .. name(start) .. " to " .. name(active) .. " take more than "
      .. SEARCH_STEPS .. " steps to search (gravity rifts or links let a ship wander through too many systems)", 0)
  end

  -- Seeds, so that the bounds prune from the start: for each order of the pick-ups (when the
  -- bounds use them; else none), a path through them in that order made of legs with the fewest
  -- risky systems, then systems, that avoid the systems used and the other pick-ups (a greedy
  -- choice: it may miss an order that exists). A seed is a legal path (checked as the walk would)
  -- and is kept like any other; the walk finds the best ones.
  local function seed(order)
    local systems, used = { start }, { [start] = true }
    for _, q in ipairs(pickups) do used[q] = true end
    for _, q in ipairs(order) do used[q] = nil end
    local function leg(from, target)  -- target: a pick-up system, or nil for the active system
      local best, back, h = { [from] = 0 }, {}, { { 0, from } }
      while #h > 0 do
        local d, x = heap_pop(h)
        if d == best[x] then
          if (target == nil and active_next[x]) or x == target then
            local out = {}
            while x ~= from do table.insert(out, 1, x); x = back[x] end
            return out
          end
          if x ~= target then
            for _, y in ipairs(onward[x]) do
              local dy = d + 1000 * risk_of(x) + 1
              if not used[y] and (best[y] == nil or dy < best[y]) then best[y], back[y] = dy, x; heap_push(h, dy, y) end
            end
          end
        end
      end
      return nil
    end
    local at = start
    for i = 1, #order + 1 do
      local legs = leg(at, order[i])
      if not legs then return false end
      for _, y in ipairs(legs) do systems[#systems + 1] = y; used[y] = true end
      at = systems[#systems]
    end
    systems[#systems + 1] = active
    -- the seed as the walk would see it
    local cost, risk, picks, wormhole, kinds, names = 0, 0, "", false, 0, {}
    for i = 1, #systems - 1 do
      local x = systems[i]
      cost = cost + weight(x)
      if cost > budget then return false end
      risk = risk + risk_of(x)
      kinds = kinds | kind_bit(x)
      if pickup[x] then picks = picks .. "," .. x end
      wormhole = wormhole or through_wormhole(x, systems[i + 1])
      names[i] = name(x)
    end
    names[#systems] = name(active)
    local plain = (wormhole and "w" or "-") .. kinds
    keep { systems = systems, cost = cost, risk = risk, label = table.concat(names, ">"), key = picks .. "|" .. plain, plain = plain }
    return true
  end
  local function seeds(order, used)
    seed(order)
    if #pickups > MAX_PICKUP_BOUNDS then return end
    for _, q in ipairs(pickups) do
      if not used[q] then
        used[q] = true
        order[#order + 1] = q
        seeds(order, used)
        order[#order] = nil
        used[q] = nil
      end
    end
  end
  if bounded then seeds({}, {}) end

  -- Whether the path, arriving at v from its last system (at place n, the cost then `cost`, `npick`
  -- pick-ups before v, `wormhole` and `kinds` with the step to v), has a
  -- shortcut: an earlier system x that v is adjacent to, such that leaving out the systems after
  -- x changes nothing in the key and costs no more. The shortcut comes first in path_order and
  -- visits less, so it has every continuation this has, each coming first.
  local function shortcut(v, n, cost, npick, wormhole, kinds)
    for _, x in ipairs(preds[v] or {}) do
      local j = at_place[x]
      if j and j < n and npick_at[j] == npick and spent_at[j] + weight(x) <= cost
          and kinds_at[j] | kind_bit(v) == kinds and (wormhole_at[j] or through_wormhole(x, v)) == wormhole then
        return true
      end
    end
    return false
  end

  -- Whether a found path comes before every path a partial path could become: at system x, with
  -- `risk` (x's own included), `n` systems and `spent` before leaving x, its pick-ups so far
  -- `picks` and the rest of its key `plain` (wormhole and kinds of risk: these can no longer
  -- change), for each order of the pick-ups still ahead (none, or any of them next, and so on).
  -- The bounds are the least risks, systems and cost between the systems, visited or not.
  local function dominated(list, r, m, c)
    for _, f in ipairs(list or {}) do
      local fn = #f.systems
      if f.cost <= c and (f.risk < r or f.risk == r and (fn < m or fn == m and f.cost < c)) then return true end
    end
    return false
  end
  local function beaten(x, risk, n, spent, picks, plain, used)
    if not dominated(found[picks .. "|" .. plain], risk - risk_of(x) + risks_to_end[x], n + systems_to_end[x],
        spent + cost_to_end[x]) then
      return false
    end
    used = used or {}
    for _, q in ipairs(pickups) do
      local d = to_pickup[q]
      if not at_place[q] and not used[q] and d.systems[x] then
        steps = steps + 1
        used[q] = true
        local ok = beaten(q, risk - risk_of(x) + d.risks[x] + risk_of(q), n + d.systems[x], spent + d.cost[x],
          picks .. "," .. q, plain, used)
        used[q] = nil
        if not ok then return false end
      end
    end
    return true
  end

  local function walk(u, spent, risk, label, pickups_key, npick, wormhole, kinds)
    steps = steps + 1
    if steps > SEARCH_STEPS then too_long() end
    local cost = spent + weight(u)
    if cost > budget or systems_to_end[u] == nil then return end
    if bounded and spent + cost_to_end[u] > budget then return end
    local n = #path
    spent_at[n], npick_at[n], wormhole_at[n], kinds_at[n] = spent, npick, wormhole, kinds
    local key = pickups_key .. "|" .. (wormhole and "w" or "-") .. kinds
    -- only pick-ups left to change its key: for each order of pick-ups it could still make, a path
    -- found already comes before all it can become
    if bounded and (wormhole or not any_wormhole) and kinds == kinds_all and found[key]
        and #pickups - npick <= MAX_PICKUP_BOUNDS and beaten(u, risk, n, spent, pickups_key, (wormhole and "w" or "-") .. kinds) then
      return
    end
    -- another partial path to u with this key that comes first, costs no more and visited less
    local at = partial[u]
    if not at then at = {}; partial[u] = at end
    local list = at[key]
    if not list then list = {}; at[key] = list end
    local lab = label .. ">"
    for _, a in ipairs(list) do
      if a.cost <= cost and (a.risk < risk or a.risk == risk and (a.n < n or a.n == n and (a.cost < cost
          or a.cost == cost and a.lab < lab))) and within(a.words) then
        return
      end
    end
    steps = steps + (#list + 1) * nwords  -- the comparisons made and the copy kept, a word each
    if steps > SEARCH_STEPS then too_long() end
    local snapshot = {}
    for i = 1, nwords do snapshot[i] = words[i] end
    list[#list + 1] = { risk = risk, n = n, cost = cost, lab = lab, words = snapshot }

    if active_next[u] then finish(path, cost, risk, label, pickups_key, wormhole or through_wormhole(u, active), kinds) end
    for _, v in ipairs(onward[u]) do
      if not at_place[v] then
        local picks, np = pickups_key, npick
        if pickup[v] then picks, np = pickups_key .. "," .. v, npick + 1 end
        local w2, k2 = wormhole or through_wormhole(u, v), kinds | kind_bit(v)
        if not shortcut(v, n, cost, npick, w2, k2) then
          path[n + 1] = v
          at_place[v] = n + 1
          toggle(v)
          walk(v, cost, risk + risk_of(v), label .. ">" .. name(v), picks, np, w2, k2)
          toggle(v)
          path[n + 1] = nil
          at_place[v] = nil
        end
      end
    end
  end
  walk(start, 0, risk_of(start), name(start), "", 0, false, kind_bit(start))

  return all_found()
end

-- A path the scenario scripts for a ship (`text`: system names joined by ">"), when it is one the
-- ship may take under the rules find_paths follows and fits `move`; else nil. find_paths offers
-- one path per outcome, so a legal path that shares its outcome with another is checked here.
local function scripted_path(ctx, st, start, text, move, through, unit)
  local names = {}
  for n in text:gmatch("[^>]+") do names[#names + 1] = n end
  if names[1] ~= ctx:name(start) or #names < 2 then return nil end
  local systems, on, spent, risk = { start }, { [start] = true }, 0, 0
  for i = 2, #names do
    local u = systems[i - 1]
    local fu = passage(ctx, st, u, through, unit)
    spent = spent + 1 - fu.move_bonus
    if spent > move then return nil end
    if fu.risk then risk = risk + 1 end
    local v
    for _, x in ipairs(neighbours(ctx, st, u)) do
      if ctx:name(x) == names[i] then v = x end
    end
    if not v then return nil end
    local fv = passage(ctx, st, v, through, unit)
    if i == #names then
      if v ~= st.system or not fv.can_end then return nil end
    elseif on[v] or not fv.can_pass or (v == st.system and not st.pass_active) then
      return nil
    end
    on[v] = true
    systems[i] = v
  end
  return { systems = systems, cost = spent, risk = risk, label = text }
end

-- A ship that may move from its system straight into the active system as if the two were
-- adjacent (a hook on tactical_action.ship_paths said so): its paths and that one, in order.
local function with_direct(ctx, st, paths, start, unit)
  local from = passage(ctx, st, start, false, unit)
  local label = ctx:name(start) .. ">" .. ctx:name(st.system)
  for _, pth in ipairs(paths) do
    if pth.label == label then return paths end
  end
  local plain = "-" .. (from.risk and risk_bit(ctx, st, start) or 0)  -- no pick-ups, no wormhole (find_paths's keys)
  local out = { { systems = { start, st.system }, cost = 1 - from.move_bonus, risk = from.risk and 1 or 0, label = label,
    key = "|" .. plain, plain = plain } }
  for _, pth in ipairs(paths) do out[#out + 1] = pth end
  table.sort(out, path_order)
  return out
end

-- A ship's move value out of `start`: its own, or the start system's limit (nebula); then hooks,
-- which may also say the ship moves through systems that contain other players' ships
-- (through_ships), or that the ship has a passage of its own (own_passage: the window
-- tactical_action.ship_passage is opened for it alone). Returns the move value, through_ships and
-- own_passage.
local function move_value(ctx, st, u, start)
  local move = ctx:get(u, "move")
  local limit = passage(ctx, st, start).move_limit
  if limit >= 0 then move = limit end
  if st.move_value_hooked then
    local args = { player = st.player, unit = u, move = move, through_ships = false, own_passage = false }
    ctx:open("tactical_action.move_value", args)
    return args.move, args.through_ships == true, args.own_passage == true
  end
  return move, false, false
end

-- ------------------------------------------------------------------ 2. Movement: transport

-- The fighters and ground forces a ship on `pth` can pick up, in pick-up order, and for each the
-- place on the path of the system it is picked up in: the start system, then each system passed
-- that holds none of the player's command tokens; in each, the space area, then the ground forces
-- on planets the player controls. The active system only where the Rules Reference's transport is
-- in force (st.pick_up_active, RR 95.3), last (the ship ends there), and only the ground forces on
-- the player's planets there (what is in its space area is there already).
local function cargo_along(ctx, st, pth)
  local out, from, active, n = {}, {}, st.system, #pth.systems
  for i = 1, n - 1 do
    local s = pth.systems[i]
    if s ~= active and (i == 1 or passage(ctx, st, s).can_leave) then
      local k = #out
      cargo_in(ctx, st.player, s, out)
      for j = k + 1, #out do from[out[j]] = i end
    end
  end
  if st.pick_up_active then
    for _, planet in ipairs(ctx:entities { kind = "planet", location = active }) do
      if ctx:owner(planet) == st.player then
        for _, u in ipairs(ctx:units(st.player, planet, "ground_force")) do
          if lib.needs_transport(ctx, u) then out[#out + 1] = u; from[u] = n end
        end
      end
    end
  end
  return out, from
end

-- The cargo the player takes on ship `u`: for each type (in transport_order), how many
-- (decision tactical_action.pick_up, options "type:n"), and where on the path each was picked up
-- (cargo_along). Where units on the active system's planets are offered (last), the ship's action
-- counter pick_up_en_route says how many come before them, plus one (0: none of them offered):
-- the default policy leaves them on their planets.
local function load_cargo(ctx, st, u, pth)
  local room = ctx:get(u, "capacity")
  if room <= 0 then return {}, {} end
  local available, from = cargo_along(ctx, st, pth)
  if #available == 0 then return {}, from end
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
    if st.pick_up_active then
      local here = 0
      for _, c in ipairs(list) do if from[c] == #pth.systems then here = here + 1 end end
      ctx:set_counter(u, "pick_up_en_route", here > 0 and #list - here + 1 or 0, "action")
    end
    local n = tonumber(ctx:decide(st.player, "tactical_action.pick_up", options):match(":(%d+)$"))
    for i = 1, n do cargo[#cargo + 1] = list[i] end
    room = room - n
    if n > 0 and ctx:tracing() then
      ctx:event("pick_up:" .. ctx:name(st.player) .. ":" .. ctx:type(u) .. ":" .. t .. ":" .. n,
        ctx:name(st.player) .. "'s " .. ctx:type(u) .. " takes " .. n .. " " .. t)
    end
  end
  return cargo, from
end

-- ------------------------------------------------------------------ capacity (Key Concept)

-- lib.check_capacity: excess fighters and ground forces in the space area are destroyed.
function M.check_capacity(ctx, _, player, sys) lib.check_capacity(ctx, player, sys) end

-- ------------------------------------------------------------------ 2. Movement


function M.movement(ctx, st)
  local p, active = st.player, st.system
  -- the movement rules in force: the Learn to Play's, unless a hook switches on the Rules
  -- Reference's (ti4-lrr): every moving ship declared before any moves, passing the active system
  -- and coming back, ships that start in the active system leaving it and coming back
  -- (leave_active), units on the active system's planets picked up (pick_up_active);
  -- first: ships that move before the player's other ships (each takes its path on its own, first)
  local rules = { player = p, system = active, declare_first = false, pass_active = false, inactive_wormholes = nil,
    first = {}, leave_active = false, pick_up_active = false }
  if ctx:hooked("tactical_action.before_movement") or ctx:tracing() then ctx:open("tactical_action.before_movement", rules) end
  st.pass_active = rules.pass_active == true
  st.leave_active = rules.leave_active == true
  st.pick_up_active = rules.pick_up_active == true
  st.inactive_wormholes = type(rules.inactive_wormholes) == "table" and next(rules.inactive_wormholes) and rules.inactive_wormholes or nil
  st.passage_hooked, st.move_value_hooked, st.ship_moves_hooked, st.ship_paths_hooked, st.move_values_hooked =
    ctx:hooked("tactical_action.passage", "tactical_action.move_value", "tactical_action.ship_moves", "tactical_action.ship_paths",
      "tactical_action.move_values")

  st.risk_kinds, st.risk_kind_count = {}, 0  -- find_paths's kinds of risk
  -- the player's scripted moves (the scenario's `moves`, setup puts them in the policy), if any
  st.scripted_moves = ctx:policy(p).moves
  -- the systems holding one of the player's command tokens
  st.tokens = {}
  for _, t in ipairs(ctx:entities { kind = "command_token", owner = p }) do st.tokens[ctx:location(t)] = true end
  -- the ships that may move, by start system (in the order of the first ship's entity), each
  -- with its move value
  local starts, at = {}, {}
  for _, u in ipairs(ctx:units(p, nil, "move")) do
    local sys = ctx:location(u)
    -- a ship, or a structure with a move value in a space area (it moves as a ship: Floating Factory)
    if (sys ~= active or st.leave_active) and (ctx:get(u, "ship") or ctx:get(u, "structure")) and ctx:kind(sys) == "system" then
      local start = at[sys]
      if not start then start = { system = sys, ships = {} }; at[sys] = start; starts[#starts + 1] = start end
      start.ships[#start.ships + 1] = u
    end
  end
  -- a scripted move out of the active system, where ships stay unless the Rules Reference's
  -- movement is in force (leave_active): an error, as the rules forbid it
  if not st.leave_active then
    for i, m in ipairs(st.scripted_moves or {}) do
      if m.from == ctx:name(active) then
        ctx:reject(m.at or "players", "scripted move " .. i .. " (" .. m.unit .. " from " .. m.from .. "): a player cannot move units out of a system "
          .. "that contains one of his command tokens (the active system)")
      end
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
  -- a ship's move: its path chosen (decision tactical_action.move_ship), then taken. The options:
  -- for each outcome (find_paths: a ship with capacity tells paths apart by their pick-ups, one
  -- without does not), its first path that fits the ship's move value; and a path the scenario
  -- scripts for the ship, as written, when it is legal (it may share its outcome with an option)
  local function choose(u, t, sys, paths, move, n, through, unit)
    local options, by_label, seen = {}, {}, {}
    local carries = ctx:get(u, "capacity") > 0
    for _, pth in ipairs(paths) do
      local key = carries and pth.key or pth.plain
      if pth.cost <= move and not seen[key] then
        seen[key] = true
        options[#options + 1] = pth.label
        by_label[pth.label] = pth
      end
    end
    for _, m in ipairs(st.scripted_moves or {}) do
      if m.unit == t and m.path and not by_label[m.path] then
        local pth = scripted_path(ctx, st, sys, m.path, move, through, unit)
        if pth then
          options[#options + 1] = pth.label
          by_label[pth.label] = pth
        end
      end
    end
    if #options == 0 then
      -- a scripted move for this ship is an error: the rules forbid it (its system holds the
      -- player's command token, no path fits its move value), not something to drop
      local m, i = lib.scripted_move(st.scripted_moves, t, ctx:name(sys), n)
      if m then
        ctx:reject(m.at or "players", "scripted move " .. i .. " (" .. t .. " from " .. ctx:name(sys) .. "): the " .. t .. " cannot move to "
          .. ctx:name(active) .. ": " .. (passage(ctx, st, sys).can_leave and ("no path fits its move value (" .. move .. ")")
          or ("a player cannot move units out of a system that contains one of his command tokens"
            .. (sys == active and " (the active system)" or ""))))
      end
      if ctx:tracing() then
        ctx:event("cannot_move:" .. ctx:name(p) .. ":" .. t .. ":" .. ctx:name(sys),
          ctx:name(p) .. "'s " .. t .. " in " .. lib.place(ctx, sys) .. " cannot reach " .. lib.place(ctx, active))
      end
      return nil
    end
    -- a ship in the active system already (leave_active): staying comes first, the default
    options[#options + 1] = "stay"
    if sys == active then table.insert(options, 1, table.remove(options)) end
    ctx:set_role("moving_ship", u)
    ctx:set_counter(u, "move_ordinal", n, "action")  -- the n-th of its type here (scripted moves)
    return by_label[ctx:decide(p, "tactical_action.move_ship", options)]
  end
  local function go(u, t, sys, pth)
    ctx:set_role("moving_ship", u)
    local cargo, from = load_cargo(ctx, st, u, pth)
    for _, c in ipairs(cargo) do left[#left + 1] = ctx:location(c) end
    left[#left + 1] = sys
    if ctx:tracing() then
      ctx:event("move:" .. ctx:name(p) .. ":" .. t .. ":" .. pth.label,
        ctx:name(p) .. "'s " .. t .. " moves " .. lib.path_text(ctx, pth.systems) .. (#cargo > 0 and (" carrying " .. #cargo) or ""),
        { player = p, unit = u, path = pth.systems })  -- the path, for programs (serve draws it)
    end
    local args
    if st.ship_moves_hooked then
      args = { player = p, unit = u, path = pth.systems, cargo = cargo }
      ctx:open("tactical_action.ship_moves", args)
    end
    if ctx:location(u) == sys then
      ctx:move(u, active)
      for _, c in ipairs(cargo) do ctx:move(c, active) end
      moved = moved + 1
    else
      -- destroyed on the way (gravity rift): what it carries is destroyed with it. Units are
      -- picked up as the ship passes: those of systems after the one it was leaving (args.lost_at,
      -- set by the hook that destroyed it; unset: the last before the active system) were never
      -- reached and stay where they are (Rules Reference 41)
      if ctx:location(u) == "reinforcements" or ctx:location(u) == nil then lost = lost + 1 end
      local last = #pth.systems - 1
      local reached = args and math.type(args.lost_at) == "integer" and args.lost_at >= 1 and args.lost_at <= last and args.lost_at or last
      for _, c in ipairs(cargo) do
        if from[c] <= reached then
          if ctx:tracing() then
            ctx:event("lost_with_ship:" .. ctx:name(p) .. ":" .. ctx:type(c),
              ctx:name(p) .. "'s " .. ctx:type(c) .. " is destroyed with the ship that carried it")
          end
          ctx:destroy(c, "tactical_action.unit_destroyed")
        end
      end
    end
  end
  local declared = {}  -- declare_first: the moves chosen, taken once every ship has chosen
  for _, start in ipairs(starts) do
    local sys = start.system
    local paths, budget, moves = {}, -1, {}
    -- ships that move through other players' ships search their own paths
    local through, through_paths, through_budget = {}, {}, -1
    -- ships with a passage of their own (own_passage) search their paths alone
    local own_passage, own_paths = {}, {}
    -- whether a ship of each search has capacity (then pick-ups tell its paths apart)
    local carries, through_carries = false, false
    if passage(ctx, st, sys).can_leave then
      for i, u in ipairs(start.ships) do moves[i], through[i], own_passage[i] = move_value(ctx, st, u, sys) end
      -- the move values of the ships that start here, together (Gravleash Maneuvers)
      if st.move_values_hooked then
        ctx:open("tactical_action.move_values", { player = p, system = sys, ships = start.ships, moves = moves })
      end
      for i, u in ipairs(start.ships) do
        local room = ctx:get(u, "capacity") > 0
        if own_passage[i] then
          if moves[i] > 0 then own_paths[i] = find_paths(ctx, st, sys, moves[i], through[i], room, u) end
        elseif through[i] then
          if moves[i] > through_budget then through_budget = moves[i] end
          through_carries = through_carries or room
        else
          if moves[i] > budget then budget = moves[i] end
          carries = carries or room
        end
      end
      if budget > 0 then paths = find_paths(ctx, st, sys, budget, false, carries) end
      if through_budget > 0 then through_paths = find_paths(ctx, st, sys, through_budget, true, through_carries) end
    end
    local ordinal = {}
    for i, u in ipairs(start.ships) do
      local t = ctx:type(u)
      ordinal[t] = (ordinal[t] or 0) + 1
      local mine = own_passage[i] and u or nil
      local own = own_passage[i] and (own_paths[i] or {}) or through[i] and through_paths or paths
      -- a ship that may treat itself as adjacent to the active system (the window says so)
      if st.ship_paths_hooked and moves[i] and moves[i] >= 1 and passage(ctx, st, st.system).can_end then
        local args = { player = p, unit = u, start = sys, direct = false }
        ctx:open("tactical_action.ship_paths", args)
        if args.direct == true then own = with_direct(ctx, st, own, sys, mine) end
      end
      local pth = choose(u, t, sys, own, moves[i] or -1, ordinal[t], through[i], mine)
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
-- (only units whose space cannon reaches: space_cannon_range), as `p` sees adjacency (a border
-- closed to them is not crossed: galaxy.adjacent).
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
  for _, adj in ipairs(galaxy.adjacent(ctx, st.system, p)) do system_and_planets(adj, SPACE_CANNON_ADJACENT) end
  return out
end

function M.space_cannon_offense(ctx, st)
  local active, sys = st.player, st.system
  -- a hook skipped to Commit Ground Forces: none fires, the step is over
  if ctx:flag(active, "skip_to_commit") then return open(ctx, st, "tactical_action.after_space_cannon_offense", active, sys) end
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
        local cancels  -- the hits each Sustain Damage cancels, when an ability says (Non-Euclidean Shielding)
        if hooked_assign then
          local args = { player = p, target = target, hits = { [target] = hits }, sustain_cancels = {} }
          ctx:open("tactical_action.assign_space_cannon_hits", args)
          hits = math.max(0, args.hits[target])
          cancels = args.sustain_cancels[target]
        end
        if hits > 0 then
          local tp = ctx:policy(target)
          local before = ctx:count(target, sys, "ship")
          ctx:assign_hits(target, sys, hits, SPACE_CANNON_HITS, tp.hit_order, tp.sustain, cancels)
          if target == active then lost = lost + before - ctx:count(target, sys, "ship") end
          M.check_capacity(ctx, st, target, sys)
        end
      end
    end
  end
  ctx:metric("lost_to_space_cannon", lost)
  open(ctx, st, "tactical_action.after_space_cannon_offense", active, sys)
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

-- The end of the active player's turn, after Production: the abilities timed for the end of a turn;
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
-- A combat stopped after round k (rounds = k: lib.stop_rounds) ends the run there: the steps after
-- it are skipped, the end of the turn too; the report still runs.
local function step(f, always)
  return function(ctx)
    local st = facts(ctx)
    if lib.rounds_stopped(ctx) then
      if f == M.finish then invasion.report(ctx, st) end
      return
    end
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
