-- Anomaly rules for retreats (Rules Reference, space combat notes) and for movement in a tactical
-- action (Learn to Play). The eligibility hooks read args.system and may set args.eligible = false;
-- the gravity rift's hooks roll for the ships leaving it (retreat, movement); anomaly_movement says
-- what each anomaly allows a moving ship.
--   Nebula: no retreat into one.
--   Asteroid field: a retreat into one needs the Antimass Deflectors technology.
--   Supernova: a retreat into one needs Magmus Reactor, the Muaat faction technology (a faction
--    pack grants it by holding that technology).

local owns = require("lib").owns  -- scripts/ti4/lib.lua

-- hook id, anomaly, the technologies that allow it (none: nothing does; Magmus Reactor in either
-- version, the faction sheet's or Codex I's Ω)
local RULES = {
  { "no_retreat_into_nebula", "nebula", {} },
  { "asteroid_field_needs_antimass", "asteroid_field", { "antimass_deflectors" } },
  { "supernova_needs_magmus_reactor", "supernova", { "magmus_reactor", "magmus_reactor_omega" } },
}

local function owns_any(ctx, player, techs)
  for _, t in ipairs(techs) do
    if owns(ctx, player, t) then return true end
  end
  return false
end

for _, rule in ipairs(RULES) do
  local id, anomaly, allowed_by = rule[1], rule[2], rule[3]
  hook {
    id = id,
    window = "space_combat.retreat_eligibility",
    apply = function(ctx, _, _, args)
      if ctx:get(args.system, "anomaly") == anomaly and not owns_any(ctx, args.player, allowed_by) then
        args.eligible = false
      end
    end,
  }
end

-- Gravity rift (Learn to Play): a ship moving through or out of a gravity rift gets +1 to its move
-- value and rolls 1 die, and is destroyed on 1-3. Space combat notes: retreating out of a gravity
-- rift is allowed, and the rift still rolls for those ships. One roll per ship and
-- per rift it leaves; returns whether the ship survives.
local function gravity_rift_roll(ctx, player, u, window)
  local result = ctx:roll(player, "d10", 1, { purpose = "gravity_rift", unit = u }):value(1)
  if ctx:tracing() then
    ctx:event("gravity_rift:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. (result <= 3 and "destroyed" or "survives"),
      ctx:name(player) .. "'s " .. ctx:type(u) .. " leaves the gravity rift on a " .. result .. (result <= 3 and ": destroyed" or ": it survives"))
  end
  if result <= 3 then ctx:destroy(u, window) end
  return result > 3
end

-- A retreat out of a rift: each retreating ship rolls as it leaves, in the order it is listed.
hook {
  id = "gravity_rift_retreat",
  window = "space_combat.retreat_departure",
  apply = function(ctx, _, _, args)
    if ctx:get(args.from, "anomaly") ~= "gravity_rift" then return end
    for _, u in ipairs(args.units) do
      if ctx:get(u, "ship") and ctx:get(u, "move") > 0 then gravity_rift_roll(ctx, args.player, u, "space_combat.unit_destroyed") end
    end
  end,
}

-- A ship moving in a tactical action rolls for each gravity rift it moves out of or through (the
-- systems of its path before the active system), in path order, until one destroys it; it says
-- where (args.lost_at: the place on the path of the rift it was leaving) and the procedure
-- destroys what it carried by then; the units further on stay where they are.
-- An ability may have the active player ignore the effect of anomalies during movement: the action
-- flag "ignore_anomalies_in_movement" on the player (Nav Suite); then neither hook below acts.
hook {
  id = "gravity_rift_movement",
  window = "tactical_action.ship_moves",
  apply = function(ctx, _, _, args)
    if ctx:flag(args.player, "ignore_anomalies_in_movement") then return end
    local path = args.path
    for i = 1, #path - 1 do
      if ctx:get(path[i], "anomaly") == "gravity_rift" and not gravity_rift_roll(ctx, args.player, args.unit, "tactical_action.unit_destroyed") then
        args.lost_at = i
        return
      end
    end
  end,
}

-- Movement through anomalies (Learn to Play), asked once per system a move may touch:
--   Asteroid Field: no ship moves into or through one. (Antimass Deflectors
--     lets its owner do both.)
--   Nebula: a ship may end its move in one but not pass through it, and a ship leaving one has a
--     move value of 1. (into: only as the active system, where every move ends)
--   Supernova: no ship moves into or through one.
--   Gravity rift: +1 to the move value of a ship that moves through or out of it (the roll is
--     gravity_rift_movement above); a risk the default movement policy avoids when it can.
hook {
  id = "anomaly_movement",
  window = "tactical_action.passage",
  apply = function(ctx, _, _, args)
    if ctx:flag(args.player, "ignore_anomalies_in_movement") then return end
    local a = ctx:get(args.system, "anomaly")
    if a == "asteroid_field" then
      if not owns(ctx, args.player, "antimass_deflectors") then args.can_pass, args.can_end = false, false end
    elseif a == "supernova" then
      args.can_pass, args.can_end = false, false
    elseif a == "nebula" then
      -- the action flag move_through_nebulae: a law lets ships pass (Shared Research)
      if not ctx:flag(args.player, "move_through_nebulae") then args.can_pass = false end
      args.move_limit = 1
    elseif a == "gravity_rift" then
      args.move_bonus = args.move_bonus + 1
      args.risk = true
    end
  end,
}
