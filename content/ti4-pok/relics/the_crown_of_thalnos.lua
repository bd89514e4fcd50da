-- The Crown of Thalnos (Prophecy of Kings relic). In short: in each combat round the holder may
-- reroll as many of their dice as they like at +1, and a unit that rerolled without producing a hit
-- is destroyed. As the base game's law (ti4-base agendas/the_crown_of_thalnos.lua: the same
-- windows, the owner's combat and ground combat rolls only), with +1 on each rerolled die, and a
-- unit is safe when any of its dice hits (a war sun that kept one hit rerolls its two misses for
-- free). The relic is not discarded.
-- Default policy: lib.rerolls_worth_it (policy.use = { the_crown_of_thalnos_relic = "always" }).
-- Test: tests/cards/the_crown_of_thalnos_relic.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local function how(ctx, player, opponent, window)
  return { bonus = 1, any_hit_saves = true, always = lib.use_always(ctx, player, "the_crown_of_thalnos_relic"),
    opponent = opponent, destroyed_window = window }
end

hook {
  id = "the_crown_of_thalnos_relic",
  window = "space_combat.after_roll",
  source = "relic/the_crown_of_thalnos",
  optional = true,
  limit = "round",
  condition = function(ctx, player, _, args) return args.player == player and args.purpose == "combat" end,
  helps = function(ctx, player, _, args)
    local h = how(ctx, player, lib.opponent(ctx, player), "space_combat.unit_destroyed")
    return #lib.rerolls_worth_it(ctx, args.pool, h, ctx:role("active_system")) > 0
  end,
  apply = function(ctx, player, _, args)
    local h = how(ctx, player, lib.opponent(ctx, player), "space_combat.unit_destroyed")
    lib.reroll_or_destroy(ctx, player, args.pool, h, lib.rerolls_worth_it(ctx, args.pool, h, ctx:role("active_system")), "the_crown_of_thalnos")
  end,
}

hook {
  id = "the_crown_of_thalnos_relic_ground",
  window = "invasion.after_ground_roll",
  source = "relic/the_crown_of_thalnos",
  optional = true,
  limit = "round",
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args)
    local h = how(ctx, player, args.opponent, "invasion.unit_destroyed")
    return #lib.rerolls_worth_it(ctx, args.pool, h, args.planet) > 0
  end,
  apply = function(ctx, player, _, args)
    local h = how(ctx, player, args.opponent, "invasion.unit_destroyed")
    lib.reroll_or_destroy(ctx, player, args.pool, h, lib.rerolls_worth_it(ctx, args.pool, h, args.planet), "the_crown_of_thalnos")
  end,
}
