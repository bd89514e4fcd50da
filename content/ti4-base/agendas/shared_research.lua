-- Shared Research (base law). In short: everyone's units may pass through nebulae. Window:
-- tactical_action.before_movement: the action flag "move_through_nebulae" on the active player,
-- which the nebula's passage rule reads (rules/anomalies.lua): a nebula may then be passed, unless
-- something else stops it (another player's ships). The rest of the nebula's rules stand: a ship
-- that moves out of one has a move value of 1, the defender's +1 in combat, and no retreat into a
-- nebula (the Rules Reference notes that this law does not allow a retreat into a nebula). Test:
-- tests/cards/shared_research.toml

hook {
  id = "shared_research",
  window = "tactical_action.before_movement",
  source = "agenda/shared_research",
  condition = function(ctx, _, _, args) return not ctx:flag(args.player, "move_through_nebulae") end,
  apply = function(ctx, _, _, args) ctx:set_flag(args.player, "move_through_nebulae", "action") end,
}
