-- The Titans of Ul: Tellurian (agent), Ouranos and the Hecatoncheires (DEPLOY), Awaken,
-- Coalescence. Tests: ../../tests/factions/titans.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local USED = "tellurian_exhausted"  -- a flag on the player: the agent is exhausted (for the game here)

-- Whether the next hit on the player at `location` would destroy a unit worth saving: no unit
-- there can absorb it with Sustain Damage (policy sustain not "never"), and the unit the player's
-- order loses first is not a fighter or an infantry.
local function worth_cancelling(ctx, player, location, ground)
  local policy = ctx:policy(player)
  local units = ctx:units(player, location, ground and "ground_force" or "ship")
  if policy.sustain ~= "never" then
    for _, u in ipairs(units) do
      if ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then return false end
    end
  end
  local order = ground and { "infantry", "mech" } or policy.hit_order or {}
  for _, t in ipairs(order) do
    for _, u in ipairs(units) do
      if ctx:type(u) == t then return t ~= "fighter" and t ~= "infantry" end
    end
  end
  return #units > 0
end

-- The default policy's guess for every Tellurian hook: policy.use = { tellurian = "always" } (one
-- key for the card's five hooks) cancels any hit, else a hit on a unit worth saving.
local function wants(ctx, player, location, ground)
  local use = ctx:policy(player).use
  if use and (use.tellurian == "always" or use.tellurian == true) then return true end
  return worth_cancelling(ctx, player, location, ground)
end

local function cancel(ctx, player, args)
  args.hits[player] = args.hits[player] - 1
  ctx:set_flag(player, USED, "game")
end

-- a hit against the player's ships in space combat (combat rolls or Anti-Fighter Barrage)
hook {
  id = "tellurian",
  window = "space_combat.assign_hits",
  source = "leader/tellurian",
  optional = true,
  condition = function(ctx, player, _, args)
    return not ctx:flag(player, USED) and (args.hits[player] or 0) > 0
  end,
  helps = function(ctx, player, _, args) return wants(ctx, player, ctx:role("active_system"), false) end,
  apply = function(ctx, player, _, args) cancel(ctx, player, args) end,
}

-- a hit against the player's ground forces in ground combat
hook {
  id = "tellurian_ground",
  window = "invasion.assign_ground_hits",
  source = "leader/tellurian",
  optional = true,
  condition = function(ctx, player, _, args)
    return not ctx:flag(player, USED) and (args.hits[player] or 0) > 0
  end,
  helps = function(ctx, player, _, args) return wants(ctx, player, args.planet, true) end,
  apply = function(ctx, player, _, args) cancel(ctx, player, args) end,
}

-- Tellurian on the other hits: Space Cannon Offense against the player's ships, Space Cannon
-- Defense against their ground forces, bombardment of their ground forces (the card acts whenever a
-- hit is made against a unit). The same card and default policy as above.
hook {
  id = "tellurian_space_cannon",
  window = "tactical_action.assign_space_cannon_hits",
  source = "leader/tellurian",
  optional = true,
  condition = function(ctx, player, _, args)
    return not ctx:flag(player, USED) and args.target == player and (args.hits[player] or 0) > 0
  end,
  helps = function(ctx, player, _, args) return wants(ctx, player, ctx:role("active_system"), false) end,
  apply = function(ctx, player, _, args) cancel(ctx, player, args) end,
}

hook {
  id = "tellurian_space_cannon_defense",
  window = "invasion.assign_space_cannon_defense_hits",
  source = "leader/tellurian",
  optional = true,
  condition = function(ctx, player, _, args)
    return not ctx:flag(player, USED) and args.target == player and (args.hits[player] or 0) > 0
  end,
  helps = function(ctx, player, _, args) return wants(ctx, player, args.planet, true) end,
  apply = function(ctx, player, _, args) cancel(ctx, player, args) end,
}

-- bombardment hits (args.hits is a number) against the player's ground forces on the planet
hook {
  id = "tellurian_bombardment",
  window = "invasion.assign_bombardment_hits",
  source = "leader/tellurian",
  optional = true,
  condition = function(ctx, player, _, args)
    return not ctx:flag(player, USED) and args.player ~= player and args.hits > 0 and ctx:count(player, args.planet, "ground_force") > 0

  end,
  helps = function(ctx, player, _, args) return wants(ctx, player, args.planet, true) end,
  apply = function(ctx, player, _, args)
    args.hits = args.hits - 1
    ctx:set_flag(player, USED, "game")
  end,
}

