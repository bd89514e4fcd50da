-- Shard of the Throne (Prophecy of Kings relic). In short: holding it is worth 1 victory point,
-- gained with the card and lost with it; whoever takes a legendary planet or a home system planet
-- from its holder takes the card. Window: invasion.planet_gained, args {player, planet, from}: a
-- legendary planet (`legendary`) or one in a home system (the system's `home`) taken from the owner
-- moves the card and 1 victory point (the
-- player counter victory_points, in the tactical action's report). Test:
-- tests/cards/shard_of_the_throne_relic.toml

hook {
  id = "shard_of_the_throne_relic",
  window = "invasion.planet_gained",
  source = "relic/shard_of_the_throne",
  condition = function(ctx, player, _, args)
    return args.from == player and args.player ~= player
      and (ctx:get(args.planet, "legendary") or ctx:get(ctx:location(args.planet), "home")) and true or false
  end,
  apply = function(ctx, player, source, args)
    ctx:set_owner(source, args.player)
    ctx:add_counter(args.player, "victory_points", 1, "game")
    ctx:add_counter(player, "victory_points", -1, "game")
    if ctx:tracing() then
      ctx:event("shard_of_the_throne:" .. ctx:name(args.player), ctx:name(args.player) .. " gains control of " .. ctx:name(args.planet)
        .. ": gains Shard of the Throne and 1 victory point; " .. ctx:name(player) .. " loses 1")
    end
  end,
}
