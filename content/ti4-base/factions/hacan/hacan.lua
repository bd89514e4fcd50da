-- The Emirates of Hacan: the Wrath of Kenara. Tests: ../../tests/factions/hacan.toml

-- After a combat roll in the flagship's system, 1 trade good per die for +1 to its result.
-- Default policy: spend on each die that misses by exactly 1 (the +1 makes it a hit), while trade
-- goods last; policy.use = { wrath_of_kenara = "never" } keeps them.
hook {
  id = "wrath_of_kenara",
  window = "space_combat.after_roll",
  source = "unit/hacan_flagship",
  optional = true,
  condition = function(ctx, player, source, args)
    if args.player ~= player or ctx:location(source) ~= ctx:role("active_system") then return false end
    return ctx:counter(player, "trade_goods") >= 1
  end,
  helps = function(ctx, player, source, args)
    local pool = args.pool
    for i = 1, pool:size() do
      if not pool:hit(i) and pool:result(i) + 1 >= pool:threshold(i) then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    local pool = args.pool
    for i = 1, pool:size() do
      if ctx:counter(player, "trade_goods") < 1 then return end
      if not pool:hit(i) and pool:result(i) + 1 >= pool:threshold(i) then
        pool:modify(i, 1)
        ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") - 1, "game")
      end
    end
  end,
}
