-- Last Stand (homebrew action card). Window: start of each combat round. The condition is the
-- logic TOML cannot say ("exactly one ship left"); the effect is the declared modifier,
-- switched on until the round ends, so the runtime, not this script, turns it off again.
-- Test: tests/last_stand.toml

hook {
  id = "last_stand",
  window = "space_combat.start_of_round",
  source = "action_card/last_stand",
  optional = true,
  discard = true,
  condition = function(ctx, player)
    return ctx:count(player, ctx:role("active_system"), "ship") == 1
  end,
  apply = function(ctx, player)
    ctx:activate("last_stand_bonus", player, "round")
  end,
}
