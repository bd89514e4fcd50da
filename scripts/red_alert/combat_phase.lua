-- Procedure "combat_phase": the active player's ordered units combat one at a time, in the
-- scenario's order (combat.order), each resolved entirely before the next. Red alert markers
-- may first be removed with stars (1 for an ordered unit, 2 for another). A unit given a
-- target combats it; otherwise it chooses (unit_combat.target). Metrics: enemy_figures_lost,
-- own_figures_lost, enemy_figures_left and own_figures_left (a flagship's cap fighters are
-- figures too), units_eliminated (enemy), stars (the active player's), retire_hexes (of
-- enemy units), combats, battle_backs, pursuits.
--
-- It runs as steps (ctx:steps): M.order_next resolves one ordered unit's order each time and
-- returns "again" until all are done, so the state between two orders is all there is (the step
-- memo and the exact mode meet runs again there). A combat's steps 1 to 5 (with the target
-- search of a unit that chooses its target), its roll, and its steps 7 to 11 are three steps:
-- what the roll needs (unit, target, battle dice, distance) is kept in counters of the active
-- player (scope order) for the roll's step, and what steps 7 to 11 read of the roll in counters
-- of scope combat, so the target search and the windows before the roll are run once per state
-- and not again for every way the dice fall. The flag "order_done" (scope
-- turn) marks the units whose order is taken; what the orders add up to are metrics added to as
-- they go (ctx:add_metric), the figures lost counted at the end against the counter
-- "figures_before" each unit gets at the start. The last order's step also ends the phase
-- (M.finish), so the states it leaves are the run's last. After each step the stars a player
-- holds beyond what the rest of the phase could spend are set aside (set_aside_stars): a star
-- rolled is otherwise a star kept, and states that differ only in stars never read again would
-- not meet. A battle back runs as steps of its own too (its steps 1 to 5 at the end of the step
-- of the combat it answers, then its roll, then its steps 7 to 11; the combat it answers ends
-- after it), so that its dice are not enumerated inside the step of the combat it answers.
local combat = require "combat"
local lib = require "lib"

local M = {}

local function figures(ctx, u) return ctx:get(u, "figures") + ctx:get(u, "cap_fighters") end

-- the ordered unit whose order comes first among those not yet resolved, or nil (`units`,
-- optional: ctx:units(ap, nil) as read already)
local function next_ordered(ctx, ap, units)
  local first, first_order
  for _, u in ipairs(units or ctx:units(ap, nil)) do
    local o = ctx:counter(u, "order")
    if o > 0 and (not first or o < first_order) and not ctx:flag(u, "order_done") then first, first_order = u, o end
  end
  return first
end

