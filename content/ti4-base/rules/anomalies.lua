-- Anomaly rules for retreats (Rules Reference, space combat notes). The eligibility hooks read
-- args.system and may set args.eligible = false; the gravity rift's hook (at the end) rolls for
-- the ships leaving it.
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

-- Gravity rift (Learn to Play): "A ship that moves through or out of a gravity rift applies +1 to
-- its move value and then rolls one die; on a result of 1-3, the ship is destroyed." Space combat
-- notes: "A player may attempt to retreat from a combat in a gravity rift, but will still be
-- affected by it." Each retreating ship rolls as it leaves, in the order it is listed.
hook {
  id = "gravity_rift_retreat",
  window = "space_combat.retreat_departure",
  apply = function(ctx, _, _, args)
    if ctx:get(args.from, "anomaly") ~= "gravity_rift" then return end
    for _, u in ipairs(args.units) do
      if ctx:get(u, "ship") and ctx:get(u, "move") > 0 then
        local result = ctx:roll(args.player, "d10", 1, { purpose = "gravity_rift", unit = u }):value(1)
        if ctx:tracing() then
          ctx:event("gravity_rift:" .. ctx:name(args.player) .. ":" .. ctx:type(u) .. ":" .. (result <= 3 and "destroyed" or "survives"),
            ctx:name(args.player) .. "'s " .. ctx:type(u) .. " leaves the gravity rift on a " .. result .. (result <= 3 and ": destroyed" or ": it survives"))
        end
        if result <= 3 then ctx:destroy(u, "space_combat.unit_destroyed") end
      end
    end
  end,
}
