-- Builds a TI4 space combat state from a scenario file (see content/ti4-base/scenarios/).
-- Every key is checked: an unknown one is rejected with its line in the scenario.
-- A scenario may give a galaxy (galaxy.lua): `map = "22 44 19 ..."` (a map string), `map =
-- "learn_to_play_6p"` (a named map) or `systems = [{ tile = 26, hex = [q, r] }, ...]`; then
-- [system] names the active system among them by `tile` or `hex`, and its `planets` name the
-- tile's planets (by record name) to give them an owner and units.

local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua
local lib = require "lib"  -- scripts/ti4/lib.lua

-- (infantry and mechs: for when ground forces take part in a space combat as ships, The Alastor)
local DEFAULT_HIT_ORDER = { "fighter", "infantry", "destroyer", "cruiser", "mech", "carrier", "dreadnought", "flagship", "war_sun" }
local DEFAULT_TRANSPORT_ORDER = { "mech", "infantry", "fighter" }

local SIDE_KEYS = { units = true, damaged = true, technologies = true, cards = true, laws = true, relics = true,
  faction = true, leaders = true, notes = true, tokens = true, trade_goods = true, commodities = true, policy = true,
  fleet_pool_tokens = true }
-- relic_fragments = N: the relic fragments a player holds (counter on the player; the Naalu mech)
SIDE_KEYS.relic_fragments = true
-- assimilator_tokens = ["l4_disruptors"]: this side's technologies that carry another player's
-- assimilator token (Valefar Assimilator): flag assimilator_token on the technology
SIDE_KEYS.assimilator_tokens = true
-- galvanized = { cruiser = 1 }: this side's units that carry a galvanize token (Thunder's Edge)
SIDE_KEYS.galvanized = true
-- counters = { name = N }: counters on the player that cards read (scope game), e.g. the number of
-- non-home systems holding a planet the player controls
SIDE_KEYS.counters = true
-- stored_ships = { cruiser = 2 }: ships a card in the player's play area holds off the board
-- (Thunder's Edge: the Crimson Rebellion hero's); store_ships below
SIDE_KEYS.stored_ships = true
-- fleet = "starting": the ships of the side's faction's starting units (its faction record's
-- starting_units: the faction sheet), besides any `units`
SIDE_KEYS.fleet = true
-- versions = ["naalu_mech", "magen_defense_grid"]: faction units and cards this side plays in
-- another version than the default (the record's replaces names the default one, the current
-- official version: the Codex's Ω or the version it replaced; choose_versions)
SIDE_KEYS.versions = true
local POLICY_KEYS = { hit_order = true, sustain = true, retreat = true, retreat_to = true,
  retreat_ground_forces = true, transport_order = true, use = true }
local TOKEN_KEYS = { reinforcements = "reinforcement_tokens", tactic = "tactic_tokens",
  fleet = "fleet_tokens", strategy = "strategy_tokens" }
local TOP_KEYS = { ruleset = true, procedure = true, packs = true, attacker = true, defender = true,
  system = true, description = true, name = true, map = true, systems = true, piece_limits = true, rounds = true }
local SYSTEM_KEYS = { id = true, anomaly = true, planets = true, adjacent = true, command_tokens = true,
  tile = true, hex = true, breach = true }
local PLANET_KEYS = { name = true, owner = true, units = true }
local ANOMALIES = { asteroid_field = true, nebula = true, supernova = true, gravity_rift = true }
-- the most units of one type a scenario entry may place (the error message states it)
local MAX_UNITS = 1000
-- what `policy.use = { <ability> = ... }` may say for an optional ability
local USE_VALUES = { always = true, never = true, [true] = true, [false] = true }

local function keys_of(t)
  local names = {}
  for k in pairs(t) do names[#names + 1] = k end
  table.sort(names)
  return table.concat(names, ", ")
end

local function check_keys(ctx, t, allowed, path)
  if type(t) ~= "table" then ctx:reject(path, path .. " must be a table") end
  for k in pairs(t) do
    if not allowed[k] then
      -- a policy setting written at the side's level: say where it goes
      local hint = (allowed == SIDE_KEYS and POLICY_KEYS[k]) and (" (a policy setting: " .. path .. ".policy." .. k .. ")") or ""
      ctx:reject(path .. "." .. k, "unknown key '" .. k .. "' in " .. path .. "; expected one of: " .. keys_of(allowed) .. hint)
    end
  end
end

-- Edit distance of two short names (for "did you mean").
local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

local function record_or_reject(ctx, kind, name, path)
  if type(name) ~= "string" then ctx:reject(path, kind .. " names are strings, not " .. tostring(name)) end
  local rec = ctx:record(name, kind)
  if not rec then
    local known = ctx:records(kind)
    table.sort(known)
    local best, best_d = nil, math.huge
    for _, k in ipairs(known) do
      local d = distance(name, k)
      if d < best_d then best, best_d = k, d end
    end
    local hint = (best and best_d <= math.max(2, #name // 3)) and (" (did you mean '" .. best .. "'?)") or ""
    ctx:reject(path, "unknown " .. kind .. " '" .. name .. "'" .. hint .. "; known: " .. table.concat(known, ", "))
  end
  return rec
end

-- Placement limits on one planet (Rules Reference: PDS, Space Dock): at most 2 PDS and 1 space
-- dock of a player's on a planet.
local PLANET_LIMITS = { pds = 2, space_dock = 1 }

-- units = { cruiser = 2 } placed at `location` for `owner`; returns the created entities by type.
-- The pieces a player has are limited by the unit's `reinforcements` (its piece limit: a player
-- cannot have 6 dreadnoughts or 2 flagships on the board) and by PLANET_LIMITS on a planet.
-- galvanized = { cruiser = 1 }: `n` of `owner`'s units of each type at `location` carry a galvanize
-- token (Thunder's Edge; lib.galvanize); `where` names the place in the error ("there", "on the planet")
local function galvanize_units(ctx, owner, location, types, path, where)
  check_keys(ctx, types, setmetatable({}, { __index = function() return true end }), path)
  local names = {}
  for name in pairs(types) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local n = types[name]
    record_or_reject(ctx, "unit", name, path .. "." .. name)
    if math.type(n) ~= "integer" or n < 0 then
      ctx:reject(path .. "." .. name, "galvanized counts are whole numbers, not " .. tostring(n))
    end
    local left = n
    for _, u in ipairs(ctx:units(owner, location, "type:" .. name)) do
      if left > 0 and lib.galvanize(ctx, u) then left = left - 1 end
    end
    if left > 0 then ctx:reject(path .. "." .. name, "more galvanized " .. name .. " than units " .. where) end
  end
end

-- stored_ships = { cruiser = 2 }: ships a card in the player's play area holds off the board
-- (Thunder's Edge: the Crimson Rebellion hero, Homesick Phantom, keeps ships it produced there).
-- Each type one of the player's ship types (their faction's record or upgrade), each count a whole
-- number: the player's counters `stored_ships:<type>` (scope game, so the state holds them); the
-- card's hook brings them onto the board. After the side's records are granted.
local function store_ships(ctx, p, t, path)
  if t == nil then return end
  if type(t) ~= "table" then ctx:reject(path, "stored_ships is a table of ship types and counts: stored_ships = { cruiser = 2 }") end
  local records = lib.unit_records(ctx, p)
  for name, n in pairs(t) do
    local rec = ctx:record(records[name] or name, "unit")
    if type(name) ~= "string" or not (rec and rec.ship) then
      ctx:reject(path .. "." .. tostring(name), "stored_ships names ship types (cruiser, destroyer, ...), not " .. tostring(name))
    end
    if math.type(n) ~= "integer" or n < 0 or n > MAX_UNITS then
      ctx:reject(path .. "." .. name, "stored ship counts are whole numbers from 0 to " .. MAX_UNITS .. ", not " .. tostring(n))
    end
    ctx:set_counter(p, "stored_ships:" .. name, n, "game")
  end
end

-- breach = "active" | "inactive": the system's breach token (Thunder's Edge; lib.breach)
local function place_breach(ctx, system, v, path)
  if v == nil then return end
  if not lib.BREACH[v] then
    ctx:reject(path, "breach is \"active\" or \"inactive\" (a system's breach token), not " .. tostring(v))
  end
  lib.set_breach(ctx, system, v)
end

local function place_units(ctx, units, owner, location, path)
  check_keys(ctx, units, setmetatable({}, { __index = function() return true end }), path)
  local names = {}
  for name in pairs(units) do names[#names + 1] = name end
  table.sort(names)  -- deterministic entity order
  for _, name in ipairs(names) do
    local n = units[name]
    if math.type(n) ~= "integer" or n < 0 or n > MAX_UNITS then
      ctx:reject(path .. "." .. name, "unit counts are whole numbers from 0 to " .. MAX_UNITS .. ", not " .. tostring(n))
    end
    local rec = record_or_reject(ctx, "unit", name, path .. "." .. name)
    local default = rec.replaces and lib.version_of(ctx, rec)
    if default then  -- another version: placed by the generic type, chosen by versions
      local g = default.replaces or rec.replaces  -- a faction unit's generic type, or the upgrade's record
      ctx:reject(path .. "." .. name, name .. " is a version of " .. rec.faction .. "'s " .. g .. ": write "
        .. (default.replaces or "the unit type " .. rec.replaces .. " upgrades, its technology")
        .. " and give the side faction = \"" .. rec.faction .. "\" and versions = [\"" .. name .. "\"]")
    end
    if rec.replaces then  -- a faction's unit is placed by the generic type it stands in for
      ctx:reject(path .. "." .. name, name .. " is " .. rec.faction .. "'s " .. rec.replaces .. ": write " .. rec.replaces
        .. " and give the side faction = \"" .. rec.faction .. "\"")
    end
    -- (piece_limits = false in the scenario: a what-if beyond the pieces and the placement
    -- limits, as calculators allow)
    local limits = ctx:scenario().piece_limits ~= false
    local limit = limits and rec.reinforcements or 0
    local have = ctx:count(owner, nil, "type:" .. name)
    if limit > 0 and have + n > limit then
      ctx:reject(path .. "." .. name, ctx:name(owner) .. " would have " .. (have + n) .. " " .. name .. " on the board; a player has "
        .. limit .. " " .. name .. " pieces (reinforcements; piece_limits = false allows a what-if beyond them)")
    end
    local on_planet = limits and PLANET_LIMITS[name]
    if on_planet and ctx:kind(location) == "planet" and ctx:count(owner, location, "type:" .. name) + n > on_planet then
      ctx:reject(path .. "." .. name, "a player may have at most " .. on_planet .. " " .. name .. " on a planet, not "
        .. (ctx:count(owner, location, "type:" .. name) + n) .. " (piece_limits = false allows a what-if beyond it)")
    end
    for _ = 1, n do ctx:create { kind = "unit", type = name, owner = owner, location = location } end
  end
end

local function place_planets(ctx, planets, system, players, path)
  for i, p in ipairs(planets or {}) do
    local ppath = path .. "." .. i
    check_keys(ctx, p, PLANET_KEYS, ppath)
    local owner = p.owner and players[p.owner]
    if p.owner and not owner then ctx:reject(ppath .. ".owner", "planet owner must be attacker or defender") end
    local planet = ctx:create { kind = "planet", name = p.name or ("planet_" .. i), owner = owner, location = system }
    if p.units then
      if not owner then ctx:reject(ppath .. ".units", "units on a planet need the planet's owner") end
      place_units(ctx, p.units, owner, planet, ppath .. ".units")
    end
  end
end

-- With a map, the active system is one of its systems: [system] says which by tile or hex; the
-- keys that make a system (id, anomaly, adjacent) come from the map instead.
local function map_active_system(ctx, sys, map)
  for _, k in ipairs { "id", "anomaly", "adjacent" } do
    if sys[k] ~= nil then ctx:reject("system." .. k, "system." .. k .. " comes from the map's tiles when the scenario has a map or systems") end
  end
  if sys.tile ~= nil and sys.hex ~= nil then ctx:reject("system.hex", "the active system is named by tile or by hex, not both") end
  if sys.tile ~= nil then
    local s = math.type(sys.tile) == "integer" and map.by_tile[sys.tile]
    if not s then ctx:reject("system.tile", "tile " .. tostring(sys.tile) .. " is not on the map") end
    return s
  end
  local h = sys.hex
  if h == nil then ctx:reject("system", "with a map, [system] names the active system: tile = N or hex = [q, r]") end
  if type(h) ~= "table" or #h ~= 2 or math.type(h[1]) ~= "integer" or math.type(h[2]) ~= "integer" then
    ctx:reject("system.hex", "hex is [q, r], two whole numbers (axial coordinates)")
  end
  local s = ctx:at_hex { h[1], h[2] }
  if not s then ctx:reject("system.hex", "no system of the map at hex [" .. h[1] .. ", " .. h[2] .. "]") end
  return s
end

-- With a map, the active system's planets come from its tile; the scenario gives them owners and
-- units by the planet's record name.
local function map_planets(ctx, planets, system, players, path)
  for i, p in ipairs(planets or {}) do
    local ppath = path .. "." .. i
    check_keys(ctx, p, PLANET_KEYS, ppath)
    local planet, names = nil, {}
    for _, e in ipairs(ctx:entities { kind = "planet", location = system }) do
      names[#names + 1] = ctx:type(e)
      if ctx:type(e) == p.name then planet = e end
    end
    if not planet then
      ctx:reject(ppath .. ".name", "the active system has no planet '" .. tostring(p.name) .. "'; its planets: " .. (#names > 0 and table.concat(names, ", ") or "none"))
    end
    local owner = p.owner and players[p.owner]
    if p.owner and not owner then ctx:reject(ppath .. ".owner", "planet owner must be attacker or defender") end
    if owner then ctx:set_owner(planet, owner) end
    if p.units then
      if not owner then ctx:reject(ppath .. ".units", "units on a planet need the planet's owner") end
      place_units(ctx, p.units, owner, planet, ppath .. ".units")
    end
  end
end

local function place_tokens(ctx, list, system, players, path)
  for i, who in ipairs(list or {}) do
    if not players[who] then ctx:reject(path .. "." .. i, "command tokens belong to attacker or defender") end
    ctx:create { kind = "command_token", owner = players[who], location = system }
  end
end

-- assimilator_tokens: each names a technology the player owns; it carries an assimilator token.
local function place_assimilator_tokens(ctx, p, list, path)
  if list == nil then return end
  if type(list) ~= "table" then ctx:reject(path, path .. " must be a list of technologies") end
  for i, name in ipairs(list) do
    local tech = type(name) == "string" and ctx:entities { kind = "technology", owner = p, type = name }[1]
    if not tech then
      ctx:reject(path .. "." .. i, "assimilator_tokens names technologies this player owns: '" .. tostring(name) .. "' is not in its technologies")
    end
    ctx:set_flag(tech, "assimilator_token", "game")
  end
end

local function side_policy(ctx, side, path)
  local p = side.policy or {}
  check_keys(ctx, p, POLICY_KEYS, path .. ".policy")
  local policy = {
    hit_order = p.hit_order or DEFAULT_HIT_ORDER,
    sustain = p.sustain or "first",
    retreat = p.retreat or "never",
    retreat_to = p.retreat_to,
    retreat_ground_forces = p.retreat_ground_forces or 0,
    transport_order = p.transport_order or DEFAULT_TRANSPORT_ORDER,
    use = p.use or {},
  }
  -- unit orders name unit types
  for _, key in ipairs { "hit_order", "transport_order" } do
    if type(p[key]) == "string" then p[key] = { p[key] } end  -- one type: hit_order = "fighter"
    if p[key] ~= nil then
      if type(p[key]) ~= "table" then ctx:reject(path .. ".policy." .. key, key .. " must be a list of unit types") end
      for i, name in ipairs(p[key]) do
        if type(name) ~= "string" then ctx:reject(path .. ".policy." .. key .. "." .. i, key .. " must be a list of unit types") end
        record_or_reject(ctx, "unit", name, path .. ".policy." .. key .. "." .. i)
      end
    end
  end
  -- use = { morale_boost = "never" }: the ability names are checked by the runtime (optional
  -- hooks), the values here
  if type(policy.use) ~= "table" then ctx:reject(path .. ".policy.use", "use must be a table: use = { morale_boost = \"never\" }") end
  for name, v in pairs(policy.use) do
    if not USE_VALUES[v] then
      ctx:reject(path .. ".policy.use." .. tostring(name), "use." .. tostring(name) .. " must be \"always\" or \"never\" (or true/false), not " .. tostring(v))
    end
  end
  if policy.sustain ~= "first" and policy.sustain ~= "last" and policy.sustain ~= "never" then
    ctx:reject(path .. ".policy.sustain", "sustain must be first, last or never")
  end
  -- retreat = { after_round = k }: the same as retreat = k (announce once k rounds were fought)
  if type(policy.retreat) == "table" then
    local t = policy.retreat
    for k in pairs(t) do
      if k ~= "after_round" then
        ctx:reject(path .. ".policy.retreat." .. tostring(k), "retreat = { after_round = k } has the one key after_round, not '" .. tostring(k) .. "'")
      end
    end
    policy.retreat = t.after_round
    if math.type(policy.retreat) ~= "integer" or policy.retreat < 0 then
      ctx:reject(path .. ".policy.retreat.after_round", "after_round is a whole number of rounds (0 or more), not " .. tostring(t.after_round))
    end
  end
  local r = policy.retreat
  if not (r == "never" or r == "when_outnumbered" or (math.type(r) == "integer" and r >= 0)) then
    ctx:reject(path .. ".policy.retreat", "retreat must be never, when_outnumbered, or a number of rounds")
  end
  return policy
end

-- The faction's units by the generic type each stands in for: { flagship = "...", mech = ... }
-- (not the other versions, whose replaces names a faction unit: lib.version_of).
local function faction_units(ctx, faction)
  local out = {}
  for _, name in ipairs(ctx:records("unit")) do
    local rec = ctx:record(name, "unit")
    if rec and rec.faction == faction and rec.replaces and not lib.version_of(ctx, rec) then out[rec.replaces] = name end
  end
  return out
end

-- The kinds whose records a side's `versions` may name besides units: a card's other version
-- names the card's default record (its current official version) with `replaces`.
local VERSION_KINDS = { "technology", "action_card", "agenda", "relic", "leader", "promissory_note" }

-- The one record `name` is among units and the VERSION_KINDS (the kind and the record).
local function version_record(ctx, name, at)
  if type(name) ~= "string" then ctx:reject(at, "versions names records, not " .. tostring(name)) end
  local kind, rec = "unit", ctx:record(name, "unit")
  for _, k in ipairs(VERSION_KINDS) do
    local r = ctx:record(name, k)
    if r and rec then ctx:reject(at, name .. " names both a " .. kind .. " and a " .. k .. ": write " .. kind .. "/" .. name .. " or " .. k .. "/" .. name) end
    if r then kind, rec = k, r end
  end
  if not rec then return "unit", record_or_reject(ctx, "unit", name, at) end  -- the error, with its hint
  return kind, rec
end

-- Whether a record of `kind` is a card's default record with other versions (some record names it).
local function has_versions(ctx, kind, name)
  for _, t in ipairs(ctx:records(kind)) do
    if ctx:record(t, kind).replaces == name then return true end
  end
  return false
end

-- The versions a side chose (`versions`), one key for every kind. A unit: one of its faction's;
-- each one that is another version (its replaces names the faction's default unit) sets the
-- player's flag "version:<record>" (scope game), which keeps the choice for the units placed later
-- (take_faction_units, lib.unit_records); a default unit listed changes nothing (the page lists
-- them all). A card (technology, action card, law, relic, leader, promissory note): another
-- version (its replaces names the card's default record, the current official version) or the
-- default itself; the side's lists then grant that version wherever they name the card (its
-- default or any version: grant_records). Returns { [kind] = { [default] = { name, at } } }.
local function choose_versions(ctx, p, faction, list, path)
  local cards = {}
  if list == nil then return cards end
  if type(list) == "string" then list = { list } end
  if type(list) ~= "table" then ctx:reject(path, path .. " must be a list of records: versions = [\"naalu_mech\"]") end
  for i, name in ipairs(list) do
    local at = path .. "." .. i
    local kind, rec = version_record(ctx, name, at)
    if kind == "unit" then
      if not rec.faction then
        ctx:reject(at, name .. " is not a faction unit: versions names a faction unit in another version (naalu_mech)")
      end
      if rec.faction ~= faction then
        ctx:reject(at, name .. " is a unit of " .. rec.faction .. "; this side's faction is " .. tostring(faction or "none"))
      end
      if lib.version_of(ctx, rec) then ctx:set_flag(p, "version:" .. name, "game") end
    else
      local default = rec.replaces or name
      if not rec.replaces and not has_versions(ctx, kind, name) then
        ctx:reject(at, name .. " is a " .. kind .. " with no other version: versions names another version of a card (magen_defense_grid)")
      end
      cards[kind] = cards[kind] or {}
      if cards[kind][default] then
        ctx:reject(at, name .. " and " .. cards[kind][default].name .. " are two versions of " .. default .. ": versions names one")
      end
      cards[kind][default] = { name = name, at = at }
    end
  end
  return cards
end

-- Every unit of the player placed so far takes the faction's record for its type, or the
-- version the side chose (its flag "version:<record>", set by choose_versions) (idempotent).
local function take_faction_units(ctx, p, faction)
  local units = faction_units(ctx, faction)
  for g, r in pairs(units) do
    for _, name in ipairs(ctx:records("unit")) do
      local rec = ctx:record(name, "unit")
      if rec and rec.replaces == r and ctx:flag(p, "version:" .. name) then units[g] = name end
    end
  end
  for _, u in ipairs(ctx:entities { kind = "unit", owner = p }) do
    local r = units[ctx:type(u)]
    if r then lib.upgrade(ctx, u, r) end
  end
end

-- What a side's list may hold given its faction: another faction's technologies and leaders are
-- not the side's; a faction with its own upgrade of a unit type does not research the generic
-- one; a player never holds their own promissory note.
local function check_faction_grant(ctx, kind, rec, faction, upgraded, at)
  local mine = faction or "none"
  if (kind == "technology" or kind == "leader") and rec.faction and rec.faction ~= faction then
    ctx:reject(at, rec.type .. " is a " .. kind .. " of " .. rec.faction .. "; this side's faction is " .. mine)
  end
  if kind == "technology" and rec.upgrades and not rec.faction and upgraded[rec.upgrades] then
    ctx:reject(at, faction .. " upgrades its " .. rec.upgrades .. " with " .. upgraded[rec.upgrades] .. ", not " .. rec.type)
  end
  if kind == "promissory_note" and rec.faction and rec.faction == faction then
    ctx:reject(at, rec.type .. " is " .. faction .. "'s own promissory note: a player holds other players' notes")
  end
end

-- A side's technologies, cards, laws, relics, leaders, promissory notes and faction, each checked against
-- the loaded records, in that order (entity order is part of determinism). `list(v, path)` reads
-- one list. The side's units already placed take their faction's records (a faction's flagship,
-- mech, Exotrireme ...; their type names stay the generic ones, so hit_order and reports say
-- "flagship"); unit upgrade technologies are applied after this.
local GRANTS = { { "technologies", "technology" }, { "cards", "action_card" }, { "laws", "agenda" },
  { "relics", "relic" }, { "leaders", "leader" }, { "notes", "promissory_note" } }
local function grant_records(ctx, p, side, path, list)
  local faction = side.faction
  if faction ~= nil then record_or_reject(ctx, "faction", faction, path .. ".faction") end
  -- the faction's own unit upgrades: generic type -> technology
  local upgraded = {}
  if faction then
    for _, name in ipairs(ctx:records("technology")) do
      local rec = ctx:record(name, "technology")
      if rec and rec.faction == faction and rec.upgrades then upgraded[rec.upgrades] = name end
    end
  end
  local chosen = choose_versions(ctx, p, faction, side.versions, path .. ".versions")
  for _, g in ipairs(GRANTS) do
    local key, kind = g[1], g[2]
    local versions = chosen[kind] or {}
    for i, name in ipairs(list(side[key], path .. "." .. key)) do
      local at = path .. "." .. key .. "." .. i
      local rec = record_or_reject(ctx, kind, name, at)
      -- the card in the version the side chose (versions), whichever version the list names
      local pick = versions[rec.replaces or name]
      if pick then
        pick.used = true
        name, rec = pick.name, ctx:record(pick.name, kind)
      end
      check_faction_grant(ctx, kind, rec, faction, upgraded, at)
      ctx:create { kind = kind, type = name, owner = p }
    end
    local defaults = {}
    for default in pairs(versions) do defaults[#defaults + 1] = default end
    table.sort(defaults)  -- the first error is the same on every run
    for _, default in ipairs(defaults) do
      local pick = versions[default]
      if not pick.used then
        ctx:reject(pick.at, pick.name .. " is a version of the " .. kind .. " " .. default .. ", which this side's " .. key
          .. " do not hold: add " .. default .. " to " .. key)
      end
    end
  end
  if faction then
    ctx:create { kind = "faction", type = faction, owner = p }
    take_faction_units(ctx, p, faction)
  end
end

-- fleet_pool_tokens = ["defender"]: other players' command tokens in this player's fleet pool
-- (the Mahact's Edict puts them there): a command token of that player located at this player.
-- At most one of each other player; `players` maps names to players.
local function place_fleet_pool_tokens(ctx, p, list, players, path)
  if list == nil then return end
  if type(list) ~= "table" then ctx:reject(path, path .. " must be a list of players' names") end
  local seen = {}
  for i, who in ipairs(list) do
    local at = path .. "." .. i
    local q = type(who) == "string" and players[who] or nil
    if not q then ctx:reject(at, "fleet_pool_tokens names other players: '" .. tostring(who) .. "' is not one") end
    if q == p then ctx:reject(at, "fleet_pool_tokens holds other players' command tokens, not the player's own") end
    if seen[q] then ctx:reject(at, "a fleet pool holds at most 1 command token of each other player ('" .. who .. "' twice)") end
    seen[q] = true
    ctx:create { kind = "command_token", owner = q, location = p }
  end
end

-- The units a side places: its `units`, and with fleet = "starting" the ships among its faction's
-- starting units (a space combat: ground forces and structures stay home).
local function side_units(ctx, side, role)
  if side.fleet == nil then return side.units or {} end
  if side.fleet ~= "starting" then
    ctx:reject(role .. ".fleet", "fleet must be \"starting\" (the faction sheet's starting units), not " .. tostring(side.fleet))
  end
  if side.faction == nil then
    ctx:reject(role .. ".fleet", "fleet = \"starting\" places the faction's starting units: give the side a faction")
  end
  local faction = record_or_reject(ctx, "faction", side.faction, role .. ".faction")
  local units, any = {}, false
  for name, n in pairs(side.units or {}) do units[name] = n end
  for name, n in pairs(faction.starting_units or {}) do  -- (a record's tables are read-only views: pairs, not next)
    any = true
    if ctx:record(name, "unit").ship then units[name] = (units[name] or 0) + n end
  end
  if not any then ctx:reject(role .. ".fleet", side.faction .. " has no starting_units in its faction record") end
  return units
end

-- rounds = k (every procedure): every combat stops after its round k, 1 to MAX_ROUNDS
local MAX_ROUNDS = 1000
local function round_limit(ctx, scenario)
  local k = scenario.rounds
  if k == nil then return 0 end
  if math.type(k) ~= "integer" or k < 1 or k > MAX_ROUNDS then
    ctx:reject("rounds", "rounds is a whole number of combat rounds from 1 to " .. MAX_ROUNDS
      .. " (every combat stops after that round, outcome ongoing), not " .. tostring(k))
  end
  return k
end

local function build(ctx, scenario)
  local helpers = { check_keys = check_keys, place_units = place_units,
    record_or_reject = record_or_reject, galvanize_units = galvanize_units, grant_records = grant_records, side_policy = side_policy, keys_of = keys_of,
    ANOMALIES = ANOMALIES, place_breach = place_breach, store_ships = store_ships, place_assimilator_tokens = place_assimilator_tokens, place_fleet_pool_tokens = place_fleet_pool_tokens }
  if scenario.procedure == "tactical_action" then  -- players, systems, moves: tactical_setup.lua
    return require("tactical_setup")(ctx, scenario, helpers)
  end
  if scenario.procedure == "tactical_ground_combat" then  -- [attacker] and [defender]: ground_setup.lua
    return require("ground_setup")(ctx, scenario, helpers)
  end
  check_keys(ctx, scenario, TOP_KEYS, "scenario")
  if scenario.procedure and scenario.procedure ~= "space_combat" then
    ctx:reject("procedure", "the ti4 ruleset has the procedures space_combat, tactical_action and tactical_ground_combat")
  end
  local players = {}
  for _, role in ipairs { "attacker", "defender" } do
    if not scenario[role] then ctx:reject(role, "the scenario needs an [" .. role .. "] table") end
    check_keys(ctx, scenario[role], SIDE_KEYS, role)
    players[role] = ctx:create { kind = "player", name = role }
    ctx:set_role(role, players[role])
  end
  ctx:set_role("active_player", players.attacker)

  local sys = scenario.system or {}
  check_keys(ctx, sys, SYSTEM_KEYS, "system")
  local map = galaxy.build(ctx, scenario)
  local active
  if map then
    active = map_active_system(ctx, sys, map)
  else
    if sys.tile ~= nil or sys.hex ~= nil then
      ctx:reject(sys.tile ~= nil and "system.tile" or "system.hex", "system.tile and system.hex choose the active system of a map; this scenario has no map or systems")
    end
    active = ctx:create { kind = "system", name = sys.id or "active_system" }
    if sys.anomaly then
      if not ANOMALIES[sys.anomaly] then ctx:reject("system.anomaly", "anomaly must be one of: " .. keys_of(ANOMALIES)) end
      ctx:set(active, "anomaly", sys.anomaly)
    end
  end
  ctx:set_role("active_system", active)
  place_breach(ctx, active, sys.breach, "system.breach")

  for _, role in ipairs { "attacker", "defender" } do
    local side, p = scenario[role], players[role]
    place_units(ctx, side_units(ctx, side, role), p, active, role .. ".units")
    for name, n in pairs(side.damaged or {}) do
      local left = n
      for _, u in ipairs(ctx:units(p, active, "type:" .. name)) do
        if left > 0 and ctx:get(u, "sustain_damage") then ctx:set(u, "damaged", true); left = left - 1 end
      end
      if left > 0 then ctx:reject(role .. ".damaged." .. name, "more damaged " .. name .. " than units that can sustain damage") end
    end
    if side.galvanized ~= nil then galvanize_units(ctx, p, active, side.galvanized, role .. ".galvanized", "in the space area") end
    for name, n in pairs(side.counters or {}) do
      if math.type(n) ~= "integer" or n < 0 then ctx:reject(role .. ".counters." .. name, "a counter is a whole number") end
      ctx:set_counter(p, name, n, "game")
    end
    grant_records(ctx, p, side, role, function(v) return v or {} end)
    store_ships(ctx, p, side.stored_ships, role .. ".stored_ships")
    local tokens = side.tokens or {}
    check_keys(ctx, tokens, TOKEN_KEYS, role .. ".tokens")
    local defaults = { reinforcements = 8, tactic = 3, fleet = 3, strategy = 2 }
    for key, attr in pairs(TOKEN_KEYS) do ctx:set(p, attr, tokens[key] or defaults[key]) end
    if side.trade_goods ~= nil then  -- what Munitions Reserves and the like spend
      if math.type(side.trade_goods) ~= "integer" or side.trade_goods < 0 then
        ctx:reject(role .. ".trade_goods", "trade_goods is a whole number")
      end
      ctx:set_counter(p, "trade_goods", side.trade_goods, "game")
    end
    if side.relic_fragments ~= nil then
      if math.type(side.relic_fragments) ~= "integer" or side.relic_fragments < 0 then
        ctx:reject(role .. ".relic_fragments", "relic_fragments is a whole number")
      end
      ctx:set_counter(p, "relic_fragments", side.relic_fragments, "game")
    end
    place_assimilator_tokens(ctx, p, side.assimilator_tokens, role .. ".assimilator_tokens")
    if side.commodities ~= nil then  -- what Salvage takes
      if math.type(side.commodities) ~= "integer" or side.commodities < 0 then
        ctx:reject(role .. ".commodities", "commodities is a whole number")
      end
      ctx:set_counter(p, "commodities", side.commodities, "game")
    end
    ctx:set_policy(p, side_policy(ctx, side, role))
    place_fleet_pool_tokens(ctx, p, side.fleet_pool_tokens, players, role .. ".fleet_pool_tokens")
  end
  if map then
    map_planets(ctx, sys.planets, active, players, "system.planets")
  else
    place_planets(ctx, sys.planets, active, players, "system.planets")
  end
  place_tokens(ctx, sys.command_tokens, active, players, "system.command_tokens")

  for i, adj in ipairs(sys.adjacent or {}) do
    local path = "system.adjacent." .. i
    check_keys(ctx, adj, { id = true, attacker = true, defender = true, anomaly = true, planets = true, command_tokens = true }, path)
    local s = ctx:create { kind = "system", name = adj.id or ("system_" .. i) }
    if adj.anomaly then
      if not ANOMALIES[adj.anomaly] then ctx:reject(path .. ".anomaly", "anomaly must be one of: " .. keys_of(ANOMALIES)) end
      ctx:set(s, "anomaly", adj.anomaly)
    end
    ctx:link(active, s, "adjacent")
    for _, role in ipairs { "attacker", "defender" } do
      if adj[role] then place_units(ctx, adj[role], players[role], s, path .. "." .. role) end
    end
    place_planets(ctx, adj.planets, s, players, path .. ".planets")
    place_tokens(ctx, adj.command_tokens, s, players, path .. ".command_tokens")
  end
  -- the faction's units (again: the adjacent systems' units were placed after grant_records), then
  -- unit upgrade technologies: every unit of the type takes the upgraded record (here, in
  -- adjacent systems and on planets alike)
  for _, role in ipairs { "attacker", "defender" } do
    if scenario[role].faction then take_faction_units(ctx, players[role], scenario[role].faction) end
  end
  for _, role in ipairs { "attacker", "defender" } do
    for _, tech in ipairs(scenario[role].technologies or {}) do
      local rec = ctx:record(tech, "technology")
      if rec.upgrades then
        local to = lib.chosen_version(ctx, players[role], rec.upgrade_to)
        for _, u in ipairs(ctx:entities { kind = "unit", owner = players[role], type = rec.upgrades }) do lib.upgrade(ctx, u, to) end
      end
    end
  end
end

return function(ctx, scenario)
  local limit = round_limit(ctx, scenario)
  build(ctx, scenario)
  if limit > 0 then ctx:set_counter(ctx:role("active_system"), "round_limit", limit, "game") end
end
