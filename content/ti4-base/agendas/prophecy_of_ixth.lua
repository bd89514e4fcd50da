-- Prophecy of Ixth (base law, held by one player): in short, its holder loses the card when they
-- use Production and make fewer than 2 fighters. (Its +1 to the owner's fighters
-- is the modifier in prophecy_of_ixth.toml.) Window: production.end_of_production, opened when the
-- active player produced units: the holder discards it when they produced fewer than 2 fighters
-- (the player counter produced:fighter, scope action). Test: tests/cards/prophecy_of_ixth.toml

hook {
  id = "prophecy_of_ixth_discarded",
  window = "production.end_of_production",
  source = "agenda/prophecy_of_ixth",
  discard = true,
  condition = function(ctx, player, _, args) return args.player == player and ctx:counter(player, "produced:fighter") < 2 end,
  apply = function(ctx, player)
    if ctx:tracing() then
      ctx:event("prophecy_of_ixth_lost:" .. ctx:name(player), ctx:name(player) .. " produced fewer than 2 fighters: Prophecy of Ixth is discarded")
    end
  end,
}
