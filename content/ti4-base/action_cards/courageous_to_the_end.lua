-- Courageous to the End (base action card). Window: unit_destroyed, args {unit, player,
-- location}. The opponent chooses what they lose, so the hits go through ctx:assign_hits with
-- their own hit_order and no Sustain Damage ("destroy"). Test: tests/cards/courageous_to_the_end.toml
--
-- The opponent's losses open unit_destroyed again while this hook is still running (their own
-- Courageous to the End may answer); the runtime discards the card before apply runs, so this
-- copy cannot fire again in that nesting.

local opponent = require("lib").opponent  -- scripts/ti4/lib.lua

hook {
  id = "courageous_to_the_end",
  window = "space_combat.unit_destroyed",
  source = "action_card/courageous_to_the_end",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    local sys = ctx:role("active_system")
    return args.player == player and args.location == sys and ctx:get(args.unit, "ship")
      and ctx:count(opponent(ctx, player), sys, "ship") > 0
  end,
  apply = function(ctx, player, _, args)
    local sys = ctx:role("active_system")
    local pool = ctx:roll(player, "d10", 2, { purpose = "courageous_to_the_end", unit = args.unit,
      threshold = ctx:get(args.unit, "combat") })
    local hits = pool:hits()
    if hits == 0 then return end
    local enemy = opponent(ctx, player)
    ctx:assign_hits(enemy, sys, hits, { eligible = "ship", decision = "space_combat.assign_hits",
      destroyed_window = "space_combat.unit_destroyed" }, ctx:policy(enemy).hit_order, "never")
  end,
}
