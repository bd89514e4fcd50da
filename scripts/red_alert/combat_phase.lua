-- Procedure "combat_phase": the active player's ordered units combat one at a time, in the
-- scenario's order (combat.order), each resolved entirely before the next. Red alert markers
-- may first be removed with stars (1 for an ordered unit, 2 for another). A unit given a
-- target combats it; otherwise it chooses (unit_combat.target). Metrics: enemy_figures_lost,
-- own_figures_lost, units_eliminated (enemy), stars (the active player's), retire_hexes (of
-- enemy units), combats, battle_backs, pursuits.
local combat = require "combat"
local lib = require "lib"

return {
  run = function(ctx)
    local ap = ctx:role("active_player")
    local ordered = {}
    for _, u in ipairs(ctx:units(ap, nil)) do
      if ctx:counter(u, "order") > 0 then ordered[#ordered + 1] = u end
    end
    table.sort(ordered, function(a, b) return ctx:counter(a, "order") < ctx:counter(b, "order") end)
    if #ordered == 0 then error("the combat_phase procedure needs [combat] order") end
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
    local own_before, enemy_before = {}, {}
    local function figures(u) return ctx:get(u, "figures") + ctx:get(u, "cap_fighters") end
    for _, u in ipairs(ctx:units(nil, nil)) do
      if ctx:owner(u) == ap then own_before[u] = figures(u) else enemy_before[u] = figures(u) end
    end
    local combats, backs, pursuits, retire = 0, 0, 0, 0
    local gained = 0
    for _, u in ipairs(ordered) do
      local t = ctx:counter(u, "order_target")
      local target = t > 0 and t - 1 or nil
      if target and not lib.alive(ctx, target) then target = nil end
      local r = combat.order(ctx, u, target)
      if r and r.combat then
        combats = combats + 1
        if r.battle_back then backs = backs + 1 end
        if r.pursuit then pursuits = pursuits + 1 end
        retire = retire + r.retired
        gained = gained + r.stars + (r.bonus_result and r.bonus_result.stars or 0)
      end
    end
    local own, enemy, gone = 0, 0, 0
    for u, n in pairs(own_before) do own = own + n - (lib.alive(ctx, u) and figures(u) or 0) end
    for u, n in pairs(enemy_before) do
      enemy = enemy + n - (lib.alive(ctx, u) and figures(u) or 0)
      if not lib.alive(ctx, u) then gone = gone + 1 end
    end
    ctx:open("combat_phase.end", { player = ap })
    ctx:metric("enemy_figures_lost", enemy)
    ctx:metric("own_figures_lost", own)
    ctx:metric("units_eliminated", gone)
    ctx:metric("stars", gained)
    ctx:metric("retire_hexes", retire)
    ctx:metric("combats", combats)
    ctx:metric("battle_backs", backs)
    ctx:metric("pursuits", pursuits)
    ctx:end_scope("turn")
  end,
}
