-- Reflective Shielding (Codex I action card). In short: whenever one of your ships uses Sustain
-- Damage in combat, your opponent's ships in the active system take 2 hits. Window:
-- space_combat.unit_sustained_damage, args {unit, player, location}: opened by the space combat's
-- hit assignment (combat rolls, and Anti-Fighter Barrage hits under Waylay), never by Space Cannon
-- Offense (not during combat) nor by ground combat (a mech is not a ship; its window is
-- invasion.unit_sustained_damage). The opponent assigns the 2 hits by their own hit_order and may
-- cancel them with Sustain Damage, as any hits.
-- Default policy: played whenever it can be (2 hits for nothing).
-- Test: tests/cards/reflective_shielding.toml

local opponent = require("lib").opponent  -- scripts/ti4/lib.lua

local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }

hook {
  id = "reflective_shielding",
  window = "space_combat.unit_sustained_damage",
  source = "action_card/reflective_shielding",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    local sys = ctx:role("active_system")
    return args.player == player and args.location == sys and ctx:get(args.unit, "ship")
      and ctx:count(opponent(ctx, player), sys, "ship") > 0
  end,
  apply = function(ctx, player)
    local sys, enemy = ctx:role("active_system"), opponent(ctx, player)
    if ctx:tracing() then
      ctx:event("reflective_shielding:" .. ctx:name(player), ctx:name(player) .. " produces 2 hits against " .. ctx:name(enemy) .. "'s ships (Reflective Shielding)")
    end
    local policy = ctx:policy(enemy)
    ctx:assign_hits(enemy, sys, 2, HITS, policy.hit_order, policy.sustain)
  end,
}
