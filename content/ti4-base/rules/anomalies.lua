-- Anomaly rules that limit retreats (Rules Reference, space combat notes). Each hook reads
-- args.system and may set args.eligible = false.

local function anomaly(ctx, sys) return ctx:get(sys, "anomaly") end

local function owns(ctx, player, tech)
  for _, t in ipairs(ctx:entities { kind = "technology", owner = player, type = tech }) do return true end
  return false
end

-- "A player cannot retreat into a nebula." (notes)
hook {
  id = "no_retreat_into_nebula",
  window = "space_combat.retreat_eligibility",
  apply = function(ctx, _, _, args)
    if anomaly(ctx, args.system) == "nebula" then args.eligible = false end
  end,
}

-- "A player may retreat into an asteroid field only if that player owns the Antimass
-- Deflectors technology." (notes)
hook {
  id = "asteroid_field_needs_antimass",
  window = "space_combat.retreat_eligibility",
  apply = function(ctx, _, _, args)
    if anomaly(ctx, args.system) == "asteroid_field" and not owns(ctx, args.player, "antimass_deflectors") then
      args.eligible = false
    end
  end,
}

-- "A player may retreat into a supernova only if that player owns the Magmus Reactor Muaat
-- factional technology." (notes) The Muaat pack grants it by holding that technology.
hook {
  id = "supernova_needs_magmus_reactor",
  window = "space_combat.retreat_eligibility",
  apply = function(ctx, _, _, args)
    if anomaly(ctx, args.system) == "supernova" and not owns(ctx, args.player, "magmus_reactor") then
      args.eligible = false
    end
  end,
}
