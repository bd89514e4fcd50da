-- Builds a TI4 tactical action state from a scenario (procedure = "tactical_action"); called by
-- setup.lua, whose helpers it gets in `h`. Every key is checked; a value the rules forbid (a
-- system that already holds the active player's command token, an empty tactic pool) is rejected
-- with its line. The format is in docs/ti4.md, "The tactical action":
--
--   procedure = "tactical_action"
--   active_player = "xxcha"          -- a player's name
--   activate = "wellon"              -- a system's id
--   [[players]]                      -- any number, in turn order
--   name = "xxcha"                   -- also a role: survivors = { xxcha = {...} } in tests
--   tokens = { tactic = 3, fleet = 3, strategy = 2, reinforcements = 8 }
--   technologies, cards, laws, relics, faction, policy   -- as a space combat side
--   moves = [{ unit = "carrier", path = ["quann", "wellon"], carry = { infantry = 2 } }]  -- from = path[1]
--   map = "learn_to_play_6p"         -- optional: a galaxy (galaxy.lua); its systems' ids are their
--                                    -- records' names (tile_19), home slots home_1 ...; anywhere
--                                    -- a system id goes, a tile number on the map may go instead
--   [[systems]]
--   id = "wellon"; anomaly = "nebula"; adjacent = ["quann", ...]   -- with a map: id, tile = 19
--   wormhole = "alpha"               -- or a list (up to 3), as a tile gives them (wormhole,
--                                    -- wormhole_2, wormhole_3): adjacent to every system with one
--                                    -- of the same type (alpha, beta, gamma, delta, epsilon)
--                                    -- or hex = [q, r] names one of its systems (anomaly, planets
--                                    -- and adjacency come from its tile; adjacent adds links)
--   units = { xxcha = { carrier = 1 } }; damaged = { xxcha = { dreadnought = 1 } }
--   planets = [{ name = "wellon", owner = "xxcha", resources = 1, influence = 2, exhausted = false, trait = "cultural",
--                units = { infantry = 1, naalu = { infantry = 2 } } }]   -- the owner's, or by player
--   galvanized = { naalu = { cruiser = 1 } }   -- units that carry a galvanize token (Thunder's Edge):
--                                    -- in a system by player; in a planet entry as its units
--   units = { sol = "starting" }     -- a player's faction's starting units: in a system its ships,
--                                    -- on a planet its ground forces and structures
--   trade_goods = 1                  -- [[players]]: trade goods to spend on production
--   commodities = 2                  -- [[players]]: commodities (Salvage takes them)
--   commit = { wellon = { infantry = 2 } }   -- [[players]]: the ground forces landed on each planet
--   fleet_pool_tokens = ["naalu"]    -- [[players]]: other players' command tokens in this fleet pool
--   stored_ships = { cruiser = 2 }   -- [[players]]: ships a card holds off the board (the Crimson
--                                    -- Rebellion hero's; setup.lua's store_ships)
--   planets = [{ ..., tokens = { ul = ["sleeper"] } }]   -- a player's tokens on a planet ([token.*] records)
--   production = [{ unit = "carrier", count = 1 }, { unit = "infantry" }]   -- no count: as many as possible
--   command_tokens = ["naalu"]
--   breach = "active"                -- or "inactive": the system's breach token (Thunder's Edge; lib.breach)
--   void_tether = ["quann"]          -- Void Tether tokens on the borders it shares with those systems
--                                    -- (Thunder's Edge; galaxy.place_void_tether), at most 2
--
-- Roles: active_player and attacker are the active player; defender is the other player with
-- ships in the active system (else the next player in turn order), so the space combat of step 3
-- and the report read the same roles as a plain space combat.

local TOP_KEYS = { ruleset = true, procedure = true, packs = true, description = true, name = true,
  players = true, systems = true, active_player = true, activate = true, attacker = true, defender = true,
  map = true, piece_limits = true, rounds = true }
-- [attacker] and [defender] (what compare/simulate --with attacker:CARD and attacker:policy.x=v
-- write): added to the active player's and the defender's own lists and policy
local OVERLAY_KEYS = { technologies = true, cards = true, laws = true, relics = true, leaders = true, notes = true,
  versions = true, faction = true, policy = true }
local PLAYER_KEYS = { name = true, faction = true, technologies = true, cards = true, laws = true, relics = true,
  leaders = true, notes = true, tokens = true, policy = true, moves = true, trade_goods = true, commodities = true, commit = true, production = true,
  fleet_pool_tokens = true }
PLAYER_KEYS.relic_fragments = true  -- the relic fragments the player holds (counter relic_fragments)
PLAYER_KEYS.assimilator_tokens = true  -- the player's technologies that carry an assimilator token
PLAYER_KEYS.versions = true  -- versions = ["naalu_mech", "war_funding"]: units and cards in another version (setup.lua)
PLAYER_KEYS.counters = true  -- counters = { name = N }: counters on the player that cards read (scope game)
PLAYER_KEYS.stored_ships = true  -- stored_ships = { cruiser = 2 }: ships a card holds off the board (setup.lua)
local SYSTEM_KEYS = { id = true, anomaly = true, adjacent = true, units = true, damaged = true, galvanized = true,
  planets = true, command_tokens = true, tile = true, hex = true, wormhole = true, breach = true, void_tether = true }
-- a system's wormholes: the attributes a tile gives them in (tiles.toml), and their types
local WORMHOLE_ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }
local WORMHOLES = { alpha = true, beta = true, gamma = true, delta = true, epsilon = true }  -- epsilon: Thunder's Edge
local PLANET_KEYS = { name = true, owner = true, units = true, resources = true, influence = true, exhausted = true, tokens = true, trait = true,
  galvanized = true }
local TRAITS = { cultural = true, hazardous = true, industrial = true }
local PRODUCE_KEYS = { unit = true, count = true }
local MOVE_KEYS = { unit = true, from = true, path = true, carry = true }
local TOKEN_KEYS = { reinforcements = "reinforcement_tokens", tactic = "tactic_tokens",
  fleet = "fleet_tokens", strategy = "strategy_tokens" }
local TOKEN_DEFAULTS = { reinforcements = 8, tactic = 3, fleet = 3, strategy = 2 }
local RESERVED = { attacker = true, defender = true, active_player = true, active_system = true,
  moving_ship = true, bombarding_unit = true, invaded_planet = true }

local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua
local lib = require "lib"  -- scripts/ti4/lib.lua

local function list_of(ctx, t, path)
  if t == nil then return {} end
  if type(t) ~= "table" then ctx:reject(path, path .. " must be an array") end
  for k in pairs(t) do
    if math.type(k) ~= "integer" then ctx:reject(path, path .. " must be an array, not a table") end
  end
  return t
end

local function name_of(ctx, v, path, what)
  if type(v) ~= "string" or v == "" then ctx:reject(path, path .. " must be " .. what) end
  return v
end

return function(ctx, scenario, h)
  local check_keys, place_units, record_or_reject = h.check_keys, h.place_units, h.record_or_reject
  check_keys(ctx, scenario, TOP_KEYS, "scenario")
  -- the galaxy of `map` (its [[systems]] entries are of this file's format, not galaxy.lua's)
  local map = scenario.map ~= nil and galaxy.build(ctx, { map = scenario.map }) or nil

  -- players, in turn order
  local players, order, specs = {}, {}, {}
  for i, spec in ipairs(list_of(ctx, scenario.players, "players")) do
    local path = "players." .. i
    check_keys(ctx, spec, PLAYER_KEYS, path)
    local name = name_of(ctx, spec.name, path .. ".name", "a player's name")
    if RESERVED[name] then ctx:reject(path .. ".name", "'" .. name .. "' is a role; name the player otherwise") end
    if players[name] then ctx:reject(path .. ".name", "two players are named '" .. name .. "'") end
    local p = ctx:create { kind = "player", name = name }
    players[name], order[#order + 1], specs[p] = p, p, { spec = spec, path = path }
    ctx:set_role(name, p)
  end
  if #order == 0 then ctx:reject("players", "a tactical action needs [[players]] (one or more)") end
  local function player_named(v, path)
    name_of(ctx, v, path, "a player's name")
    if not players[v] then
      local names = {}
      for n in pairs(players) do names[#names + 1] = n end
      table.sort(names)
      ctx:reject(path, "no player named '" .. v .. "'; players: " .. table.concat(names, ", "))
    end
    return players[v]
  end
  -- units = { sol = "starting" }: the player's faction's starting units (its faction record's
  -- starting_units) that belong there: in a system's space area its ships, on a planet its ground
  -- forces and structures
  local function starting_units(who, on_planet, path)
    local spec = specs[players[who]] and specs[players[who]].spec
    if not (spec and spec.faction) then
      ctx:reject(path, "\"starting\" places the faction's starting units: give the player " .. who .. " a faction")
    end
    local faction = record_or_reject(ctx, "faction", spec.faction, specs[players[who]].path .. ".faction")
    local out, any = {}, false
    for name, n in pairs(faction.starting_units or {}) do  -- (a read-only view: pairs, not next)
      any = true
      local u = ctx:record(name, "unit")
      if (on_planet and (u.ground_force or u.structure)) or (not on_planet and u.ship) then out[name] = n end
    end
    if not any then ctx:reject(path, spec.faction .. " has no starting_units in its faction record") end
    return out
  end
  local function units_of(v, who, on_planet, path)
    if type(v) == "string" then
      if v ~= "starting" then ctx:reject(path, "a player's units are a table ({ carrier = 1 }) or \"starting\" (the faction sheet's starting units), not '" .. v .. "'") end
      player_named(who, path)
      return starting_units(who, on_planet, path)
    end
    return v
  end

  -- systems first (adjacency may name a later one), then their contents. The map's systems (if
  -- any) exist already: a [[systems]] entry that names one adds to it instead of creating one.
  local systems, from_map, sys_specs = {}, {}, list_of(ctx, scenario.systems, "systems")
  for _, e in ipairs(map and map.systems or {}) do
    local id = ctx:name(e)
    systems[id], from_map[id] = e, true
  end
  -- a system id, or (with a map) a tile number of the map -> the system's id
  local function system_id(v, path)
    if math.type(v) == "integer" then
      if not map then ctx:reject(path, "a tile number names a system only when the scenario has a map") end
      local e = map.by_tile[v]
      if not e then ctx:reject(path, "tile " .. v .. " is not on the map") end
      return ctx:name(e)
    end
    return name_of(ctx, v, path, "a system id" .. (map and " or a tile number" or ""))
  end
  local function system_named(v, path)
    local id = system_id(v, path)
    if not systems[id] then
      ctx:reject(path, "no system with the id '" .. id .. "'" .. (map and " on the map or" or "") .. " in [[systems]]")
    end
    return systems[id]
  end
  local listed, spec_sys = {}, {}
  for i, spec in ipairs(sys_specs) do
    local path = "systems." .. i
    check_keys(ctx, spec, SYSTEM_KEYS, path)
    local named = (spec.id ~= nil and 1 or 0) + (spec.tile ~= nil and 1 or 0) + (spec.hex ~= nil and 1 or 0)
    if named ~= 1 then
      ctx:reject(spec.tile ~= nil and path .. ".tile" or spec.hex ~= nil and path .. ".hex" or path,
        path .. " names its system by exactly one of id" .. (map and ", tile or hex" or ""))
    end
    local id
    if spec.id ~= nil then
      id = name_of(ctx, spec.id, path .. ".id", "a system id")
    elseif not map then
      ctx:reject(path .. (spec.tile ~= nil and ".tile" or ".hex"), "tile and hex name a system of the scenario's map; this scenario has no map")
    elseif spec.tile ~= nil then
      id = system_id(spec.tile, path .. ".tile")
    else
      local hx = spec.hex
      if type(hx) ~= "table" or #hx ~= 2 or math.type(hx[1]) ~= "integer" or math.type(hx[2]) ~= "integer" then
        ctx:reject(path .. ".hex", "hex is [q, r], two whole numbers (axial coordinates)")
      end
      local e = ctx:at_hex { hx[1], hx[2] }
      if not e then ctx:reject(path .. ".hex", "no system of the map at hex [" .. hx[1] .. ", " .. hx[2] .. "]") end
      id = ctx:name(e)
    end
    if listed[id] then
      ctx:reject(path .. (spec.id ~= nil and ".id" or spec.tile ~= nil and ".tile" or ".hex"),
        "two [[systems]] entries name the system '" .. id .. "'")
    end
    listed[id], spec_sys[i] = true, id
    if not from_map[id] then systems[id] = ctx:create { kind = "system", name = id } end
    if spec.anomaly then
      if from_map[id] then ctx:reject(path .. ".anomaly", "a map system's anomaly comes from its tile") end
      if not h.ANOMALIES[spec.anomaly] then ctx:reject(path .. ".anomaly", "anomaly must be one of: " .. h.keys_of(h.ANOMALIES)) end
      ctx:set(systems[id], "anomaly", spec.anomaly)
    end
    if spec.wormhole ~= nil then
      if from_map[id] then ctx:reject(path .. ".wormhole", "a map system's wormholes come from its tile") end
      local list = type(spec.wormhole) == "table" and list_of(ctx, spec.wormhole, path .. ".wormhole") or { spec.wormhole }
      if #list == 0 or #list > #WORMHOLE_ATTRS then
        ctx:reject(path .. ".wormhole", "wormhole is a wormhole type or a list of 1 to " .. #WORMHOLE_ATTRS .. " of them")
      end
      for j, w in ipairs(list) do
        if not WORMHOLES[w] then
          ctx:reject(path .. ".wormhole", "wormhole must be one of: " .. h.keys_of(WORMHOLES) .. " (or a list of them), not " .. tostring(w))
        end
        for k = 1, j - 1 do
          if list[k] == w then ctx:reject(path .. ".wormhole", "the wormhole " .. w .. " is listed twice") end
        end
        ctx:set(systems[id], WORMHOLE_ATTRS[j], w)
      end
    end
  end
  -- Systems with the same wormhole count as adjacent for everything: each
  -- system given a wormhole here is linked (kind "wormhole", as a map's are: galaxy.lua) to every
  -- other system with one of the same type, the map's included
  local all_systems = ctx:entities { kind = "system" }
  for i, spec in ipairs(sys_specs) do
    if spec.wormhole ~= nil then
      local sys = systems[spec_sys[i]]
      for _, other in ipairs(all_systems) do
        if other ~= sys and not ctx:linked(sys, other, "wormhole") then
          local same = false
          for _, a in ipairs(WORMHOLE_ATTRS) do
            local w = ctx:get(sys, a)
            for _, b in ipairs(WORMHOLE_ATTRS) do
              if w and ctx:get(other, b) == w then same = true end
            end
          end
          if same then ctx:link(sys, other, "wormhole") end
        end
      end
    end
  end
  for i, spec in ipairs(sys_specs) do
    local path, sys = "systems." .. i, systems[spec_sys[i]]
    for j, other in ipairs(list_of(ctx, spec.adjacent, path .. ".adjacent")) do
      local o = system_named(other, path .. ".adjacent." .. j)
      if o == sys then ctx:reject(path .. ".adjacent." .. j, "a system is not adjacent to itself") end
      if not ctx:linked(sys, o, "adjacent") then ctx:link(sys, o, "adjacent") end
    end
    if spec.units ~= nil then
      check_keys(ctx, spec.units, setmetatable({}, { __index = function() return true end }), path .. ".units")
      local names = {}
      for who in pairs(spec.units) do names[#names + 1] = who end
      table.sort(names)
      for _, who in ipairs(names) do
        local at = path .. ".units." .. who
        place_units(ctx, units_of(spec.units[who], who, false, at), player_named(who, at), sys, at)
      end
    end
    for j, p in ipairs(list_of(ctx, spec.planets, path .. ".planets")) do
      local ppath = path .. ".planets." .. j
      check_keys(ctx, p, PLANET_KEYS, ppath)
      local owner = p.owner and player_named(p.owner, ppath .. ".owner")
      local planet
      if from_map[spec_sys[i]] then
        -- a map system's planets come from its tile: the entry names one to give it an owner and units
        local names = {}
        for _, e in ipairs(ctx:entities { kind = "planet", location = sys }) do
          names[#names + 1] = ctx:type(e)
          if ctx:type(e) == p.name then planet = e end
        end
        if not planet then
          ctx:reject(ppath .. ".name", "system " .. spec_sys[i] .. " has no planet '" .. tostring(p.name) .. "'; its planets: "
            .. (#names > 0 and table.concat(names, ", ") or "none"))
        end
        if p.resources ~= nil then ctx:reject(ppath .. ".resources", "a map planet's resources come from its tile") end
        if owner then ctx:set_owner(planet, owner) end
      else
        planet = ctx:create { kind = "planet", name = p.name or ("planet_" .. j), owner = owner, location = sys }
      end
      if p.resources ~= nil then
        if math.type(p.resources) ~= "integer" or p.resources < 0 then ctx:reject(ppath .. ".resources", "resources is a whole number") end
        ctx:set(planet, "resources", p.resources)
      end
      if p.influence ~= nil then  -- what influence costs spend (lib.spend_influence)
        if from_map[spec_sys[i]] then ctx:reject(ppath .. ".influence", "a map planet's influence comes from its tile") end
        if math.type(p.influence) ~= "integer" or p.influence < 0 then ctx:reject(ppath .. ".influence", "influence is a whole number") end
        ctx:set(planet, "influence", p.influence)
      end
      if p.trait ~= nil then
        if from_map[spec_sys[i]] then ctx:reject(ppath .. ".trait", "a map planet's trait comes from its tile") end
        if not TRAITS[p.trait] then ctx:reject(ppath .. ".trait", "trait must be one of: " .. h.keys_of(TRAITS)) end
        ctx:set(planet, "trait", p.trait)
      end
      if p.exhausted ~= nil then
        if type(p.exhausted) ~= "boolean" then ctx:reject(ppath .. ".exhausted", "exhausted is true or false") end
        if p.exhausted then ctx:set_flag(planet, "exhausted", "game") end
      end
      -- tokens = { ul = ["sleeper"] }: a player's tokens on the planet ([token.*] records: a sleeper)
      if p.tokens ~= nil then
        check_keys(ctx, p.tokens, setmetatable({}, { __index = function() return true end }), ppath .. ".tokens")
        local names = {}
        for who in pairs(p.tokens) do names[#names + 1] = who end
        table.sort(names)
        for _, who in ipairs(names) do
          local q = player_named(who, ppath .. ".tokens." .. who)
          for k, t in ipairs(list_of(ctx, p.tokens[who], ppath .. ".tokens." .. who)) do
            record_or_reject(ctx, "token", t, ppath .. ".tokens." .. who .. "." .. k)
            ctx:create { kind = "token", type = t, owner = q, location = planet }
          end
        end
      end
      if p.units then
        -- unit counts are the owner's; a table under a player's name holds that player's units
        check_keys(ctx, p.units, setmetatable({}, { __index = function() return true end }), ppath .. ".units")
        local own, names = {}, {}
        for k, v in pairs(p.units) do
          if type(v) == "table" or v == "starting" then names[#names + 1] = k else own[k] = v end
        end
        table.sort(names)
        if next(own) then
          if not owner then ctx:reject(ppath .. ".units", "unit counts on a planet belong to its owner: give the planet an owner, or list them under a player's name") end
          place_units(ctx, own, owner, planet, ppath .. ".units")
        end
        for _, who in ipairs(names) do
          local at = ppath .. ".units." .. who
          place_units(ctx, units_of(p.units[who], who, true, at), player_named(who, at), planet, at)
        end
      end
      -- galvanized = { infantry = 1, naalu = { mech = 1 } }: units on the planet with a galvanize
      -- token (the owner's, or by player, as units)
      if p.galvanized ~= nil then
        local gpath = ppath .. ".galvanized"
        check_keys(ctx, p.galvanized, setmetatable({}, { __index = function() return true end }), gpath)
        local own, names = {}, {}
        for k, v in pairs(p.galvanized) do
          if type(v) == "table" then names[#names + 1] = k else own[k] = v end
        end
        table.sort(names)
        if next(own) then
          if not owner then ctx:reject(gpath, "galvanized counts on a planet belong to its owner: give the planet an owner, or list them under a player's name") end
          h.galvanize_units(ctx, owner, planet, own, gpath, "on the planet")
        end
        for _, who in ipairs(names) do
          h.galvanize_units(ctx, player_named(who, gpath .. "." .. who), planet, p.galvanized[who], gpath .. "." .. who, "on the planet")
        end
      end
    end
    h.place_breach(ctx, sys, spec.breach, path .. ".breach")
    for j, who in ipairs(list_of(ctx, spec.command_tokens, path .. ".command_tokens")) do
      ctx:create { kind = "command_token", owner = player_named(who, path .. ".command_tokens." .. j), location = sys }
    end
    if spec.damaged ~= nil then
      check_keys(ctx, spec.damaged, setmetatable({}, { __index = function() return true end }), path .. ".damaged")
      for who, types in pairs(spec.damaged) do
        local p = player_named(who, path .. ".damaged." .. who)
        for t, n in pairs(types) do
          local left = n
          for _, u in ipairs(ctx:units(p, sys, "type:" .. t)) do
            if left > 0 and ctx:get(u, "sustain_damage") then ctx:set(u, "damaged", true); left = left - 1 end
          end
          if left > 0 then ctx:reject(path .. ".damaged." .. who .. "." .. t, "more damaged " .. t .. " than units that can sustain damage there") end
        end
      end
    end
    -- galvanized = { who = { cruiser = 1 } }: units in the space area with a galvanize token
    if spec.galvanized ~= nil then
      check_keys(ctx, spec.galvanized, setmetatable({}, { __index = function() return true end }), path .. ".galvanized")
      local names = {}
      for who in pairs(spec.galvanized) do names[#names + 1] = who end
      table.sort(names)
      for _, who in ipairs(names) do
        local at = path .. ".galvanized." .. who
        h.galvanize_units(ctx, player_named(who, at), sys, spec.galvanized[who], at, "in the space area")
      end
    end
  end
  -- void_tether = ["quann"]: Void Tether tokens on the borders this system shares with those
  -- (galaxy.place_void_tether), once every system and link is made. A border is shared by hex
  -- neighbours or systems a scenario's `adjacent` links (not wormholes, hyperlanes or breaches);
  -- the Empyrean has 2 tokens.
  local tethers, tethered = 0, {}
  for i, spec in ipairs(sys_specs) do
    local path, sys = "systems." .. i, systems[spec_sys[i]]
    for j, other in ipairs(list_of(ctx, spec.void_tether, path .. ".void_tether")) do
      local at = path .. ".void_tether." .. j
      local o = system_named(other, at)
      if o == sys then ctx:reject(at, "a Void Tether token goes on a border between two systems, not from " .. spec_sys[i] .. " to itself") end
      local border = false
      for _, k in ipairs(ctx:link_kinds(sys, o)) do
        if k == "hex" or k == "adjacent" then border = true end
      end
      if not border then
        ctx:reject(at, spec_sys[i] .. " and " .. tostring(other) .. " share no border (neighbouring hexes, or `adjacent`): a Void Tether token goes on a border"
          .. (#ctx:link_kinds(sys, o) > 0 and " (they are adjacent only through " .. table.concat(ctx:link_kinds(sys, o), ", ") .. ")" or ""))
      end
      local key = math.min(sys, o) .. ":" .. math.max(sys, o)
      if tethered[key] then ctx:reject(at, "the border between " .. spec_sys[i] .. " and " .. tostring(other) .. " already holds a Void Tether token (" .. tethered[key] .. ")") end
      tethered[key] = at
      tethers = tethers + 1
      if tethers > 2 then ctx:reject(at, "a third Void Tether token: the Empyrean has 2") end
      galaxy.place_void_tether(ctx, sys, o)
    end
  end

  -- 1. Activation: what the rules forbid is an error at its line
  local active = player_named(scenario.active_player, "active_player")
  local sys = system_named(scenario.activate, "activate")
  if #ctx:entities { kind = "command_token", owner = active, location = sys } > 0 then
    ctx:reject("activate", "a player cannot activate a system that already contains one of his command tokens ("
      .. scenario.activate .. " holds one of " .. scenario.active_player .. "'s)")
  end
  local tactic = (specs[active].spec.tokens or {}).tactic or TOKEN_DEFAULTS.tactic
  if math.type(tactic) == "integer" and tactic <= 0 then
    ctx:reject(specs[active].path .. ".tokens.tactic", "a player cannot activate a system with no command tokens in his tactic pool ("
      .. scenario.active_player .. " has none)")
  end
  ctx:set_role("active_player", active)
  ctx:set_role("attacker", active)
  ctx:set_role("active_system", sys)
  -- the report names the planets whose control it counts (invasion.report: the first three)
  for i, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if i <= 3 then
      ctx:label("planet_" .. i .. "_controlled", ctx:name(planet))
      ctx:label("planet_" .. i .. "_controlled_and_won", ctx:name(planet))
    end
  end
  -- the defender: a player other than the active one with ships in the active system
  local defender
  for _, p in ipairs(order) do
    if p ~= active and ctx:count(p, sys, "ship") > 0 then
      if defender then
        ctx:reject("activate", "two players other than the active player have ships in " .. scenario.activate
          .. "; a space combat has two sides")
      end
      defender = p
    end
  end
  if not defender then
    for _, p in ipairs(order) do if p ~= active then defender = p; break end end
  end
  if defender then ctx:set_role("defender", defender) end
  -- compare/simulate overlays: lists appended, policy keys set over the player's
  for _, rp in ipairs { { "attacker", active }, { "defender", defender } } do
    local role, p = rp[1], rp[2]
    local over = scenario[role]
    if over ~= nil then
      check_keys(ctx, over, OVERLAY_KEYS, role)
      if not p then ctx:reject(role, "[" .. role .. "]: this scenario has no " .. role) end
      local spec, merged = specs[p].spec, {}
      for k, v in pairs(spec) do merged[k] = v end
      if over.faction ~= nil then merged.faction = over.faction end
      -- versions = "naalu_mech" (compare --with attacker:versions=naalu_mech) is one record
      local function items(v) return (type(v) == "string" and { v }) or v end
      for _, list in ipairs { "technologies", "cards", "laws", "relics", "leaders", "notes", "versions" } do
        if over[list] ~= nil then
          local all = {}
          for _, x in ipairs(list_of(ctx, items(spec[list]), specs[p].path .. "." .. list)) do all[#all + 1] = x end
          for _, x in ipairs(list_of(ctx, items(over[list]), role .. "." .. list)) do all[#all + 1] = x end
          merged[list] = all
        end
      end
      if over.policy ~= nil then
        local pol = {}
        for k, v in pairs(spec.policy or {}) do pol[k] = v end
        for k, v in pairs(over.policy) do pol[k] = v end
        merged.policy = pol
      end
      specs[p].spec = merged
    end
  end

  -- each player's records, tokens and policy
  for _, p in ipairs(order) do
    local spec, path = specs[p].spec, specs[p].path
    h.grant_records(ctx, p, spec, path, function(v, at) return list_of(ctx, v, at) end)
    h.store_ships(ctx, p, spec.stored_ships, path .. ".stored_ships")
    h.place_fleet_pool_tokens(ctx, p, spec.fleet_pool_tokens ~= nil and list_of(ctx, spec.fleet_pool_tokens, path .. ".fleet_pool_tokens") or nil,
      players, path .. ".fleet_pool_tokens")
    local tokens = spec.tokens or {}
    check_keys(ctx, tokens, TOKEN_KEYS, path .. ".tokens")
    for key, attr in pairs(TOKEN_KEYS) do
      local n = tokens[key] or TOKEN_DEFAULTS[key]
      if math.type(n) ~= "integer" or n < 0 then ctx:reject(path .. ".tokens." .. key, "command token counts are whole numbers") end
      ctx:set(p, attr, n)
    end
    local policy = h.side_policy(ctx, spec, path)
    -- scripted moves: checked here for names, for the ship they move (one move per ship: the n-th
    -- move of a type from a system goes to the n-th such ship there) and for a start system that
    -- holds the player's command token; whether a path is legal is checked when it is taken
    local moves, per_ship = {}, {}
    for i, m in ipairs(list_of(ctx, spec.moves, path .. ".moves")) do
      local mpath = path .. ".moves." .. i
      check_keys(ctx, m, MOVE_KEYS, mpath)
      record_or_reject(ctx, "unit", name_of(ctx, m.unit, mpath .. ".unit", "a unit type"), mpath .. ".unit")
      local steps = list_of(ctx, m.path, mpath .. ".path")
      if #steps < 2 then ctx:reject(mpath .. ".path", "a move's path lists its systems, from the start to the active system") end
      local ids = {}
      for j, s in ipairs(steps) do system_named(s, mpath .. ".path." .. j); ids[j] = system_id(s, mpath .. ".path." .. j) end
      if m.from ~= nil and system_named(m.from, mpath .. ".from") and ids[1] ~= system_id(m.from, mpath .. ".from") then
        ctx:reject(mpath .. ".path", "a path starts at its 'from' system")
      end
      local what = "scripted move " .. i .. " (" .. m.unit .. " from " .. ids[1] .. "): "
      if p ~= active then
        ctx:reject(mpath, what .. "only the active player (" .. scenario.active_player .. ") moves ships in a tactical action")
      end
      local from, key = systems[ids[1]], m.unit .. ">" .. ids[1]
      local have = ctx:count(p, from, "type:" .. m.unit)
      per_ship[key] = (per_ship[key] or 0) + 1
      if have == 0 then
        ctx:reject(mpath .. ".unit", what .. ctx:name(p) .. " has no " .. m.unit .. " in the space area of " .. ids[1])
      elseif per_ship[key] > have then
        ctx:reject(mpath, what .. "a ship moves once: this is move " .. per_ship[key] .. " for the " .. have .. " "
          .. m.unit .. " in " .. ids[1])
      end
      if from ~= sys and #ctx:entities { kind = "command_token", owner = p, location = from } > 0 then
        ctx:reject(mpath .. ".path.1", what .. "a player cannot move units out of a system that contains one of his command tokens ("
          .. ids[1] .. " holds one of " .. ctx:name(p) .. "'s)")
      end
      if m.carry ~= nil then
        check_keys(ctx, m.carry, setmetatable({}, { __index = function() return true end }), mpath .. ".carry")
        for t, n in pairs(m.carry) do
          record_or_reject(ctx, "unit", t, mpath .. ".carry." .. t)
          if math.type(n) ~= "integer" or n < 0 then ctx:reject(mpath .. ".carry." .. t, "carry counts are whole numbers") end
        end
      end
      moves[i] = { unit = m.unit, from = ids[1], path = table.concat(ids, ">"), carry = m.carry or {}, at = mpath }
    end
    if spec.moves ~= nil then policy.moves = moves end
    if spec.trade_goods ~= nil then
      if math.type(spec.trade_goods) ~= "integer" or spec.trade_goods < 0 then
        ctx:reject(path .. ".trade_goods", "trade_goods is a whole number")
      end
      ctx:set_counter(p, "trade_goods", spec.trade_goods, "game")
    end
    if spec.relic_fragments ~= nil then
      if math.type(spec.relic_fragments) ~= "integer" or spec.relic_fragments < 0 then
        ctx:reject(path .. ".relic_fragments", "relic_fragments is a whole number")
      end
      ctx:set_counter(p, "relic_fragments", spec.relic_fragments, "game")
    end
    for name, n in pairs(spec.counters or {}) do
      if math.type(n) ~= "integer" or n < 0 then ctx:reject(path .. ".counters." .. name, "a counter is a whole number") end
      ctx:set_counter(p, name, n, "game")
    end
    h.place_assimilator_tokens(ctx, p, spec.assimilator_tokens ~= nil and list_of(ctx, spec.assimilator_tokens, path .. ".assimilator_tokens") or nil,
      path .. ".assimilator_tokens")
    if spec.commodities ~= nil then  -- what Salvage takes
      if math.type(spec.commodities) ~= "integer" or spec.commodities < 0 then
        ctx:reject(path .. ".commodities", "commodities is a whole number")
      end
      ctx:set_counter(p, "commodities", spec.commodities, "game")
    end
    -- commit = { planet = { infantry = 2 } }: the ground forces the player lands on each planet
    -- of the active system (only the active player commits); commit = "all": every ground force
    -- to the one planet the default policy invades
    if spec.commit ~= nil and p ~= active then
      ctx:reject(path .. ".commit", "only the active player (" .. scenario.active_player .. ") commits ground forces in a tactical action")
    end
    if spec.commit == "all" then
      policy.commit_all = true
    elseif type(spec.commit) == "string" then
      ctx:reject(path .. ".commit", "commit is \"all\" or a table of planets: commit = { vefut = { infantry = 2 } }")
    elseif spec.commit ~= nil then
      check_keys(ctx, spec.commit, setmetatable({}, { __index = function() return true end }), path .. ".commit")
      local here = {}
      for _, e in ipairs(ctx:entities { kind = "planet", location = sys }) do here[#here + 1] = ctx:name(e) end
      local commit, total = {}, {}
      for planet, types in pairs(spec.commit) do
        local known = false
        for _, n in ipairs(here) do if n == planet then known = true end end
        if not known then
          ctx:reject(path .. ".commit." .. planet, "commit lands on '" .. planet .. "', not a planet of the active system "
            .. ctx:name(sys) .. "; its planets: " .. (#here > 0 and table.concat(here, ", ") or "none"))
        end
        check_keys(ctx, types, setmetatable({}, { __index = function() return true end }), path .. ".commit." .. planet)
        commit[planet] = {}
        for t, n in pairs(types) do
          record_or_reject(ctx, "unit", t, path .. ".commit." .. planet .. "." .. t)
          if math.type(n) ~= "integer" or n < 0 then ctx:reject(path .. ".commit." .. planet .. "." .. t, "commit counts are whole numbers") end
          commit[planet][t] = n
          total[t] = (total[t] or 0) + n
          -- what can never be met is a mistake; fewer units at the invasion (losses) is not
          local have = ctx:count(p, nil, "type:" .. t)
          if total[t] > have then
            ctx:reject(path .. ".commit." .. planet .. "." .. t, "commit lands " .. total[t] .. " " .. t .. " in all, but "
              .. ctx:name(p) .. " has only " .. have .. " " .. t .. " on the board")
          end
        end
      end
      policy.commit = commit
    end
    -- production = [{ unit = "carrier", count = 1 }, { unit = "infantry" }]: what to produce, in
    -- order; no count: as many as the resources and the production limit allow
    if spec.production ~= nil then
      local plan = {}
      for i, e in ipairs(list_of(ctx, spec.production, path .. ".production")) do
        local epath = path .. ".production." .. i
        check_keys(ctx, e, PRODUCE_KEYS, epath)
        local rec = record_or_reject(ctx, "unit", name_of(ctx, e.unit, epath .. ".unit", "a unit type"), epath .. ".unit")
        if (rec.cost or 0) <= 0 then ctx:reject(epath .. ".unit", e.unit .. " has no cost: it cannot be produced") end
        if e.count ~= nil and (math.type(e.count) ~= "integer" or e.count < 0) then ctx:reject(epath .. ".count", "count is a whole number of units") end
        plan[i] = { unit = e.unit, count = e.count or -1 }
      end
      policy.production = plan
    end
    ctx:set_policy(p, policy)
  end

  -- unit upgrade technologies: every unit of the type takes the upgraded record
  for _, p in ipairs(order) do
    for _, tech in ipairs(specs[p].spec.technologies or {}) do
      local rec = ctx:record(tech, "technology")
      if rec.upgrades then
        local to = lib.chosen_version(ctx, p, rec.upgrade_to)
        for _, u in ipairs(ctx:entities { kind = "unit", owner = p, type = rec.upgrades }) do lib.upgrade(ctx, u, to) end
      end
    end
  end

end
