-- Procedure "engagement": the Engagement Phase. Ships engage from the highest initiative to
-- the lowest (at equal initiative, the first player's ships first, then scenario order); each
-- performs one attack. A ship destroyed during an initiative step is removed only after every
-- ship of that initiative has engaged, so it still engages if its initiative is the same.
-- Metrics: damage (dealt by all attacks), destroyed (ships removed).
--
-- It runs as steps (ctx:steps): M.engage performs one attack each time and returns "again" until
-- every ship has engaged, so the state between two attacks is all there is (the step memo and the
-- exact mode meet runs again there). What tells one attack from the next is in the state: the flag
-- "engaged" on each ship that has, the counter "initiative" (the step under way + 1) on the first
-- player, both of scope "round".
local combat = require "combat"

local M = {}

-- The ships in engagement order: highest initiative first, the first player's first, then
-- scenario order.
local function in_order(ctx)
  local first = ctx:role("first_player")
  local ships = ctx:entities { kind = "ship" }
  local rank = {}
  for i, s in ipairs(ships) do rank[s] = i end
  table.sort(ships, function(a, b)
    local ia, ib = ctx:get(a, "initiative"), ctx:get(b, "initiative")
    if ia ~= ib then return ia > ib end
    local fa, fb = ctx:owner(a) == first, ctx:owner(b) == first
    if fa ~= fb then return fa end
    return rank[a] < rank[b]
  end)
  return ships
end

-- The end of an initiative step: the ships destroyed during it are removed.
local function end_of_initiative(ctx, init)
  ctx:open("engagement.end_of_initiative", { initiative = init })
  for _, s in ipairs(ctx:entities { kind = "ship" }) do
    if ctx:flag(s, "destroyed") and ctx:location(s) ~= "reinforcements" then
      ctx:destroy(s, "ship.destroyed")
      ctx:add_metric("destroyed", 1)
    end
  end
end

function M.start(ctx)
  if #ctx:entities { kind = "ship" } == 0 then error("the engagement procedure needs a scenario with [[ship]] entries") end
  ctx:open("engagement.start", {})
  ctx:add_metric("damage", 0)
  ctx:add_metric("destroyed", 0)
end

function M.engage(ctx)
  local first = ctx:role("first_player")
  local current = ctx:counter(first, "initiative") - 1  -- -1: none begun
  for _, s in ipairs(in_order(ctx)) do
    if not ctx:flag(s, "engaged") and ctx:location(s) ~= "reinforcements" then
      local init = ctx:get(s, "initiative")
      if current >= 0 and init ~= current then
        end_of_initiative(ctx, current)
        ctx:set_counter(first, "initiative", 0, "round")
        return "again"  -- (a ship of this step may have been removed)
      end
      ctx:set_counter(first, "initiative", init + 1, "round")
      ctx:set_flag(s, "engaged", "round")
      ctx:open("engagement.engage", { ship = s, initiative = init })
      ctx:add_metric("damage", combat.attack_with_bonus(ctx, s, nil).damage)
      return "again"
    end
  end
  if current >= 0 then end_of_initiative(ctx, current) end
end

function M.finish(ctx)
  ctx:open("engagement.end", {})
  ctx:end_scope("round")
end

M.steps = { M.start, M.engage, M.finish }

function M.run(ctx)
  ctx:steps(M.steps)
end

return M
