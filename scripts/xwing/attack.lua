-- Procedure "attack": the scenario's attacker performs one attack on its defender (and any
-- bonus attack the aftermath grants). Metrics: damage (suffered by the defender), crits
-- (faceup damage cards dealt), hit (1 if the attack hit).
local combat = require "combat"

return {
  run = function(ctx)
    local attacker, defender = ctx:role("attacking_ship"), ctx:role("defending_ship")
    if not attacker then error("the attack procedure needs a scenario with [attacker] and [defender]") end
    local r = combat.attack_with_bonus(ctx, attacker, defender)
    for _, s in ipairs { defender, attacker } do
      if ctx:flag(s, "destroyed") then ctx:destroy(s, "ship.destroyed") end
    end
    ctx:metric("damage", r.damage)
    ctx:metric("crits", r.crits)
    ctx:metric("hit", r.hit and 1 or 0)
    ctx:end_scope("round")
  end,
}
