-- Anomaly rules that limit retreats (Rules Reference, space combat notes). Each hook reads
-- args.system and may set args.eligible = false.
--   "A player cannot retreat into a nebula."
--   "A player may retreat into an asteroid field only if that player owns the Antimass
--    Deflectors technology."
--   "A player may retreat into a supernova only if that player owns the Magmus Reactor Muaat
--    factional technology." (a faction pack grants it by holding that technology)

local owns = require("lib").owns  -- scripts/ti4/lib.lua

-- hook id, anomaly, the technology that allows it (nil: nothing does)
local RULES = {
  { "no_retreat_into_nebula", "nebula", nil },
  { "asteroid_field_needs_antimass", "asteroid_field", "antimass_deflectors" },
  { "supernova_needs_magmus_reactor", "supernova", "magmus_reactor" },
}

for _, rule in ipairs(RULES) do
  local id, anomaly, allowed_by = rule[1], rule[2], rule[3]
  hook {
    id = id,
    window = "space_combat.retreat_eligibility",
    apply = function(ctx, _, _, args)
      if ctx:get(args.system, "anomaly") == anomaly and not (allowed_by and owns(ctx, args.player, allowed_by)) then
        args.eligible = false
      end
    end,
  }
end
