-- The Universities of Jol-Nar: the flagship's extra hits (Fragile and the mech are modifiers in
-- jol_nar.toml). Tests: ../../tests/factions/jol_nar.toml

-- J.N.S. Hylarim: each of its combat dice showing 9 or 10 before modifiers (Fragile's -1 does not
-- count) produces 2 more hits. A die that was rerolled counts by its new face.
hook {
  id = "jns_hylarim",
  window = "space_combat.after_roll",
  source = "unit/jol_nar_flagship",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player, source, args)
    local pool, n = args.pool, 0
    for i = 1, pool:size() do
      if pool:unit(i) == source and pool:value(i) >= 9 then n = n + 1 end
    end
    if n > 0 then
      args.extra_hits = args.extra_hits + 2 * n
      if ctx:tracing() then
        ctx:event("jns_hylarim:" .. ctx:name(player) .. ":" .. 2 * n, ctx:name(player) .. "'s flagship rolled " .. n .. " nine or ten: " .. 2 * n .. " more hits")
      end
    end
  end,
}
