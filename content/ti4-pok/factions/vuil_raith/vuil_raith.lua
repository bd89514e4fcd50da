-- The Vuil'raith Cabal: Devour, The Terror Between, the Reanimator (captures), the Dimensional
-- Tears (gravity rifts), Crucible. Tests: ../../tests/factions/vuil_raith.toml
--
-- Capture (Rules Reference 17): a captured non-fighter ship or mech goes on the capturing player's
-- faction sheet (here: located at that player); a captured fighter or infantry goes to its
-- reinforcements and the capturing player places a token on their sheet (here: the counter
-- "captured:fighter" or "captured:infantry" on that player). A captured unit cannot be produced
-- by its owner (production counts it as not in reinforcements). A player with a space dock
-- blockaded by another player does not capture that player's units (17.6).

local CAPTURED = "captured"  -- flag on a unit: captured once, not again
local CRUCIBLE = "crucible"  -- flag on the active player (this action): Crucible played

local function system_of(ctx, loc)
  if loc == nil or loc == "reinforcements" then return nil end
  return ctx:kind(loc) == "planet" and ctx:location(loc) or loc
end

-- 17.6: one of the capturing player's space docks (a structure with Production) is blockaded by q:
-- q has ships in its system and the capturing player none.
local function blockaded_by(ctx, player, q)
  for _, u in ipairs(ctx:units(player, nil, "production")) do
    local sys = system_of(ctx, ctx:location(u))
    if ctx:get(u, "structure") and sys and ctx:count(q, sys, "ship") > 0 and ctx:count(player, sys, "ship") == 0 then return true end
  end
  return false
end

local function can_capture(ctx, player, u)
  if ctx:get(u, "structure") or ctx:flag(u, CAPTURED) then return false end
  local owner = ctx:owner(u)
  return owner == player or not blockaded_by(ctx, player, owner)
end

local function capture(ctx, player, u, why)
  ctx:set_flag(u, CAPTURED, "game")
  local t = ctx:type(u)
  if t == "fighter" or t == "infantry" then
    ctx:add_counter(player, "captured:" .. t, 1, "game")
  else
    ctx:move(u, player)
  end
  if ctx:tracing() then
    ctx:event("captured:" .. ctx:name(player) .. ":" .. ctx:name(ctx:owner(u)) .. ":" .. t,
      ctx:name(player) .. " captures " .. ctx:name(ctx:owner(u)) .. "'s " .. t .. " (" .. why .. ")")
  end
end

-- Devour: the opponent's units other than structures destroyed in a combat are captured. A space
-- combat (its round counter is set on the system) between the Cabal and the unit's owner, or a
-- ground combat (its round counter on the planet) of the active player against the other.
local function in_combat_against(ctx, player, args)
  local owner, loc = args.player, args.location
  if owner == player or loc == nil then return false end
  if ctx:kind(loc) == "planet" then
    if ctx:counter(loc, "round") == 0 then return false end
    local active = ctx:role("active_player")
    return player == active or owner == active
  end
  if ctx:counter(loc, "round") == 0 then return false end
  local a, d = ctx:role("attacker", "defender")
  return (player == a and owner == d) or (player == d and owner == a)
end

