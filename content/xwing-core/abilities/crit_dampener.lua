-- Crit Dampener (a demonstration card, not printed): a defender may pay 1 charge, before results
-- are neutralised, to cancel 1 crit result.
hook {
  id = "crit_dampener",
  window = "attack.neutralize_results",
  source = "upgrade/crit_dampener",
  optional = true,
  condition = function(ctx, player, source, args)
    return ctx:location(source) == args.defender and ctx:get(source, "charges") > 0
      and args.attack_dice:count("crit") > 0
  end,
  apply = function(ctx, player, source, args)
    ctx:set(source, "charges", ctx:get(source, "charges") - 1)
    local pool = args.attack_dice
    for i = 1, #pool do
      if not pool:cancelled(i) and pool:face(i) == "crit" then
        pool:cancel(i)
        return
      end
    end
  end,
}
