-- Fire Team (base action card). In short: once your ground forces have rolled in a ground combat
-- round, you may reroll as many of those dice as you like. Window: invasion.after_ground_roll,
-- opened after each player's ground combat roll, args {player, opponent, planet, pool, purpose};
-- the procedure counts the pool's hits after it. Which dice: the misses (rerolling a hit can only
-- lose it). The default policy plays it when the owner's own roll has a miss.
-- Not in space combat (space_combat.after_roll) nor on bombardment or space cannon dice.
-- Test: tests/cards/fire_team.toml

local function misses(pool)
  local n = 0
  for i = 1, #pool do
    if not pool:cancelled(i) and not pool:hit(i) then n = n + 1 end
  end
  return n
end

hook {
  id = "fire_team",
  window = "invasion.after_ground_roll",
  source = "action_card/fire_team",
  optional = true,
  discard = true,
  condition = function(_, player, _, args) return args.player == player end,
  helps = function(_, _, _, args) return misses(args.pool) > 0 end,
  apply = function(_, _, _, args)
    local pool = args.pool
    for i = 1, #pool do
      if not pool:cancelled(i) and not pool:hit(i) then pool:reroll(i) end
    end
  end,
}
