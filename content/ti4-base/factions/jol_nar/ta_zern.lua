-- Ta Zern (Jol-Nar commander): the Jol-Nar player may reroll any of the dice of their Bombardment
-- and Space Cannon rolls. The default policy rerolls every die that missed, once.
-- Windows: the bombardment roll, Space Cannon Offense (each pool) and Space Cannon Defense; not
-- Anti-Fighter Barrage or combat rolls. Tests: ../../tests/factions/jol_nar.toml

local WINDOWS = {
  { "ta_zern_bombardment", "invasion.after_bombardment_roll" },
  { "ta_zern_space_cannon", "tactical_action.after_space_cannon_roll" },
  { "ta_zern_space_cannon_defense", "invasion.after_space_cannon_defense_roll" },
}

for _, w in ipairs(WINDOWS) do
  hook {
    id = w[1],
    window = w[2],
    source = "leader/ta_zern",
    condition = function(_, player, _, args)
      if args.player ~= player then return false end
      for i = 1, args.pool:size() do
        if not args.pool:hit(i) and not args.pool:cancelled(i) then return true end
      end
      return false
    end,
    apply = function(_, _, _, args)
      local pool = args.pool
      for i = 1, pool:size() do
        if not pool:hit(i) and not pool:cancelled(i) then pool:reroll(i) end
      end
    end,
  }
end
