-- Magen Defense Grid (base technology; the base game's version, not Codex I's Magen Defense Grid
-- Omega). In short: when a ground combat round starts on a planet where the owner has a unit with
-- Planetary Shield, the owner may exhaust it, and the opponent makes no combat rolls that round.
--   1. invasion.start_of_ground_round (round 1: merged with start_of_ground_combat), args
--      {player, opponent, planet}: the owner, one of the two sides, with a Planetary Shield unit
--      on the planet, may exhaust it (flag "exhausted" on the card, scope game; the default
--      policy uses it at the first chance). The opponent gets the flag below for this round.
--   2. invasion.after_ground_roll: the flagged player's dice are cancelled, so they produce no
--      hit (the dice are drawn all the same: a fixed-dice test gives them values).
-- Test: tests/cards/magen_defense_grid.toml

local EXHAUSTED = "exhausted"
local SILENCED = "magen_defense_grid_no_rolls"

local function other_side(player, args)
  if args.player == player then return args.opponent end
  if args.opponent == player then return args.player end
  return nil
end

hook {
  id = "magen_defense_grid",
  window = "invasion.start_of_ground_round",
  source = "technology/magen_defense_grid",
  optional = true,
  condition = function(ctx, player, source, args)
    local enemy = other_side(player, args)
    return enemy ~= nil and not ctx:flag(source, EXHAUSTED) and ctx:count(player, args.planet, "planetary_shield") > 0
      and ctx:count(enemy, args.planet, "ground_force") > 0 and ctx:count(player, args.planet, "ground_force") > 0
  end,
  apply = function(ctx, player, source, args)
    local enemy = other_side(player, args)
    ctx:set_flag(source, EXHAUSTED, "game")
    ctx:set_flag(enemy, SILENCED, "round")
    if ctx:tracing() then
      ctx:event("magen_defense_grid:" .. ctx:name(player) .. ":" .. ctx:name(args.planet),
        ctx:name(enemy) .. " cannot make combat rolls this round on " .. ctx:name(args.planet) .. " (Magen Defense Grid)")
    end
  end,
}

hook {
  id = "magen_defense_grid_no_rolls",
  window = "invasion.after_ground_roll",
  source = "technology/magen_defense_grid",
  condition = function(ctx, player, _, args)
    return args.opponent == player and ctx:flag(args.player, SILENCED)
  end,
  apply = function(_, _, _, args)
    for i = 1, #args.pool do args.pool:cancel(i) end
  end,
}
