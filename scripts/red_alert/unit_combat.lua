-- Procedure "unit_combat": the scenario's [combat] attacker combats its target once, the
-- eleven steps of the Combat Procedure (combat.lua). Metrics: figures_lost (the target's, in
-- the combat and its retire), eliminated, retired (0/1) and retire_hexes, stars (collected by
-- the attacker's player, battle back stars by the defender not included), attacker_lost (in a
-- battle back), battle_back and pursuit (0/1), combat (0/1: the combat was legal).
local combat = require "combat"

return {
  run = function(ctx)
    local u, t = ctx:role("attacking_unit"), ctx:role("target_unit")
    if not u then error("the unit_combat procedure needs [combat] attacker and target") end
    local r = combat.order(ctx, u, t) or { combat = false, lost = 0, retired = 0, stars = 0, attacker_lost = 0 }
    ctx:metric("combat", r.combat and 1 or 0)
    ctx:metric("figures_lost", r.lost)
    ctx:metric("eliminated", r.eliminated and 1 or 0)
    ctx:metric("retired", (r.retired or 0) > 0 and 1 or 0)
    ctx:metric("retire_hexes", r.retired or 0)
    ctx:metric("stars", r.stars)
    ctx:metric("attacker_lost", r.attacker_lost)
    ctx:metric("battle_back", r.battle_back and 1 or 0)
    ctx:metric("pursuit", r.pursuit and 1 or 0)
    ctx:end_scope("turn")
  end,
}
