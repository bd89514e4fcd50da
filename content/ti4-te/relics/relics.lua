-- Thunder's Edge's relics (relics.toml). Tests: ../tests/relics.toml

-- Lightrail Ordnance: the holder's space docks gain Space Cannon 5 (x2) with the reach of PDS II
-- (adjacent systems too). Set on the docks when the system is activated, before any space cannon.
hook {
  id = "lightrail_ordnance",
  window = "tactical_action.activation",
  source = "relic/lightrail_ordnance",
  condition = function(ctx, player) return #ctx:entities { kind = "unit", owner = player, type = "space_dock" } > 0 end,
  apply = function(ctx, player)
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player, type = "space_dock" }) do
      ctx:set(u, "space_cannon", 5)
      ctx:set(u, "space_cannon_dice", 2)
      ctx:set(u, "space_cannon_range", 1)
    end
  end,
}
