-- The Ghosts of Creuss: Dimensional Splicer. Tests: ../../tests/factions/creuss.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }

-- A wormhole in the active system: the system's own, or the Hil Colish's delta wormhole.
local function wormhole_here(ctx, player, sys)
  if ctx:get(sys, "wormhole") then return true end
  for _, u in ipairs(ctx:units(player, sys, "type:flagship")) do
    if ctx:record_id(u):find("creuss_flagship", 1, true) then return true end
  end
  return false
end

-- At the start of a space combat in a system with a wormhole and the player's ships: 1 hit
-- against the opponent's ships. Here the opponent assigns it by their hit order (the card lets
-- the Creuss player choose the ship: a simplification, said in the pack README).
hook {
  id = "dimensional_splicer",
  window = "space_combat.start_of_combat",
  source = "technology/dimensional_splicer",
  optional = true,
  condition = function(ctx, player)
    local sys = ctx:role("active_system")
    return ctx:count(player, sys, "ship") > 0 and wormhole_here(ctx, player, sys)
  end,
  apply = function(ctx, player)
    local enemy, sys = lib.opponent(ctx, player), ctx:role("active_system")
    ctx:assign_hits(enemy, sys, 1, HITS, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain)
  end,
}
