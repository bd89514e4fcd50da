-- A ground combat (procedure = "tactical_ground_combat"): the short form of a tactical action against one
-- planet, as battle calculators set it up (the page's Ground view, a ti4battle.com `place=Ground`
-- link). Called by setup.lua, whose helpers it gets in `h`; it writes the tactical action's own
-- scenario (tactical_setup.lua: one system, one planet) and builds that, so the invasion is the
-- tactical action's, step for step: Space Cannon Offense, bombardment (and Planetary Shield),
-- commit ground forces, Space Cannon Defense, the ground combat, control of the planet.
--
--   procedure = "tactical_ground_combat"
--   [attacker]        the active player: faction, technologies, cards, laws, relics, leaders,
--                     notes, policy, as a space combat side;
--   units = { carrier = 1, dreadnought = 1, infantry = 3 }   in the active system's space: its
--                     ships bombard and carry, its ground forces land on the planet (those its
--                     ships cannot carry come in carriers added for them, as calculators need
--                     no capacity)
--   damaged = { dreadnought = 1 }
--   [defender]        the planet's owner, the same lists;
--   units = { infantry = 2, pds = 1 }   on the planet: ground forces and structures (a ship would
--                     fight a space combat first: write that as a tactical action)
--   damaged = { mech = 1 }
--   galvanized = { infantry = 1 }   either side: units with a galvanize token (Thunder's Edge)
--
-- The defender's PDS fire Space Cannon Defense at the landing ground forces; their Space Cannon
-- Offense belongs before the space combat, which a ground combat comes after, so they fire it
-- only when the defender's policy says use = { space_cannon = "always" }.
-- An error names the key of this form (defender.units.cruiser), not of the tactical action's.

local TOP_KEYS = { ruleset = true, procedure = true, packs = true, description = true, name = true,
  attacker = true, defender = true, piece_limits = true, rounds = true }
local SIDE_KEYS = { faction = true, technologies = true, cards = true, laws = true, relics = true,
  leaders = true, notes = true, policy = true, tokens = true, trade_goods = true, commodities = true,
  relic_fragments = true, assimilator_tokens = true, units = true, damaged = true, versions = true,
  galvanized = true }
-- the tactical action's names for the two players and the places
local PLAYER = { attacker = "attacking", defender = "defending" }
local SYSTEM, PLANET = "system", "planet"

-- The tactical action's key paths of this form's keys: an error there names the form's key.
local RENAMES = {
  { "players.1.", "attacker." }, { "players.2.", "defender." },
  { "systems.1.units." .. PLAYER.attacker, "attacker.units" },
  { "systems.1.damaged." .. PLAYER.attacker, "attacker.damaged" },
  { "systems.1.galvanized." .. PLAYER.attacker, "attacker.galvanized" },
  { "systems.1.planets.1.galvanized", "defender.galvanized" },
  { "systems.1.planets.1.units", "defender.units" },
}
local function form_path(path)
  for _, r in ipairs(RENAMES) do
    if path == (r[1]:gsub("%.$", "")) then return (r[2]:gsub("%.$", "")) end
    if path:sub(1, #r[1]) == r[1] then return r[2] .. path:sub(#r[1] + 1) end
  end
  return path
end

-- ctx with reject speaking of this form's keys (the rest as it is)
local function renaming(ctx)
  return setmetatable({ reject = function(_, path, message) return ctx:reject(form_path(path), message) end }, {
    __index = function(t, k)
      local f = ctx[k]
      if type(f) ~= "function" then return f end
      local m = function(_, ...) return f(ctx, ...) end
      rawset(t, k, m)
      return m
    end,
  })
end

return function(ctx, scenario, h)
  h.check_keys(ctx, scenario, TOP_KEYS, "scenario")
  local players = {}
  for i, role in ipairs { "attacker", "defender" } do
    local side = scenario[role]
    if side == nil then ctx:reject(role, "a ground combat needs an [" .. role .. "] table") end
    h.check_keys(ctx, side, SIDE_KEYS, role)
    local p = { name = PLAYER[role] }
    for k, v in pairs(side) do
      if k ~= "units" and k ~= "damaged" and k ~= "galvanized" then p[k] = v end
    end
    players[i] = p
  end
  -- The defender's PDS fire Space Cannon Offense before the space combat, which a ground combat
  -- comes after (as the calculators' ground battle): not here unless its policy says use.space_cannon
  local pol = {}
  for k, v in pairs(type(players[2].policy) == "table" and players[2].policy or {}) do pol[k] = v end
  if type(pol.use) == "table" or pol.use == nil then
    local use = {}
    for k, v in pairs(pol.use or {}) do use[k] = v end
    if use.space_cannon == nil then use.space_cannon = "never" end
    pol.use = use
  end
  if players[2].policy == nil or type(players[2].policy) == "table" then players[2].policy = pol end
  local att, def = scenario.attacker, scenario.defender
  -- the defender's units are on the planet: ground forces and structures
  if def.units ~= nil then
    h.check_keys(ctx, def.units, setmetatable({}, { __index = function() return true end }), "defender.units")
    for name in pairs(def.units) do
      local rec = h.record_or_reject(ctx, "unit", name, "defender.units." .. name)
      if rec.ship then
        ctx:reject("defender.units." .. name, "a ground combat's defender has units on the planet (ground forces and structures); "
          .. name .. " is a ship: a space combat first is a tactical action (procedure = \"tactical_action\")")
      end
    end
  end
  local tactical = {
    ruleset = scenario.ruleset, procedure = "tactical_action", packs = scenario.packs,
    active_player = PLAYER.attacker, activate = SYSTEM, players = players,
    systems = { {
      id = SYSTEM,
      units = att.units ~= nil and { [PLAYER.attacker] = att.units } or nil,
      damaged = att.damaged ~= nil and { [PLAYER.attacker] = att.damaged } or nil,
      galvanized = att.galvanized ~= nil and { [PLAYER.attacker] = att.galvanized } or nil,
      planets = { { name = PLANET, owner = PLAYER.defender, units = def.units, galvanized = def.galvanized } },
    } },
  }
  require("tactical_setup")(renaming(ctx), tactical, h)
  -- The calculators need no capacity: ground forces and fighters beyond what the attacker's ships
  -- can carry come in carriers added for them (as a ti4battle.com link's import adds them).
  local att_p, sys = ctx:role("attacker"), ctx:role("active_system")
  local over = ctx:count(att_p, sys, "fighter", "ground_force") - ctx:sum(att_p, sys, "capacity", "ship", "structure")
  if over > 0 then
    local each = ctx:record("carrier", "unit").capacity
    for _ = 1, (over + each - 1) // each do ctx:create { kind = "unit", type = "carrier", owner = att_p, location = sys } end
  end
  -- damaged on the planet (the tactical action's planets hold none): the defender's mechs
  if def.damaged ~= nil then
    h.check_keys(ctx, def.damaged, setmetatable({}, { __index = function() return true end }), "defender.damaged")
    local owner = ctx:role("defender")
    local planet = (ctx:entities { kind = "planet" })[1]
    for t, n in pairs(def.damaged) do
      local path = "defender.damaged." .. t
      if math.type(n) ~= "integer" or n < 0 then ctx:reject(path, "damaged counts are whole numbers, not " .. tostring(n)) end
      local left = n
      for _, u in ipairs(ctx:units(owner, planet, "type:" .. t)) do
        if left > 0 and ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then ctx:set(u, "damaged", true); left = left - 1 end
      end
      if left > 0 then ctx:reject(path, "more damaged " .. t .. " than units that can sustain damage on the planet") end
    end
  end
end
