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
-- memo and the exact mode meet runs again there). The flag "order_done" (scope turn) marks the
-- units whose order is resolved; what the orders add up to are metrics added to as they go
-- (ctx:add_metric), the figures lost counted at the end against the counter "figures_before"
-- each unit gets at the start.
local combat = require "combat"
local lib = require "lib"

local M = {}

local function figures(ctx, u) return ctx:get(u, "figures") + ctx:get(u, "cap_fighters") end

-- the ordered unit whose order comes first among those not yet resolved, or nil
local function next_ordered(ctx, ap)
  local first, first_order
  for _, u in ipairs(ctx:units(ap, nil)) do
    local o = ctx:counter(u, "order")
    if o > 0 and (not first or o < first_order) and not ctx:flag(u, "order_done") then first, first_order = u, o end
  end
  return first
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
end

function M.order_next(ctx)
  local u = next_ordered(ctx, ctx:role("active_player"))
  if not u then return end
  ctx:set_flag(u, "order_done", "turn")
  local t = ctx:counter(u, "order_target")
  local target = t > 0 and t - 1 or nil
  if target and not lib.alive(ctx, target) then target = nil end
  local r = combat.order(ctx, u, target)
  if r and r.combat then
    ctx:add_metric("combats", 1)
    if r.battle_back then ctx:add_metric("battle_backs", 1) end
    if r.pursuit then ctx:add_metric("pursuits", 1) end
    ctx:add_metric("retire_hexes", r.retired)
    ctx:add_metric("stars", r.stars + (r.bonus_result and r.bonus_result.stars or 0))
  end
  return "again"
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
  ctx:end_scope("turn")
end

M.steps = { M.start, M.order_next, M.finish }

function M.run(ctx)
  ctx:steps(M.steps)
end

return M
