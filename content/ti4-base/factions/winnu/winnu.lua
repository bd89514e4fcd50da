-- The Winnu: the Salai Sai Corian. Tests: ../../tests/factions/winnu.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Before each round's combat rolls: the flagship rolls as many dice as the opponent has
-- non-fighter ships in the system (0 when they have none).
hook {
  id = "salai_sai_corian",
  window = "space_combat.before_roll",
  source = "unit/winnu_flagship",
  condition = function(ctx, _, source) return ctx:location(source) == ctx:role("active_system") end,
  apply = function(ctx, player, source)
    local n = 0
    for _, u in ipairs(ctx:units(lib.opponent(ctx, player), ctx:role("active_system"), "ship")) do
      if not ctx:get(u, "fighter") then n = n + 1 end
    end
    ctx:set(source, "dice", n)
  end,
}
