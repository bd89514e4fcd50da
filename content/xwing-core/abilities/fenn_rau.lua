-- Fenn Rau (pilot): at range 1, attacking or defending, he may roll 1 extra die. Adds a die through
-- args.count before the roll.
hook {
  id = "fenn_rau_attack",
  window = "attack.roll_attack_dice",
  source = "ship/fenn_rau",
  optional = true,
  condition = function(ctx, player, source, args) return args.attacker == source and args.range == 1 end,
  apply = function(ctx, player, source, args) args.count = args.count + 1 end,
}

hook {
  id = "fenn_rau_defense",
  window = "attack.roll_defense_dice",
  source = "ship/fenn_rau",
  optional = true,
  condition = function(ctx, player, source, args) return args.defender == source and args.range == 1 end,
  apply = function(ctx, player, source, args) args.count = args.count + 1 end,
}
