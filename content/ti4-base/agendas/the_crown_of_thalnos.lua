-- The Crown of Thalnos (base law). In short: in each combat round the holder may reroll as many
-- dice as they like, and each of their units whose reroll misses is destroyed. Windows:
-- space_combat.after_roll (the owner's combat roll) and invasion.after_ground_roll
-- (the owner's ground combat roll), once per round each. Read as the owner's own dice of the combat
-- roll: never an Anti-Fighter Barrage, space cannon or bombardment roll. A unit is destroyed when
-- none of the dice it rerolled hits (a war sun that rerolls two misses and keeps a hit is lost if
-- both rerolls miss).
-- Default policy (lib.rerolls_worth_it): a unit's misses are rerolled when the hits they are
-- expected to add, each worth the opponent's cheapest unit there, outweigh the chance of losing
-- the unit times its cost; policy.use = { the_crown_of_thalnos = "always" } rerolls every miss.
-- Test: tests/cards/the_crown_of_thalnos.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local function how(ctx, player, opponent, window)
  return { bonus = 0, any_hit_saves = false, always = lib.use_always(ctx, player, "the_crown_of_thalnos"),
    opponent = opponent, destroyed_window = window }
end

hook {
  id = "the_crown_of_thalnos",
  window = "space_combat.after_roll",
  source = "agenda/the_crown_of_thalnos",
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
  id = "the_crown_of_thalnos_ground",
  window = "invasion.after_ground_roll",
  source = "agenda/the_crown_of_thalnos",
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
