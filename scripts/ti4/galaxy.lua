-- The galaxy from data: system tiles (content: [system.*] and [planet.*] records with a `tile`
-- number) placed on the runtime's hex board by a map string, a named map, or a list of systems
-- with coordinates. Used by setup.lua; the scenario keys are documented there and in
-- scripts/README.md ("The board").
--
-- Board: TI4 tiles are flat-topped; a map string lists tiles in ring order: the centre, then
-- ring 1 starting north and winding clockwise, then ring 2 starting north, ... So the board is
-- {orientation = "flat", spiral_start = "n", winding = "clockwise"} and position i of the
-- string is ctx:hex_spiral(i).
--
-- Map strings: tile numbers separated by spaces (or commas). The centre is tile 18 (Mecatol
-- Rex) unless the string starts with {N}; 0 is an empty home-system slot (a system with no
-- tile, named home_1, home_2, ... in map order, tile = 0); -1 is no tile (no hex). Hyperlane
-- tokens (a side letter and a rotation, 83A2) are not supported yet and are rejected.
--
-- Wormholes: systems whose tiles have the same wormhole type are linked ("wormhole"), for every
-- type alike: alpha with alpha, beta with beta, and gamma with gamma, delta with delta the same
-- way (the rule "identical wormholes are adjacent"; a tile shows one wormhole in the data).
-- Hex neighbours are adjacent through the board (ctx:adjacent's kind "hex").

local M = {}

M.BOARD = { orientation = "flat", spiral_start = "n", winding = "clockwise" }
M.CENTRE_TILE = 18

-- tile number -> { system = record short name, planets = { short names } }. When two packs
-- define the same tile number, the pack loaded later wins, with its own planets.
function M.tiles(ctx)
  local tiles = {}
  for _, name in ipairs(ctx:records("system")) do
    local rec = ctx:record(name, "system")
    if rec.tile then
      tiles[rec.tile] = { system = name, pack = rec.id:match("^([^:]+):"), planets = {} }
    end
  end
  for _, name in ipairs(ctx:records("planet")) do
    local rec = ctx:record(name, "planet")
    local t = rec.tile and tiles[rec.tile]
    if t and rec.id:match("^([^:]+):") == t.pack then t.planets[#t.planets + 1] = name end
  end
  return tiles
end

local function known_maps(ctx)
  local names = ctx:records("map")
  table.sort(names)
  return #names > 0 and table.concat(names, ", ") or "none"
end

-- A map string -> list of { index = spiral index, tile = number }, or rejects at `path`.
function M.parse(ctx, text, path)
  local entries, centre, position = {}, M.CENTRE_TILE, 0
  local first = true
  for token in text:gmatch("[^%s,]+") do
    local braced = token:match("^{(%-?%d+)}$")
    if braced then
      if not first then ctx:reject(path, "map: {" .. braced .. "} (the centre tile) may only come first") end
      centre = math.tointeger(tonumber(braced))
    else
      local n = token:match("^%-?%d+$") and math.tointeger(tonumber(token))
      if not n or n < -1 then
        local hint = token:match("^%d+%a") and " (hyperlane tiles with a side and a rotation are not supported yet)" or ""
        ctx:reject(path, "map: '" .. token .. "' at position " .. (position + 1) .. " is not a tile number, 0 (home slot) or -1 (no tile)" .. hint)
      end
      position = position + 1
      entries[#entries + 1] = { index = position, tile = n }
    end
    first = false
  end
  if position == 0 then ctx:reject(path, "map: the map string lists no tiles") end
  table.insert(entries, 1, { index = 0, tile = centre })
  return entries
end

-- A map string starts with a tile number or {N}; anything else is a map's name.
local function is_map_string(text)
  return text:match("^[%s,]*[{%-%d]") ~= nil
end

-- Creates a tile's system (with its planets) or a home slot at a hex.
local function place_tile(ctx, tiles, tile, hex, galaxy, path)
  local sys
  if tile == 0 then
    galaxy.homes = galaxy.homes + 1
    sys = ctx:create { kind = "system", name = "home_" .. galaxy.homes }
    ctx:set(sys, "tile", 0)
  else
    local t = tiles[tile]
    if not t then
      local numbers = {}
      for n in pairs(tiles) do numbers[#numbers + 1] = n end
      table.sort(numbers)
      local shown = #numbers > 0 and (numbers[1] .. " .. " .. numbers[#numbers] .. ", " .. #numbers .. " tiles") or "no tiles loaded"
      ctx:reject(path, "tile " .. tile .. " is not defined by any loaded pack (" .. shown .. ")")
    end
    sys = ctx:create { kind = "system", type = t.system }
    for _, planet in ipairs(t.planets) do ctx:create { kind = "planet", type = planet, location = sys } end
  end
  if ctx:at_hex(hex) then
    ctx:reject(path, "two systems at hex [" .. hex[1] .. ", " .. hex[2] .. "]")
  end
  ctx:place(sys, hex)
  galaxy.systems[#galaxy.systems + 1] = sys
  if tile ~= 0 then
    galaxy.by_tile[tile] = galaxy.by_tile[tile] == nil and sys or false  -- false: twice on the map
  end
  return sys
end

-- Builds the galaxy of a scenario that has `map` or `systems`. Returns
-- { systems = {entities in map order}, by_tile = {[tile] = entity or false when placed twice},
--   homes = number of home slots }, or nil when the scenario has neither.
function M.build(ctx, scenario)
  if scenario.map == nil and scenario.systems == nil then return nil end
  if scenario.map ~= nil and scenario.systems ~= nil then
    ctx:reject("systems", "a scenario gives the galaxy by map or by systems, not both")
  end
  ctx:set_board(M.BOARD)
  local tiles = M.tiles(ctx)
  local galaxy = { systems = {}, by_tile = {}, homes = 0 }
  if scenario.map ~= nil then
    if type(scenario.map) ~= "string" then ctx:reject("map", "map is a map string (\"22 44 19 ...\") or the name of a map") end
    local text = scenario.map
    local named = ctx:record(text, "map")
    if named then
      text = named.text or ""
    elseif not is_map_string(text) then
      ctx:reject("map", "unknown map '" .. text .. "'; known: " .. known_maps(ctx))
    end
    for _, e in ipairs(M.parse(ctx, text, "map")) do
      if e.tile >= 0 then
        place_tile(ctx, tiles, e.tile, ctx:hex_spiral(e.index), galaxy, "map")
      end
    end
  else
    if type(scenario.systems) ~= "table" then ctx:reject("systems", "systems is a list of { tile = N, hex = [q, r] }") end
    for i, s in ipairs(scenario.systems) do
      local path = "systems." .. i
      if type(s) ~= "table" then ctx:reject(path, path .. " must be a table { tile = N, hex = [q, r] }") end
      for k in pairs(s) do
        if k ~= "tile" and k ~= "hex" then ctx:reject(path .. "." .. k, "unknown key '" .. k .. "' in " .. path .. "; expected one of: hex, tile") end
      end
      if math.type(s.tile) ~= "integer" or s.tile < 0 then ctx:reject(path .. ".tile", "tile is a tile number (0: a home slot)") end
      local h = s.hex
      if type(h) ~= "table" or #h ~= 2 or math.type(h[1]) ~= "integer" or math.type(h[2]) ~= "integer" then
        ctx:reject(path .. ".hex", "hex is [q, r], two whole numbers (axial coordinates)")
      end
      place_tile(ctx, tiles, s.tile, { h[1], h[2] }, galaxy, path)
    end
  end
  -- identical wormholes are adjacent (for every wormhole type)
  local by_type, types = {}, {}
  for _, sys in ipairs(galaxy.systems) do
    local w = ctx:get(sys, "wormhole")
    if w then
      if not by_type[w] then by_type[w] = {}; types[#types + 1] = w end
      local same = by_type[w]
      for _, other in ipairs(same) do ctx:link(other, sys, "wormhole") end
      same[#same + 1] = sys
    end
  end
  return galaxy
end

return M
