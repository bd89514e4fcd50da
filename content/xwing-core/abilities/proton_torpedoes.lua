-- Proton Torpedoes (special weapon): one hit result becomes a crit result. After the
-- attacker has spent its tokens, so that a focus result turned into a hit can be changed.
hook {
  id = "proton_torpedoes",
  window = "attack.modify_attack_dice.attacker_after_tokens",
  source = "weapon/proton_torpedoes",
  condition = function(ctx, player, source, args)
    return args.weapon == source and args.attack_dice:count("hit") > 0
  end,
  apply = function(ctx, player, source, args)
    local pool = args.attack_dice
    for i = 1, #pool do
      if not pool:cancelled(i) and pool:face(i) == "hit" then
        pool:set(i, "crit")
        return
      end
    end
  end,
}
