-- The Xxcha Kingdom: Nullification Field. Tests: ../../tests/factions/xxcha.toml
-- (Loncara Ssodu and Indomitus are data: space cannon that reaches adjacent systems, xxcha.toml.)

-- Nullification Field: when another player activates a system holding Xxcha ships, the Xxcha player
-- may exhaust the card and pay 1 strategy token to end that player's turn on the spot. The active
-- player's turn ends (the action flag turn_ended: no movement, no combat, no invasion, no
-- production). Exhausted, the card stays so (its use is counted for the
-- game). Default policy: when the active player has ships that could come (any ship with a move
-- value outside the active system) or ships there already.
hook {
  id = "nullification_field",
  window = "tactical_action.activation",
  source = "technology/nullification_field",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    if args.player == player or ctx:count(player, args.system, "ship") == 0 then return false end
    return ctx:get(player, "strategy_tokens") >= 1
  end,
  helps = function(ctx, player, _, args)
    if ctx:count(args.player, args.system, "ship") > 0 then return true end
    for _, u in ipairs(ctx:units(args.player, nil, "move")) do
      if ctx:get(u, "ship") and ctx:location(u) ~= args.system then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    ctx:set(player, "strategy_tokens", ctx:get(player, "strategy_tokens") - 1)
    ctx:set_flag(args.player, "turn_ended", "action")
    if ctx:tracing() then
      ctx:event("nullification_field:" .. ctx:name(player), ctx:name(player) .. " spends a strategy token: " .. ctx:name(args.player) .. "'s turn ends (Nullification Field)")
    end
  end,
}
