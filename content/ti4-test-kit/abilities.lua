-- Test-only: "after you roll dice for a space combat round, reroll each of your dice that
-- missed". Rule 5.5: it resolves right after its owner's roll, before the opponent rolls.
-- Test: tests/after_roll.toml

hook {
  id = "test_reroll_misses",
  window = "space_combat.after_roll",
  source = "technology/test_reroll_misses",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(_, _, _, args)
    local pool = args.pool
    for i = 1, pool:size() do
      if not pool:hit(i) then pool:reroll(i) end
    end
  end,
}

-- Test-only: "before the Retreat step (once per combat), place one of your destroyers in every
-- system adjacent to the active system", which leaves a retreat announced in step 2 with no
-- eligible system in step 5 (rule 7 checks again that an eligible system is left).
-- Test: tests/retreat_fallback.toml
hook {
  id = "test_blockade",
  window = "space_combat.before_retreat",
  source = "technology/test_blockade",
  limit = "combat",
  apply = function(ctx, player)
    for _, sys in ipairs(ctx:adjacent(ctx:role("active_system"))) do
      ctx:create { kind = "unit", type = "destroyer", owner = player, location = sys }
    end
  end,
}

-- Test-only: "at the start of a space combat, your mechs in the space area are ships", so that a
-- mech's "during combat" text (Mordred) can be seen in a space combat.
-- Test: tests/mordred_space_combat.toml
hook {
  id = "test_mechs_fight_in_space",
  window = "space_combat.start_of_combat",
  source = "technology/test_mechs_fight_in_space",
  priority = 10,
  apply = function(ctx, player)
    for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "type:mech")) do ctx:set(u, "ship", true) end
  end,
}
