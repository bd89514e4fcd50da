-- Procedure "engagement": the Engagement Phase. Ships engage from the highest initiative to
-- the lowest (at equal initiative, the first player's ships first, then scenario order); each
-- performs one attack. A ship destroyed during an initiative step is removed only after every
-- ship of that initiative has engaged, so it still engages if its initiative is the same.
-- Metrics: damage (dealt by all attacks), destroyed (ships removed).
local combat = require "combat"

return {
  run = function(ctx)
    local ships = ctx:entities { kind = "ship" }
    if #ships == 0 then error("the engagement procedure needs a scenario with [[ship]] entries") end
    local first = ctx:role("first_player")
    local steps, seen = {}, {}
    for _, s in ipairs(ships) do
      local i = ctx:get(s, "initiative")
      if not seen[i] then seen[i] = true; steps[#steps + 1] = i end
    end
    table.sort(steps, function(a, b) return a > b end)
    ctx:open("engagement.start", {})
    local damage, destroyed = 0, 0
    for _, init in ipairs(steps) do
      for pass = 1, 2 do -- the first player's ships, then the other player's
        for _, s in ipairs(ships) do
          local mine = ctx:owner(s) == first
          if ctx:get(s, "initiative") == init and ctx:location(s) ~= "reinforcements" and mine == (pass == 1) then
            ctx:open("engagement.engage", { ship = s, initiative = init })
            local r = combat.attack_with_bonus(ctx, s, nil)
            damage = damage + r.damage
          end
        end
      end
      ctx:open("engagement.end_of_initiative", { initiative = init })
      for _, s in ipairs(ships) do
        if ctx:flag(s, "destroyed") and ctx:location(s) ~= "reinforcements" then
          ctx:destroy(s, "ship.destroyed")
          destroyed = destroyed + 1
        end
      end
    end
    ctx:open("engagement.end", {})
    ctx:metric("damage", damage)
    ctx:metric("destroyed", destroyed)
    ctx:end_scope("round")
  end,
}
