-- Plasma Scoring (base technology). In short: in each Bombardment or Space Cannon roll of the
-- owner, one of the units rolling gets 1 extra die. Dice are independent, so the extra die is
-- rolled right after the roll it belongs to, like the unit whose die has the lowest threshold (the
-- best one; ties: the first), and the procedure counts the pool's hits after the window.
-- One hook per kind of roll: space cannon offense (after_space_cannon_roll opens once per
-- location fired from, and the offense is one use: limit "action", the first pool takes it),
-- space cannon defense (one pool per invaded planet: each is a use) and bombardment (one pool).
-- A die cancelled before the window (a bombarding unit that declared no target) is not a unit
-- that uses the ability. Optional: the default policy uses it.
-- Test: tests/cards/plasma_scoring.toml

local function best_die(pool)
  local best
  for i = 1, #pool do
    if not pool:cancelled(i) and (not best or pool:threshold(i) < pool:threshold(best)) then best = i end
  end
  return best
end

local function extra_die(ctx, player, pool)
  local i = best_die(pool)
  local unit = pool:unit(i)
  if ctx:tracing() then
    ctx:event("plasma_scoring:" .. ctx:name(player) .. ":" .. (unit and ctx:type(unit) or "?"),
      ctx:name(player) .. "'s " .. (unit and ctx:type(unit) or "unit") .. " rolls 1 additional die (Plasma Scoring)")
  end
  pool:add(1, i)
end

local WINDOWS = {
  { "plasma_scoring_space_cannon", "tactical_action.after_space_cannon_roll", "action" },
  { "plasma_scoring_space_cannon_defense", "invasion.after_space_cannon_defense_roll", nil },
  { "plasma_scoring_bombardment", "invasion.after_bombardment_roll", nil },
}

for _, w in ipairs(WINDOWS) do
  hook {
    id = w[1],
    window = w[2],
    source = "technology/plasma_scoring",
    optional = true,
    limit = w[3],
    condition = function(_, player, _, args) return args.player == player and best_die(args.pool) ~= nil end,
    apply = function(ctx, player, _, args) extra_die(ctx, player, args.pool) end,
  }
end