for _, w in ipairs { { "devour", "space_combat.unit_destroyed" }, { "devour_ground", "invasion.unit_destroyed" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "faction/vuil_raith",
    condition = function(ctx, player, _, args)
      return in_combat_against(ctx, player, args) and can_capture(ctx, player, args.unit)
    end,
    apply = function(ctx, player, _, args) capture(ctx, player, args.unit, "Devour") end,
  }
end

-- The Terror Between: every other unit, structures aside, destroyed in the flagship's system is
-- captured, the Cabal's own as well. Any destruction in its system (space area or planets): combat,
-- space cannon, bombardment, gravity rifts. A unit destroyed in the same assignment after the
-- flagship itself is not captured here (the flagship is off the board by then).
for _, w in ipairs { { "the_terror_between", "space_combat.unit_destroyed" },
    { "the_terror_between_invasion", "invasion.unit_destroyed" },
    { "the_terror_between_action", "tactical_action.unit_destroyed" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "unit/vuil_raith_flagship",
    condition = function(ctx, player, source, args)
      return args.unit ~= source and system_of(ctx, args.location) == ctx:location(source) and can_capture(ctx, player, args.unit)
    end,
    apply = function(ctx, player, _, args) capture(ctx, player, args.unit, "The Terror Between") end,
  }
end

-- Reanimator: the player's infantry destroyed on the mech's planet go to their faction sheet as
-- captured units.
for _, w in ipairs { { "reanimator", "invasion.unit_destroyed" }, { "reanimator_action", "tactical_action.unit_destroyed" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "unit/vuil_raith_mech",
    condition = function(ctx, player, source, args)
      return args.player == player and args.location == ctx:location(source) and ctx:type(args.unit) == "infantry"
        and can_capture(ctx, player, args.unit)
    end,
    apply = function(ctx, player, _, args) capture(ctx, player, args.unit, "Reanimator") end,
  }
end

-- Dimensional Tear: the system counts as a gravity rift, and the Cabal's ships make no roll for it.
-- Every player's ship moving out of or through it applies +1 to its move value; other players'
-- ships roll one die and are destroyed on 1-3 (so do they when retreating out of it). A system that
-- is a gravity rift already (the anomaly rules roll there) gains nothing; several tears in one
-- system count once (the first one's hook acts). The Crucible's holder does not roll either.
local function first_tear(ctx, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    for _, u in ipairs(ctx:units(nil, planet, "structure")) do
      if ctx:record_id(u):find("dimensional_tear", 1, true) then return u end
    end
  end
  return nil
end

local function tear_here(ctx, source)
  local sys = system_of(ctx, ctx:location(source))
  return sys ~= nil and ctx:get(sys, "anomaly") ~= "gravity_rift" and first_tear(ctx, sys) == source and sys or nil
end

local function tear_roll(ctx, player, u, window)
  local result = ctx:roll(player, "d10", 1, { purpose = "gravity_rift", unit = u }):value(1)
  if ctx:tracing() then
    ctx:event("dimensional_tear:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. (result <= 3 and "destroyed" or "survives"),
      ctx:name(player) .. "'s " .. ctx:type(u) .. " leaves the Dimensional Tear's gravity rift on a " .. result .. (result <= 3 and ": destroyed" or ": it survives"))
  end
  if result <= 3 then ctx:destroy(u, window) end
  return result > 3
end

local function rolls(ctx, owner, player)
  return player ~= owner and not ctx:flag(player, CRUCIBLE)
end

for _, rec in ipairs { "dimensional_tear", "dimensional_tear_ii" } do
  hook {
    id = rec .. "_passage",
    window = "tactical_action.passage",
    source = "unit/" .. rec,
    condition = function(ctx, _, source, args) return tear_here(ctx, source) == args.system end,
    apply = function(ctx, player, _, args)
      args.move_bonus = args.move_bonus + (ctx:flag(args.player, CRUCIBLE) and 2 or 1)
      if rolls(ctx, player, args.player) then args.risk = true end
    end,
  }
  hook {
    id = rec .. "_movement",
    window = "tactical_action.ship_moves",
    source = "unit/" .. rec,
    condition = function(ctx, player, source, args)
      local sys = tear_here(ctx, source)
      if not sys or not rolls(ctx, player, args.player) or ctx:location(args.unit) ~= args.path[1] then return false end
      for i = 1, #args.path - 1 do
        if args.path[i] == sys then return true end
      end
      return false
    end,
    apply = function(ctx, player, source, args)
      local sys = tear_here(ctx, source)
      for i = 1, #args.path - 1 do
        if args.path[i] == sys and not tear_roll(ctx, args.player, args.unit, "tactical_action.unit_destroyed") then
          args.lost_at = i  -- where it was lost: the units further on its path stay
          return
        end
      end
    end,
  }
  hook {
    id = rec .. "_retreat",
    window = "space_combat.retreat_departure",
    source = "unit/" .. rec,
    condition = function(ctx, player, source, args) return tear_here(ctx, source) == args.from and rolls(ctx, player, args.player) end,
    apply = function(ctx, _, _, args)
      for _, u in ipairs(args.units) do
        if ctx:get(u, "ship") and ctx:get(u, "move") > 0 and ctx:location(u) == args.from then
          tear_roll(ctx, args.player, u, "space_combat.unit_destroyed")
        end
      end
    end,
  }
end

-- Crucible (promissory note): played on activating a system; in that movement the holder's ships
-- make no gravity rift rolls and get a further +1 to move out of or through a rift, and the note
-- goes back to the Vuil'raith player. The holder's movement: the gravity rifts of the map are no
-- anomaly during it (the anomaly rules would roll), each gives +2 to a ship moving out of or
-- through it (its +1 and the card's), and they are gravity rifts again after the movement; the card
-- goes back then. The card's +1 is counted once per rift here, not once per ship: a path through
-- two rifts gets +4, not +3 (an approximation). Default policy: played when a gravity rift or a
-- Dimensional Tear is on the board.
local function rift_systems(ctx)
  local out = {}
  for _, sys in ipairs(ctx:entities { kind = "system" }) do
    if ctx:get(sys, "anomaly") == "gravity_rift" then out[#out + 1] = sys end
  end
  return out
end

local function any_tear(ctx)
  for _, u in ipairs(ctx:units(nil, nil, "structure")) do
    if ctx:record_id(u):find("dimensional_tear", 1, true) then return true end
  end
  return false
end

hook {
  id = "crucible",
  window = "tactical_action.activation",
  source = "promissory_note/crucible",
  optional = true,
  condition = function(ctx, player, source, args)
    return args.player == player and not ctx:flag(source, CRUCIBLE) and (#rift_systems(ctx) > 0 or any_tear(ctx))
  end,
  apply = function(ctx, player, source)
    ctx:set_flag(source, CRUCIBLE, "game")
    ctx:set_flag(player, CRUCIBLE, "action")
    for _, sys in ipairs(rift_systems(ctx)) do
      ctx:set(sys, "anomaly", nil)
      ctx:set_flag(sys, "crucible_rift", "action")
    end
  end,
}

hook {
  id = "crucible_passage",
  window = "tactical_action.passage",
  source = "promissory_note/crucible",
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(args.system, "crucible_rift") end,
  apply = function(_, _, _, args) args.move_bonus = args.move_bonus + 2 end,
}

hook {
  id = "crucible_returned",
  window = "tactical_action.after_movement",
  source = "promissory_note/crucible",
  condition = function(ctx, _, source) return ctx:flag(source, CRUCIBLE) end,
  apply = function(ctx, player, source)
    for _, sys in ipairs(ctx:entities { kind = "system" }) do
      if ctx:flag(sys, "crucible_rift") then ctx:set(sys, "anomaly", "gravity_rift") end
    end
    ctx:move(source, "reinforcements")
    if ctx:tracing() then ctx:event("returned:" .. ctx:name(player) .. ":crucible", ctx:name(player) .. " returns Crucible to the Vuil'raith player") end
  end,
}
