-- Default decision heuristics of the TI4 ruleset. Each gets (ctx, player, options, policy,
-- decision), where policy is the player's [side.policy] settings with defaults filled in by
-- setup.lua, and returns the chosen option and a reason for the trace.

local P = {}

local lib = require "lib"

-- retreat = "never" | "when_outnumbered" | N (announce once N rounds have been fought)
P["space_combat.announce_retreat"] = function(ctx, player, options, policy)
  local go, why = lib.time_to_retreat(ctx, player)
  return go and "yes" or "no", why
end

-- the first eligible system, unless the policy names one (retreat_to = "home")
P["space_combat.retreat_to"] = function(ctx, player, options, policy)
  if policy.retreat_to then
    for _, o in ipairs(options) do
      if o == policy.retreat_to then return o, "retreat_to " .. o end
    end
  end
  return options[1], "the first eligible system"
end

-- ground forces taken from planets: none unless retreat_ground_forces says how many
P["space_combat.retreat_ground_forces"] = function(ctx, player, options, policy)
  local want = math.min(policy.retreat_ground_forces or 0, #options - 1)
  return options[want + 1], "retreat_ground_forces " .. (policy.retreat_ground_forces or 0)
end

-- which unit to remove when over capacity: the type that comes last in transport_order
P["space_combat.remove_excess"] = function(ctx, player, options, policy)
  local order = policy.transport_order or {}
  local best, best_rank = options[1], -1
  for _, o in ipairs(options) do
    local rank = #order + 1
    for i, t in ipairs(order) do if t == o then rank = i end end
    if rank > best_rank then best, best_rank = o, rank end
  end
  return best, "the last type in transport_order"
end

-- optional abilities ("may"): the hook's condition already said the rules allow it here.
-- use = { name = "always" } uses it, "never" does not; otherwise it is used unless the hook's
-- `helps` (the default guess whether it helps, nil when it declares none) said false.
P.use = function(ctx, player, options, policy, decision, helps)
  local id = decision:sub(5)
  local v = policy.use and policy.use[id]
  if v == false or v == "never" or v == "no" then return "no", "use." .. id .. " = never" end
  if v == true or v == "always" or v == "yes" then return "yes", "use." .. id .. " = always" end
  if helps == false then return "no", "it would not help here" end
  return "yes", "optional abilities are used when they can be"
end

-- ------------------------------------------------------------------ tactical action: movement

-- The scripted move (the player's `moves` in the scenario) for the ship being moved: the n-th
-- entry naming its type and start system goes to the n-th such ship. nil: none.
local function scripted_move(ctx, player, policy)
  local u = ctx:role("moving_ship")
  return lib.scripted_move(policy.moves, ctx:type(u), ctx:name(ctx:location(u)), ctx:counter(u, "move_ordinal"))
end

-- which path a ship takes: the scenario's scripted moves when it lists any (unlisted ships stay),
-- else the first option (the procedure offers a path for each outcome, those through fewer risky
-- systems first, then the shorter): every ship that can reach moves; a ship already in the active
-- system (Rules Reference: it may leave and come back) is offered "stay" first and stays
P["tactical_action.move_ship"] = function(ctx, player, options, policy)
  if policy.moves then
    local m, i = scripted_move(ctx, player, policy)
    if not m then return "stay", "no scripted move for this ship" end
    for _, o in ipairs(options) do
      if o == m.path then return o, "scripted move " .. i end
    end
    local paths = {}
    for _, o in ipairs(options) do if o ~= "stay" then paths[#paths + 1] = o end end
    ctx:reject(m.at or "players", "scripted move " .. i .. " (" .. m.unit .. " from " .. m.from .. "): the path '" .. m.path
      .. "' is not a legal move; legal paths: " .. table.concat(paths, ", ")
      .. " (one for each outcome: what the ship can pick up, whether it moves through a wormhole, the risky systems it leaves)")
  end
  if options[1] == "stay" then return "stay", "a ship already in the active system stays" end
  return options[1], "every ship that can reach moves, by the path with the fewest risks, then the shortest"
end

-- how many of one type a moving ship picks up (options "type:0" .. "type:n"): the scripted
-- move's carry, else as many as capacity allows, leaving the ground forces on the active system's
-- planets where they are (the ship's counter pick_up_en_route: how many come before them, plus 1)
P["tactical_action.pick_up"] = function(ctx, player, options, policy)
  local t = options[1]:match("^(.*):%d+$")
  if policy.moves then
    local m, i = scripted_move(ctx, player, policy)
    local want = m and m.carry[t] or 0
    if want > #options - 1 then
      ctx:reject(m.at or "players", "scripted move " .. i .. " carries " .. want .. " " .. t .. ", but only " .. (#options - 1) .. " can be picked up")
    end
    return options[want + 1], "scripted move " .. (i or "")
  end
  local en_route = ctx:counter(ctx:role("moving_ship"), "pick_up_en_route")
  if en_route > 0 and en_route < #options then
    return options[en_route], "carry as much as capacity allows; leave the ground forces on the active system's planets"
  end
  return options[#options], "carry as much as capacity allows"
end

-- Space Cannon Offense is a "may": fired unless use = { space_cannon = "never" }
P["tactical_action.use_space_cannon"] = function(ctx, player, options, policy)
  local v = policy.use and policy.use.space_cannon
  if v == false or v == "never" or v == "no" then return "no", "use.space_cannon = never" end
  return "yes", "space cannon fires when it can"
end

-- over capacity outside combat: as after combat, the last type in transport_order goes first
P["tactical_action.remove_excess"] = P["space_combat.remove_excess"]

-- ------------------------------------------------------------------ tactical action: invasion

-- What defends a planet against the player's ground forces: other players' ground forces, and
-- their units with Space Cannon there (Space Cannon Defense fires at the forces committed).
local function defenders(ctx, player, planet)
  return ctx:count(nil, planet, "ground_force") - ctx:count(player, planet, "ground_force")
    + ctx:count(nil, planet, "space_cannon") - ctx:count(player, planet, "space_cannon")
end

-- The contested planet (defended: another player's ground forces or space cannon on it) with the
-- fewest defenders, in the system's planet order: where the default policy lands its main force
-- and bombards.
local function invasion_target(ctx, player)
  local best, fewest
  for _, planet in ipairs(ctx:entities { kind = "planet", location = ctx:role("active_system") }) do
    local n = defenders(ctx, player, planet)
    if n > 0 and (not fewest or n < fewest) then best, fewest = planet, n end
  end
  return best
end

-- the planet a bombarding unit targets: the first option planet the player's commit lands on,
-- else the contested planet with the fewest defenders
P["invasion.bombardment_target"] = function(ctx, player, options, policy)
  if policy.commit then
    for _, o in ipairs(options) do
      local c = policy.commit[o]
      if c then
        for _, n in pairs(c) do if n > 0 then return o, "commit lands on " .. o end end
      end
    end
  end
  local target = invasion_target(ctx, player)
  local name = target and ctx:name(target)
  for _, o in ipairs(options) do
    if o == name then return o, "the contested planet with the fewest defenders" end
  end
  return options[#options], "the last planet offered"
end

-- how many ground forces of one type land on the planet being asked (options "type:0" ..
-- "type:n"): the scenario's commit, else one on each planet the player does not control and
-- nobody defends, and all the rest on the contested planet with the fewest defenders (a planet
-- with another player's PDS is defended: one ground force landed there alone would face its Space
-- Cannon Defense alone)
P["invasion.commit_ground_forces"] = function(ctx, player, options, policy)
  local planet = ctx:role("invaded_planet")
  local t = options[1]:match("^(.*):%d+$")
  local name = ctx:name(planet)
  if policy.commit then
    -- the scenario's numbers are what to land at most: units lost before the invasion (a carrier
    -- destroyed with its cargo) make fewer; setup checked that the numbers can be met at all
    local want = (policy.commit[name] or {})[t] or 0
    if want > #options - 1 then
      return options[#options], "scripted commit: " .. want .. " wanted, " .. (#options - 1) .. " left in the space area"
    end
    return options[want + 1], "scripted commit"
  end
  local target = invasion_target(ctx, player)
  if policy.commit_all then
    -- every ground force to the contested planet with the fewest defenders, else to the first
    -- planet asked that the player does not control
    if planet == target or (not target and ctx:owner(planet) ~= player) then
      return options[#options], "commit = all: every ground force to " .. name
    end
    return options[1], "commit = all: every ground force to one planet"
  end
  if defenders(ctx, player, planet) <= 0 then
    if ctx:owner(planet) == player or ctx:count(player, planet, "ground_force") > 0 then
      return options[1], "nothing more is needed on " .. name
    end
    return options[2], "one ground force takes an undefended planet"
  end
  if planet == target then return options[#options], "all the rest on the contested planet with the fewest defenders" end
  return options[1], "the main force goes to the contested planet with the fewest defenders"
end

-- Coexistence (invasion.lua, M.coexistence) is a "may": the default fights (the ground combat the
-- invasion is about; coexisting gives up the planet: the chooser gains no control, or keeps none);
-- use = { coexistence = "always" } coexists whenever an ability allows it.
P["invasion.use_coexistence"] = function(ctx, player, options, policy)
  local v = policy.use and policy.use.coexistence
  if v == true or v == "always" or v == "yes" then return "yes", "use.coexistence = always" end
  return "no", "the ground combat is fought unless use.coexistence = always"
end

-- Space Cannon Defense is a "may": fired unless use = { space_cannon_defense = "never" }
P["invasion.use_space_cannon_defense"] = function(ctx, player, options, policy)
  local v = policy.use and policy.use.space_cannon_defense
  if v == false or v == "never" or v == "no" then return "no", "use.space_cannon_defense = never" end
  return "yes", "space cannon defense fires when it can"
end

P["invasion.ground_combat_order"] = function(ctx, player, options, policy)
  return options[1], "the planets in the system's order"
end

-- ------------------------------------------------------------------ tactical action: production

-- the next unit to produce: the scenario's production plan (entries in order, each until its
-- count is reached; no count: as many as possible; one fighter or infantry left to reach it: one
-- alone, "fighter:1"), else the unit with the most combat per resource (dice x (11 - combat) x
-- units per cost / cost)
P["production.produce"] = function(ctx, player, options, policy)
  local offered = {}
  for _, o in ipairs(options) do offered[o] = true end
  if policy.production then
    for i, e in ipairs(policy.production) do
      local made = ctx:counter(player, "produced:" .. e.unit)
      if offered[e.unit] and (e.count < 0 or made < e.count) then
        if e.count - made == 1 and offered[e.unit .. ":1"] then return e.unit .. ":1", "production plan entry " .. i .. ": one more" end
        return e.unit, "production plan entry " .. i
      end
    end
    return "done", "the production plan is done (or what is left cannot be afforded)"
  end
  local best, score = "done", 0
  for _, o in ipairs(options) do
    if o ~= "done" and not o:find(":", 1, true) then  -- (a pair's "fighter:1" gives less for the cost)
      local rec = ctx:record(o, "unit")
      local s = (rec.dice or 1) * math.max(0, 11 - (rec.combat or 11)) * math.max(1, rec.units_per_cost or 1) / rec.cost
      if s > score then best, score = o, s end
    end
  end
  return best, best == "done" and "nothing worth producing" or "the most combat per resource"
end

-- which dock's planet a ground force is placed on: the first (in the scenario's order)
P["production.place_ground_force"] = function(ctx, player, options, policy)
  return options[1], "the first planet with a producing unit"
end

-- how to pay: the procedure lists the ways that waste the fewest resources first, then those
-- spending the fewest trade goods
P["production.pay"] = function(ctx, player, options, policy)
  return options[1], "the least resources wasted, then the fewest trade goods"
end

return P
