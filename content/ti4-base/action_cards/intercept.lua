-- Intercept (base action card). Window: retreat_announced, args {player}. The procedure keeps
-- the announcement as the round-scoped flag "retreat_announced" and reads it back after the
-- window, so clearing it takes the retreat back for this round only. Test: tests/cards/intercept.toml

hook {
  id = "intercept",
  window = "space_combat.retreat_announced",
  source = "action_card/intercept",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    return args.player ~= player and ctx:flag(args.player, "retreat_announced")
  end,
  apply = function(ctx, _, _, args)
    ctx:set_counter(args.player, "retreat_announced", 0, "round")
    if ctx:tracing() then
      ctx:event("retreat_stopped:" .. ctx:name(args.player), ctx:name(args.player) .. " cannot retreat this round (Intercept)")
    end
  end,
}