-- What a player could still spend of its stars in this phase. Stars are spent only by the basic
-- star plays, 2 each (shared/rules/red-alert-combat.md: engineering repair, battle back, a
-- destroyer's pursuit move and bonus combat), by combat cards (their star cost; a card is
-- discarded when played) and, in Phase 2 Order Units, on red alert markers (over once the
-- orders start). In each combat still to come (the order in hand and every ordered unit whose
-- order is not yet taken; a pursuing unit's bonus combat is one more) the active player may
-- pursue (a unit that may) and repair its unit in the battle back (engineering); the opponent
-- may battle back and repair the unit attacked. The opponent collects stars only in a battle
-- back (8. Collect Star Tokens: stars are collected by the unit rolling at an enemy, and on the
-- active player's turn only a battle back is the opponent's roll), so an opponent with fewer
-- than 2 stars makes no basic star play again, nor a battle back the active player could
-- repair in. (A pack that spends stars in another way must count it here.)
local function cards_cost(ctx, player)
  local n = 0
  for _, c in ipairs(ctx:entities { kind = "card", location = player }) do n = n + (ctx:get(c, "stars") or 0) end
  return n
end

-- The most stars the active player `ap` and its opponent(s) could still spend in this phase
-- (`units`, optional: ctx:units(ap, nil) as read already).
local function stars_to_spend(ctx, ap, players, units)
  -- whether the opponent can still battle back: it holds 2 stars, or will once it collects the
  -- stars of a battle back still to roll (any number) or rolled (rolled_stars)
  local gains = 0
  if ctx:counter(ap, "back_unit") > 0 and lib.setting(ctx, "battle_back_stars") then
    gains = ctx:counter(ap, "rolled_unit") > 0 and ctx:counter(ap, "rolled_stars") or 2
  end
  local battle_back = false
  for _, p in ipairs(players) do
    if p ~= ap and ctx:counter(p, "stars") + gains >= 2 then battle_back = true end
  end
  local own, other = 0, 0
  -- a battle back to come (its roll or its steps 7 to 11): the active player may repair the unit
  -- it attacks
  local back = ctx:counter(ap, "back_target") - 1
  if back >= 0 and ctx:get(back, "engineering") then own = own + 2 end
  local pending = math.max(ctx:counter(ap, "rolled_unit"), ctx:counter(ap, "armed_unit")) - 1
  for _, u in ipairs(units or ctx:units(ap, nil)) do
    if u == pending or (ctx:counter(u, "order") > 0 and not ctx:flag(u, "order_done")) then
      local pursues = (ctx:get(u, "pursuit") or ctx:flag(u, "may_pursue")) and not ctx:flag(u, "pursued")
        and not ctx:flag(u, "no_pursuit") and not ctx:flag(u, "stopped")
      local combats = pursues and 2 or 1
      other = other + 4 * combats
      if pursues then own = own + 2 end
      if battle_back and ctx:get(u, "engineering") then own = own + 2 * combats end
    end
  end
  if not battle_back then other = 0 end
  return own, other
end

-- Stars beyond what the rest of the phase could spend are never read again here (what a player
-- collects is the metric "stars", not this counter): they are set aside, so that two states
-- that differ only there are one (the step memo and the exact mode meet them once).
-- (No star held, none to set aside: the count of what could be spent is skipped.)
local function set_aside_stars(ctx, units)
  local players = ctx:players()
  local holds, any = {}, false
  for i, p in ipairs(players) do
    holds[i] = ctx:counter(p, "stars")
    if holds[i] > 0 then any = true end
  end
  if not any then return end
  local ap = ctx:role("active_player")
  local own, other = stars_to_spend(ctx, ap, players, units)
  for i, p in ipairs(players) do
    local held = holds[i]
    local most = p == ap and own or other
    if held > most then most = most + cards_cost(ctx, p) end
    if held > most then
      ctx:set_counter(p, "stars", most)
      if ctx:tracing() then
        ctx:event("stars_aside:" .. ctx:name(p) .. ":" .. held - most, ctx:name(p) .. " holds " .. held ..
          " stars; the rest of the phase could spend at most " .. most .. ": " .. held - most .. " set aside")
      end
    end
  end
end

function M.start(ctx)
  local ap = ctx:role("active_player")
  if not next_ordered(ctx, ap) then error("the combat_phase procedure needs [combat] order") end
  ctx:open("combat_phase.start", { player = ap })
  -- Phase 2, Order Units: remove red alert markers for stars
  for _, u in ipairs(ctx:units(ap, nil)) do
    if ctx:get(u, "marker") then
      local cost = ctx:counter(u, "order") > 0 and 1 or 2
      if ctx:counter(ap, "stars") >= cost and
          ctx:decide(ap, "combat_phase.remove_marker", { { id = "yes", cost = cost, unit = u }, { id = "no" } }).id == "yes" then
        ctx:add_counter(ap, "stars", -cost)
        ctx:set(u, "marker", false)
        if ctx:tracing() then ctx:event("remove_marker:" .. ctx:name(u), ctx:name(ap) .. " spends " .. cost .. " star(s) to remove the red alert marker of " .. ctx:name(u)) end
      end
    end
  end
  for _, u in ipairs(ctx:units(nil, nil)) do ctx:set_counter(u, "figures_before", figures(ctx, u), "turn") end
  for _, m in ipairs { "stars", "retire_hexes", "combats", "battle_backs", "pursuits" } do ctx:add_metric(m, 0) end
  set_aside_stars(ctx)
end

-- adds an order's combat to the metrics
local function count_combat(ctx, r)
  if not (r and r.combat) then return end
  ctx:add_metric("combats", 1)
  if r.battle_back then ctx:add_metric("battle_backs", 1) end
  if r.pursuit then ctx:add_metric("pursuits", 1) end
  ctx:add_metric("retire_hexes", r.retired)
  ctx:add_metric("stars", r.stars + (r.bonus_result and r.bonus_result.stars or 0))
end

-- Steps 1 to 5 of a combat (combat.announce: an ordered unit's, or a battle back's). When it
-- comes to a roll, what the roll needs is kept in counters of the active player (scope order,
-- ended by the roll's step) for the next step, and it returns true; else the combat's result is
-- counted. (The roll is a step of its own so that the exact mode, which runs a step once per way
-- its dice fall, runs only the roll that many times, not the windows before it.)
local function announce(ctx, ap, u, t, opts)
  local res, args = combat.announce(ctx, u, t, opts)
  if res then
    count_combat(ctx, res)
    return false
  end
  ctx:set_counter(ap, "armed_unit", u + 1, "order")
  ctx:set_counter(ap, "armed_target", t + 1, "order")
  ctx:set_counter(ap, "armed_dice", args.dice, "order")
  ctx:set_counter(ap, "armed_distance", args.distance, "order")
  return true
end

-- Step 6 of the combat announced in the step before (a battle back's when `battle_back`): what
-- steps 7 to 11 read of the roll is kept in counters of the active player (scope combat, ended
-- by the combat) for the next step. (Its after_roll window gets a new args table: a hook that
-- kept something in the announce window's args would not find it.)
local function roll_announced(ctx, ap, battle_back)
  local u, t = ctx:counter(ap, "armed_unit") - 1, ctx:counter(ap, "armed_target") - 1
  local distance = ctx:counter(ap, "armed_distance")
  local args = { attacker = u, target = t, player = ctx:owner(u), opponent = ctx:owner(t), ranged = distance > 1,
    distance = distance, battle_back = battle_back, bonus = false, dice = ctx:counter(ap, "armed_dice") }
  ctx:end_scope("order")
  local r = combat.roll(ctx, args)
  ctx:set_counter(ap, "rolled_unit", u + 1, "combat")
  ctx:set_counter(ap, "rolled_target", t + 1, "combat")
  ctx:set_counter(ap, "rolled_distance", distance, "combat")
  ctx:set_counter(ap, "rolled_dice", r.dice, "combat")
  ctx:set_counter(ap, "rolled_scored", r.scored, "combat")
  ctx:set_counter(ap, "rolled_alerts", r.alerts, "combat")
  ctx:set_counter(ap, "rolled_stars", r.stars, "combat")
end

-- A battle back runs as steps of its own (its roll, then its steps 7 to 11), like an ordered
-- unit's combat, so that the way its dice fall is not enumerated with the combat it answers.
-- That combat's result (what its end_of_combat window reads) is kept in counters of the active
-- player (scope battle_back) until the battle back is over. (Its scope combat ends before the
-- battle back, and its end_of_combat window gets a new args table: a hook that kept something in
-- either across the battle back would not find it.)
local ANSWERED = { "dice", "distance", "hits", "hit_lost", "lost", "stars" }

local function keep_answered(ctx, ap, r)
  local args = r.deferred
  ctx:end_scope("combat")
  ctx:set_counter(ap, "back_unit", args.target + 1, "battle_back")
  ctx:set_counter(ap, "back_target", args.attacker + 1, "battle_back")
  local v = { dice = args.dice, distance = args.distance, hits = args.hits, hit_lost = args.lost, lost = r.lost, stars = r.stars }
  for _, k in ipairs(ANSWERED) do ctx:set_counter(ap, "back_" .. k, v[k], "battle_back") end
end

-- The end of the combat a battle back answered (its end_of_combat window), `lost`: the
-- attacker's figures the battle back removed.
local function end_answered(ctx, ap, lost)
  local u, t = ctx:counter(ap, "back_target") - 1, ctx:counter(ap, "back_unit") - 1
  local v = {}
  for _, k in ipairs(ANSWERED) do v[k] = ctx:counter(ap, "back_" .. k) end
  local args = { attacker = u, target = t, player = ctx:owner(u), opponent = ctx:owner(t), ranged = v.distance > 1,
    distance = v.distance, battle_back = false, bonus = false, dice = v.dice, hits = v.hits, lost = v.hit_lost,
    eliminated = false }
  local res = { combat = true, hits = v.hits, lost = v.lost, eliminated = false, retired = 0, stars = v.stars,
    attacker_lost = lost, battle_back = true, pursuit = false, bonus = false }
  combat.end_combat(ctx, args, res)
  ctx:end_scope("battle_back")
end

-- One step of the orders: the next ordered unit's target (the scenario's, else chosen) and its
-- combat's steps 1 to 5, the announced combat's roll, or the rolled combat's steps 7 to 11 (and
-- a battle back's steps 1 to 5). Each step's state says which comes next. Returns "again" and
-- whether the step left an ordered unit's combat announced or rolled (not a battle back's) when
-- there is more to do, and the active player's units when read last (nothing changed since).
local function order_next(ctx)
  local ap = ctx:role("active_player")
  local rolled = ctx:counter(ap, "rolled_unit")
  local armed = ctx:counter(ap, "armed_unit")
  local back = ctx:counter(ap, "back_unit")
  if rolled > 0 then
    local roll = { dice = ctx:counter(ap, "rolled_dice"), scored = ctx:counter(ap, "rolled_scored"),
      alerts = ctx:counter(ap, "rolled_alerts"), stars = ctx:counter(ap, "rolled_stars") }
    local opts = { checked = { distance = ctx:counter(ap, "rolled_distance") } }
    if back > 0 then
      -- the battle back's steps 7 to 11, then the end of the combat it answers
      opts.battle_back = true
      local b = combat.resolve(ctx, rolled - 1, ctx:counter(ap, "rolled_target") - 1, opts, roll)
      end_answered(ctx, ap, b.lost)
    else
      opts.defer_battle_back = true
      local r = combat.resolve(ctx, rolled - 1, ctx:counter(ap, "rolled_target") - 1, opts, roll)
      count_combat(ctx, r)
      if r.deferred then
        -- the battle back, to its roll (none: it did not take place)
        keep_answered(ctx, ap, r)
        local back_opts = { battle_back = true, checked = r.back_checked }
        if announce(ctx, ap, r.deferred.target, r.deferred.attacker, back_opts) then return "again", false end
        end_answered(ctx, ap, 0)
      end
    end
  elseif armed > 0 then
    -- the roll of the combat announced in the step before
    roll_announced(ctx, ap, back > 0)
    return "again", back == 0
  else
    local u = next_ordered(ctx, ap)
    ctx:set_flag(u, "order_done", "turn")
    local t = ctx:counter(u, "order_target")
    local target = t > 0 and t - 1 or nil
    if target and not lib.alive(ctx, target) then target = nil end
    if target and lib.alive(ctx, u) then
      if announce(ctx, ap, u, target, {}) then return "again", back == 0 end
    elseif lib.alive(ctx, u) then
      local o = combat.choose_target(ctx, u)
      if o and announce(ctx, ap, u, o.entity, { checked = o }) then return "again", back == 0 end
    end
  end
  local units = ctx:units(ap, nil)
  if next_ordered(ctx, ap, units) then return "again", false, units end
  M.finish(ctx)
end

function M.order_next(ctx)
  local r, ordered, units = order_next(ctx)
  -- (an ordered unit's combat announced or rolled collects no stars and leaves the combats to
  -- come as they were: nothing more to set aside then; a battle back's roll tells how many stars
  -- the opponent collects)
  if r == "again" and not ordered then set_aside_stars(ctx, units) end
  return r
end

function M.finish(ctx)
  local ap = ctx:role("active_player")
  local own, enemy, gone, own_left, enemy_left = 0, 0, 0, 0, 0
  local all = ctx:units(nil, nil)
  for _, u in ipairs(ctx:units(nil, "reinforcements")) do all[#all + 1] = u end  -- the eliminated
  for _, u in ipairs(all) do
    local before = ctx:counter(u, "figures_before")
    local left = lib.alive(ctx, u) and figures(ctx, u) or 0
    if ctx:owner(u) == ap then
      own, own_left = own + before - left, own_left + left
    else
      enemy, enemy_left = enemy + before - left, enemy_left + left
      if before > 0 and not lib.alive(ctx, u) then gone = gone + 1 end  -- (on the board at the start)
    end
  end
  ctx:open("combat_phase.end", { player = ap })
  ctx:metric("enemy_figures_lost", enemy)
  ctx:metric("own_figures_lost", own)
  ctx:metric("enemy_figures_left", enemy_left)
  ctx:metric("own_figures_left", own_left)
  ctx:metric("units_eliminated", gone)
  set_aside_stars(ctx)
  ctx:end_scope("turn")
end

M.steps = { M.start, M.order_next }

function M.run(ctx)
  ctx:steps(M.steps)
end

return M
