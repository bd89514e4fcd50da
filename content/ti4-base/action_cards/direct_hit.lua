-- Direct Hit (base action card). Window: unit_sustained_damage, opened by hit assignment for
-- each unit that just used Sustain Damage, args {unit, player, location}. In a two-player
-- combat every hit a player sustains was produced by the other, so "your hit" is "a unit that
-- is not yours". Units with direct_hit_immune (Dreadnought II) cannot be chosen.
-- Test: tests/cards/direct_hit.toml

hook {
  id = "direct_hit",
  window = "space_combat.unit_sustained_damage",
  source = "action_card/direct_hit",
  optional = true,
  discard = true,
  -- the ship must still be there: a second copy held by the same player finds it destroyed
  condition = function(ctx, player, _, args)
    return args.player ~= player and ctx:location(args.unit) == args.location and ctx:get(args.unit, "ship")
      and not ctx:get(args.unit, "direct_hit_immune")
  end,
  apply = function(ctx, _, _, args)
    ctx:set(args.unit, "damaged", false)  -- it goes to reinforcements whole
    ctx:destroy(args.unit, "space_combat.unit_destroyed")
  end,
}
