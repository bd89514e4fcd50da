-- The Firmament: Heaven's Eye. Tests: ../../tests/factions/firmament.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Heaven's Eye: if the active system holds units of a player with a control token on one of the
-- Firmament's plots (that player's counter `puppeted`, scenario `counters = { puppeted = 1 }`),
-- it is repaired at the end of every combat round. (Its +1 move is not modelled.)
hook {
  id = "heavens_eye",
  window = "space_combat.end_of_round",
  source = "unit/firmament_flagship",
  condition = function(ctx, player, source)
    local sys = ctx:role("active_system")
    local enemy = lib.opponent(ctx, player)
    return ctx:location(source) == sys and ctx:get(source, "damaged") and ctx:counter(enemy, "puppeted") > 0
      and ctx:count(enemy, sys) > 0
  end,
  apply = function(ctx, _, source)
    ctx:set(source, "damaged", false)
    if ctx:tracing() then ctx:event("repaired:" .. ctx:name(ctx:owner(source)) .. ":flagship", "Heaven's Eye is repaired") end
  end,
}
