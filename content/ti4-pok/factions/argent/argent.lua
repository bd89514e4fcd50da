-- The Argent Flight: Trrakan Aun Zulok (commander) and Strike Wing Ambuscade (promissory note):
-- "When 1 or more of your units make a roll for a unit ability, choose 1 of those units to roll
-- 1 additional die." Unit abilities: Anti-Fighter Barrage, Bombardment, Space Cannon (offense and
-- defense); not combat rolls. The unit chosen: the one whose die hits most easily. The note is
-- then returned to the Argent player (here: discarded); its default policy plays it on the first
-- such roll. Tests: ../../tests/factions/argent.toml

local WINDOWS = {
  "space_combat.after_anti_fighter_barrage_roll", "invasion.after_bombardment_roll",
  "tactical_action.after_space_cannon_roll", "invasion.after_space_cannon_defense_roll",
}
local SHORT = { "afb", "bombardment", "space_cannon", "space_cannon_defense" }

-- the pool's die (not cancelled) with the lowest threshold: its unit rolls the extra die
local function best_die(pool)
  local best
  for i = 1, pool:size() do
    if not pool:cancelled(i) and (not best or pool:threshold(i) < pool:threshold(best)) then best = i end
  end
  return best
end

for k, window in ipairs(WINDOWS) do
  hook {
    id = "trrakan_aun_zulok_" .. SHORT[k],
    window = window,
    source = "leader/trrakan_aun_zulok",
    condition = function(_, player, _, args) return args.player == player and best_die(args.pool) ~= nil end,
    apply = function(_, _, _, args) args.pool:add(1, best_die(args.pool)) end,
  }
  hook {
    id = "strike_wing_ambuscade_" .. SHORT[k],
    window = window,
    source = "promissory_note/strike_wing_ambuscade",
    optional = true,
    discard = true,
    condition = function(_, player, _, args) return args.player == player and best_die(args.pool) ~= nil end,
    apply = function(_, _, _, args) args.pool:add(1, best_die(args.pool)) end,
  }
end