-- Placing a unit of a generic type for the player (their faction's record: a Hel-Titan for a
-- PDS), if one is left in reinforcements; returns it.
local function place(ctx, player, t, location)
  local rec = ctx:record(t, "unit")
  if rec and (rec.reinforcements or 0) > 0 and ctx:count(player, nil, "type:" .. t) >= rec.reinforcements then return nil end
  local u = ctx:create { kind = "unit", type = t, owner = player, location = location }
  local own = lib.unit_records(ctx, player)[t]
  if own then ctx:upgrade(u, own) end
  return u
end

local function pds_in(ctx, player, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    local u = ctx:units(player, planet, "type:pds")[1]
    if u then return u end
  end
  return nil
end

-- Coalescence: units the flagship or Awaken puts beside another player's units, in a space area or
-- on a planet, have to fight in the Space Combat or Ground Combat step. A space combat happens
-- anyway when two players have ships there; a planet where Awaken placed units beside another
-- player's ground forces is counted as invaded (counter "invaded"), so its ground combat is
-- resolved. Those units were not committed: no Space Cannon Defense fires at them alone (hook
-- below).
local COALESCED = "coalesced"  -- flag on a unit placed by Awaken

local function coalesce(ctx, player, planet)
  for _, q in ipairs(ctx:players()) do
    if q ~= player and ctx:count(q, planet, "ground_force") > 0 and ctx:counter(planet, "invaded") == 0 then
      ctx:set_counter(planet, "invaded", 99, "action")
      if ctx:tracing() then ctx:event("coalescence:" .. ctx:name(planet), "Coalescence: a ground combat on " .. ctx:name(planet) .. " must be resolved") end
      return
    end
  end
end

-- Ouranos, DEPLOY: on activating a system holding a Titans PDS, the player may swap one of those
-- PDS for the flagship. Default policy: whenever the flagship is in reinforcements. It runs before
-- Awaken (higher priority): the PDS Awaken places are not there at the activation.
hook {
  id = "ouranos",
  window = "tactical_action.activation",
  source = "faction/titans",
  optional = true,
  priority = 2,
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:count(player, nil, "type:flagship") == 0 and pds_in(ctx, player, args.system) ~= nil
  end,
  apply = function(ctx, player, _, args)
    ctx:move(pds_in(ctx, player, args.system), "reinforcements")
    place(ctx, player, "flagship", args.system)
    if ctx:tracing() then ctx:event("ouranos:" .. ctx:name(player), ctx:name(player) .. " replaces a PDS with Ouranos") end
  end,
}

-- Awaken: on activating a system with Titans sleeper tokens, each of them may be swapped for a PDS
-- from reinforcements. Hecatoncheires, DEPLOY: in place of a PDS about to go on a planet, the
-- player may put a mech and an infantry there. Default policy: Awaken whenever a sleeper is
-- there; the Hecatoncheires on a planet where another player has ground forces (a ground combat
-- follows), when a mech is left. Units Awaken places on a planet another player controls where no
-- other player has ground forces take it at once (before Space Cannon Offense): the Titans gain
-- control and that player's structures there are destroyed, as when control is established after an
-- invasion.
local function sleepers(ctx, player, sys)
  local out = {}
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    for _, t in ipairs(ctx:entities { kind = "token", owner = player, type = "sleeper", location = planet }) do out[#out + 1] = t end
  end
  return out
end

-- the Titans gain control of `planet` from `from`: its card exhausted, the structures of other
-- players there destroyed (invasion.lua's establish control), invasion.planet_gained opened
local function gain(ctx, player, from, planet)
  ctx:set_owner(planet, player)
  ctx:set_flag(planet, "exhausted", "game")
  if ctx:tracing() then
    ctx:event("planet_gained:" .. ctx:name(player) .. ":" .. ctx:name(planet),
      ctx:name(player) .. " gains control of " .. lib.place(ctx, planet) .. " (Awaken; its card exhausted)")
  end
  for _, q in ipairs(ctx:players()) do
    if q ~= player then
      for _, u in ipairs(ctx:units(q, planet, "structure")) do
        if ctx:tracing() then
          ctx:event("structure_destroyed:" .. ctx:name(q) .. ":" .. ctx:type(u) .. ":" .. ctx:name(planet),
            ctx:name(q) .. "'s " .. ctx:type(u) .. " on " .. lib.place(ctx, planet) .. " is destroyed")
        end
        ctx:destroy(u, "tactical_action.unit_destroyed")
      end
    end
  end
  ctx:open("invasion.planet_gained", { player = player, planet = planet, from = from })
end

local function contested(ctx, player, planet)
  for _, q in ipairs(ctx:players()) do
    if q ~= player and ctx:count(q, planet, "ground_force") > 0 then return true end
  end
  return false
end

hook {
  id = "hecatoncheires",
  window = "tactical_action.activation",
  source = "faction/titans",
  optional = true,
  priority = 1,
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    local mech = ctx:record("mech", "unit")
    return ctx:count(player, nil, "type:mech") < (mech.reinforcements or 4) and #sleepers(ctx, player, args.system) > 0
  end,
  helps = function(ctx, player, _, args)
    for _, t in ipairs(sleepers(ctx, player, args.system)) do
      if contested(ctx, player, ctx:location(t)) then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    -- on the contested planets; on every sleeper's planet when none is (use = "always")
    local all = true
    for _, t in ipairs(sleepers(ctx, player, args.system)) do
      if contested(ctx, player, ctx:location(t)) then all = false end
    end
    for _, t in ipairs(sleepers(ctx, player, args.system)) do
      if all or contested(ctx, player, ctx:location(t)) then ctx:set_flag(t, "hecatoncheires", "action") end
    end
  end,
}

hook {
  id = "awaken",
  window = "tactical_action.activation",
  source = "faction/titans",
  optional = true,
  condition = function(ctx, player, _, args) return args.player == player and #sleepers(ctx, player, args.system) > 0 end,
  apply = function(ctx, player, _, args)
    for _, t in ipairs(sleepers(ctx, player, args.system)) do
      local planet = ctx:location(t)
      local placed = {}
      if ctx:flag(t, "hecatoncheires") then
        placed[1] = place(ctx, player, "mech", planet)
        if placed[1] then placed[2] = place(ctx, player, "infantry", planet) end
      end
      if not placed[1] then placed[1] = place(ctx, player, "pds", planet) end
      if placed[1] then
        ctx:move(t, "reinforcements")
        for _, u in ipairs(placed) do
          ctx:set_flag(u, COALESCED, "action")
          if ctx:tracing() then ctx:event("awaken:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. ctx:name(planet), ctx:name(player) .. " places a " .. ctx:type(u) .. " on " .. ctx:name(planet) .. " (Awaken)") end
        end
        coalesce(ctx, player, planet)
        local from = ctx:owner(planet)
        if from ~= nil and from ~= player and not contested(ctx, player, planet) then gain(ctx, player, from, planet) end
      end
    end
  end,
}

-- Coalescence's units are not committed: no Space Cannon Defense at a planet where the active
-- player's ground forces are only those Awaken placed.
hook {
  id = "coalescence",
  window = "invasion.before_space_cannon_defense",
  source = "faction/titans",
  condition = function(ctx, player, _, args)
    if args.target ~= player or not args.can_fire then return false end
    for _, u in ipairs(ctx:units(player, args.planet, "ground_force")) do
      if not ctx:flag(u, COALESCED) then return false end
    end
    return true
  end,
  apply = function(_, _, _, args) args.can_fire = false end,
}

-- Ul the Progenitor, GEOFORM (once used): the planet it is attached to (a token geoform on it)
-- has Space Cannon 5 (x3), used as a unit would use it; whoever controls the planet uses it
-- (the Rules Reference's note). At the activation of its system the planet's controller gets a unit
-- geoform_space_cannon there (Space Cannon Offense and Defense), gone when control changes.
local function geoform_planet(ctx, source, sys)
  local planet = ctx:location(source)
  return planet ~= nil and planet ~= "reinforcements" and ctx:location(planet) == sys and planet or nil
end

hook {
  id = "geoform",
  window = "tactical_action.activation",
  source = "token/geoform",
  condition = function(ctx, _, source, args)
    local planet = geoform_planet(ctx, source, args.system)
    return planet ~= nil and ctx:owner(planet) ~= nil and ctx:count(nil, planet, "type:geoform_space_cannon") == 0
  end,
  apply = function(ctx, _, source, args)
    local planet = geoform_planet(ctx, source, args.system)
    ctx:create { kind = "unit", type = "geoform_space_cannon", owner = ctx:owner(planet), location = planet }
  end,
}

hook {
  id = "geoform_control",
  window = "invasion.planet_gained",
  source = "unit/geoform_space_cannon",
  condition = function(ctx, _, source, args) return args.planet == ctx:location(source) end,
  apply = function(ctx, _, source) ctx:move(source, "reinforcements") end,
}
