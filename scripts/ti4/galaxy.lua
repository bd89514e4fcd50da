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
-- tile, named home_1, home_2, ... in map order, tile = 0); -1 is no tile (no hex).
--
-- Hyperlanes (Prophecy of Kings, tiles 83-91; LRR 44): a token is the tile number, its side and
-- an optional rotation, `83A2` (case does not matter): side A turned 2 steps of 60 degrees
-- clockwise. A hyperlane tile is not a system (44.2): no entity is created, its hex joins the
-- board empty, and nothing can be placed there or activated. Systems joined by a lane across
-- hyperlane tiles count as adjacent for everything (44.1): each lane is
-- followed from a system's edge across as many hyperlane tiles as it runs, and the systems at its
-- two ends are linked ("hyperlane"). The side's `hyperlanes` attribute lists its lanes as edge
-- pairs at rotation 0, edges 0-5 clockwise from north (ti4-pok/tiles.toml).
--
-- Wormholes: systems whose tiles have the same wormhole type are linked ("wormhole"), for every
-- type alike: alpha with alpha, beta with beta, and gamma with gamma, delta with delta the same
-- way (the rule that systems with the same wormhole are adjacent; a tile shows one wormhole in the
-- data).
-- Hex neighbours are adjacent through the board (ctx:adjacent's kind "hex").

local M = {}

M.BOARD = { orientation = "flat", spiral_start = "n", winding = "clockwise" }
M.CENTRE_TILE = 18

-- tile number -> { system = record short name, planets = { short names } }, and for hyperlane
-- tiles { hyperlane = true, sides = { a = "0-3 1-4", b = ... } }. When two packs define the same
-- tile number, the pack loaded later wins, with its own planets.
function M.tiles(ctx)
  local tiles = {}
  for _, name in ipairs(ctx:records("system")) do
    local rec = ctx:record(name, "system")
    if rec.tile and rec.hyperlanes then
      local side = name:match("(%a)$")
      local t = tiles[rec.tile]
      if not (t and t.hyperlane) then t = { hyperlane = true, sides = {} }; tiles[rec.tile] = t end
      if side then t.sides[side:lower()] = rec.hyperlanes end
    elseif rec.tile then
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

-- A tile number written in a map string: digits (a tile; 0 a home slot) or "-1" (no tile); nil for
-- anything else, "-0" and a number too large for an integer among them.
local function tile_number(text)
  if text == "-1" then return -1 end
  return text:match("^%d+$") and math.tointeger(tonumber(text)) or nil
end

-- A map string -> list of { index = spiral index, tile = number }, or rejects at `path`. A system
-- tile (not 0, -1 or a hyperlane) may appear once: the same tile twice is an error naming both
-- positions (position 0 is the centre).
function M.parse(ctx, text, path)
  local entries, centre, position = {}, M.CENTRE_TILE, 0
  local first = true
  for token in text:gmatch("[^%s,]+") do
    local braced = token:match("^{(.*)}$")
    local lane_tile, lane_side, lane_turn = token:match("^(%d+)([AaBb])(%d?)$")
    if braced then
      if not first then ctx:reject(path, "map: {" .. braced .. "} (the centre tile) may only come first") end
      centre = tile_number(braced)
      if not centre then
        ctx:reject(path, "map: '" .. token .. "': the centre tile is a tile number, 0 (home slot) or -1 (no tile)")
      end
    elseif lane_tile then
      local turn = lane_turn == "" and 0 or math.tointeger(tonumber(lane_turn))
      if turn > 5 then
        ctx:reject(path, "map: '" .. token .. "' at position " .. (position + 1) .. ": a hyperlane's rotation is 0 to 5 (steps of 60 degrees clockwise)")
      end
      local n = tile_number(lane_tile)
      if not n then
        ctx:reject(path, "map: '" .. token .. "' at position " .. (position + 1) .. ": " .. lane_tile .. " is not a tile number")
      end
      position = position + 1
      entries[#entries + 1] = { index = position, tile = n, side = lane_side:lower(), rotation = turn }
    else
      local n = tile_number(token)
      if not n then
        ctx:reject(path, "map: '" .. token .. "' at position " .. (position + 1)
          .. " is not a tile number, 0 (home slot), -1 (no tile) or a hyperlane with its side and rotation (83A2)")
      end
      position = position + 1
      entries[#entries + 1] = { index = position, tile = n }
    end
    first = false
  end
  if position == 0 then ctx:reject(path, "map: the map string lists no tiles") end
  table.insert(entries, 1, { index = 0, tile = centre })
  local at = {}
  for _, e in ipairs(entries) do
    if e.tile > 0 and not e.side then
      if at[e.tile] then
        ctx:reject(path, "map: tile " .. e.tile .. " is at position " .. at[e.tile] .. " and again at position " .. e.index
          .. " (position 0 is the centre): a map places each system tile once")
      end
      at[e.tile] = e.index
    end
  end
  return entries
end

-- A map string starts with a tile number or {N}; anything else is a map's name.
local function is_map_string(text)
  return text:match("^[%s,]*[{%-%d]") ~= nil
end

local EDGE = { [0] = "n", "ne", "se", "s", "sw", "nw" }  -- hyperlane edges, clockwise from north

local function hex_key(hex) return hex[1] .. "," .. hex[2] end

local function tiles_known(tiles)
  local numbers = {}
  for n in pairs(tiles) do numbers[#numbers + 1] = n end
  table.sort(numbers)
  return #numbers > 0 and (numbers[1] .. " .. " .. numbers[#numbers] .. ", " .. #numbers .. " tiles") or "no tiles loaded"
end

-- A hyperlane side at a hex, turned `rotation` steps clockwise: its hex joins the board empty, and
-- galaxy.lanes[hex] maps each edge to the edges its lanes lead to.
local function place_hyperlane(ctx, t, entry, hex, galaxy, path)
  local lanes = t.sides[entry.side]
  if not lanes then
    ctx:reject(path, "hyperlane tile " .. entry.tile .. " has no side " .. entry.side:upper())
  end
  if ctx:at_hex(hex) or galaxy.lanes[hex_key(hex)] then
    ctx:reject(path, "two tiles at hex [" .. hex[1] .. ", " .. hex[2] .. "]")
  end
  local from = {}
  for a, b in lanes:gmatch("(%d)%-(%d)") do
    a, b = (tonumber(a) + entry.rotation) % 6, (tonumber(b) + entry.rotation) % 6
    from[a] = from[a] or {}; from[a][#from[a] + 1] = b
    from[b] = from[b] or {}; from[b][#from[b] + 1] = a
  end
  ctx:add_hex(hex)
  galaxy.lanes[hex_key(hex)] = from
end

-- Creates a tile's system (with its planets) or a home slot at a hex; a hyperlane tile is only
-- lanes. `entry` is { tile = N, side = "a"/"b" or nil, rotation = 0..5 }.
local function place_tile(ctx, tiles, entry, hex, galaxy, path)
  local tile = entry.tile
  local t = tile ~= 0 and tiles[tile] or nil
  if tile ~= 0 and not t then
    ctx:reject(path, "tile " .. tile .. " is not defined by any loaded pack (" .. tiles_known(tiles) .. ")")
  end
  if t and (t.hyperlane == true) ~= (entry.side ~= nil) then
    ctx:reject(path, t.hyperlane
      and ("tile " .. tile .. " is a hyperlane: give its side and rotation, " .. tile .. "A0 to " .. tile .. "B5")
      or ("tile " .. tile .. " is a system, not a hyperlane: it has no side " .. entry.side:upper()))
  end
  if t and t.hyperlane then return place_hyperlane(ctx, t, entry, hex, galaxy, path) end
  local sys
  if tile == 0 then
    galaxy.homes = galaxy.homes + 1
    sys = ctx:create { kind = "system", name = "home_" .. galaxy.homes }
    ctx:set(sys, "tile", 0)
  else
    sys = ctx:create { kind = "system", type = t.system }
    for _, planet in ipairs(t.planets) do ctx:create { kind = "planet", type = planet, location = sys } end
  end
  if ctx:at_hex(hex) or galaxy.lanes[hex_key(hex)] then
    ctx:reject(path, "two tiles at hex [" .. hex[1] .. ", " .. hex[2] .. "]")
  end
  ctx:place(sys, hex)
  galaxy.systems[#galaxy.systems + 1] = sys
  if tile ~= 0 then galaxy.by_tile[tile] = sys end
  return sys
end

-- LRR 44.1: follows every lane that leaves a system's edge into a hyperlane tile, across as many
-- hyperlane tiles as it runs, and links the system to the system at its other end.
local function link_hyperlanes(ctx, galaxy)
  if next(galaxy.lanes) == nil then return end
  local linked = {}
  for _, sys in ipairs(galaxy.systems) do
    local start = ctx:hex(sys)
    for edge = 0, 5 do
      local seen, queue = {}, { { ctx:hex_neighbour(start, EDGE[edge]), (edge + 3) % 6 } }
      while #queue > 0 do
        local hex, entry = table.unpack(table.remove(queue))
        local key = hex_key(hex)
        local lanes = galaxy.lanes[key]
        if lanes and lanes[entry] and not seen[key .. ":" .. entry] then
          seen[key .. ":" .. entry] = true
          for _, out in ipairs(lanes[entry]) do
            local next_hex = ctx:hex_neighbour(hex, EDGE[out])
            local other = ctx:at_hex(next_hex)
            if galaxy.lanes[hex_key(next_hex)] then
              queue[#queue + 1] = { next_hex, (out + 3) % 6 }
            elseif other and other ~= sys then
              local a, b = math.min(sys, other), math.max(sys, other)
              if not linked[a .. ":" .. b] then
                linked[a .. ":" .. b] = true
                ctx:link(a, b, "hyperlane")
              end
            end
          end
        end
      end
    end
  end
end

-- Builds the galaxy of a scenario that has `map` or `systems`. Returns
-- { systems = {entities in map order}, by_tile = {[tile] = entity},
--   homes = number of home slots }, or nil when the scenario has neither.
function M.build(ctx, scenario)
  if scenario.map == nil and scenario.systems == nil then return nil end
  if scenario.map ~= nil and scenario.systems ~= nil then
    ctx:reject("systems", "a scenario gives the galaxy by map or by systems, not both")
  end
  ctx:set_board(M.BOARD)
  local tiles = M.tiles(ctx)
  local galaxy = { systems = {}, by_tile = {}, homes = 0, lanes = {} }
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
        place_tile(ctx, tiles, e, ctx:hex_spiral(e.index), galaxy, "map")
      end
    end
  else
    if type(scenario.systems) ~= "table" then ctx:reject("systems", "systems is a list of { tile = N, hex = [q, r] }") end
    local placed = {}  -- system tile -> the entry that placed it
    for i, s in ipairs(scenario.systems) do
      local path = "systems." .. i
      if type(s) ~= "table" then ctx:reject(path, path .. " must be a table { tile = N, hex = [q, r] }") end
      for k in pairs(s) do
        if k ~= "tile" and k ~= "hex" and k ~= "side" and k ~= "rotation" then
          ctx:reject(path .. "." .. k, "unknown key '" .. k .. "' in " .. path .. "; expected one of: hex, rotation, side, tile")
        end
      end
      if math.type(s.tile) ~= "integer" or s.tile < 0 then ctx:reject(path .. ".tile", "tile is a tile number (0: a home slot)") end
      if s.side ~= nil and (type(s.side) ~= "string" or not s.side:match("^[AaBb]$")) then
        ctx:reject(path .. ".side", "side is a hyperlane tile's side, \"A\" or \"B\"")
      end
      if s.rotation ~= nil and (math.type(s.rotation) ~= "integer" or s.rotation < 0 or s.rotation > 5 or s.side == nil) then
        ctx:reject(path .. ".rotation", "rotation is a hyperlane's turn, 0 to 5 steps of 60 degrees clockwise (with a side)")
      end
      local h = s.hex
      if type(h) ~= "table" or #h ~= 2 or math.type(h[1]) ~= "integer" or math.type(h[2]) ~= "integer" then
        ctx:reject(path .. ".hex", "hex is [q, r], two whole numbers (axial coordinates)")
      end
      if s.tile > 0 and s.side == nil then
        if placed[s.tile] then
          ctx:reject(path .. ".tile", "tile " .. s.tile .. " is placed by " .. placed[s.tile] .. " and again by " .. path
            .. ": a galaxy holds each system tile once")
        end
        placed[s.tile] = path
      end
      place_tile(ctx, tiles, { tile = s.tile, side = s.side and s.side:lower(), rotation = s.rotation or 0 },
        { h[1], h[2] }, galaxy, path)
    end
  end
  -- identical wormholes are adjacent (for every wormhole type)
  local by_type = {}
  for _, sys in ipairs(galaxy.systems) do
    local w = ctx:get(sys, "wormhole")
    if w then
      if not by_type[w] then by_type[w] = {} end
      local same = by_type[w]
      for _, other in ipairs(same) do ctx:link(other, sys, "wormhole") end
      same[#same + 1] = sys
    end
  end
  link_hyperlanes(ctx, galaxy)
  return galaxy
end

-- ------------------------------------------------------------------ Borders closed to a player
--
-- A border between two adjacent systems may be closed to every player but one (Void Tether,
-- Thunder's Edge): for the others the two systems are not adjacent, whatever made them so (hexes,
-- a scenario's link, wormholes, a hyperlane, Incursion's breaches). The runtime's adjacency stays
-- (it has no way to remove a link); what reads adjacency for a player filters it here: movement
-- (tactical_action.lua's path search), Space Cannon Offense from adjacent systems, retreats
-- (space_combat.lua), lib.steps_between and the cards that read a player's adjacent systems.
-- Kept in counters on both systems (scope game), so the state holds it: `closed_border:<other
-- system's name>` is the turn-order place (1, 2, ...) of the player it stays open to, and
-- `closed_borders` how many of the system's borders are closed (0: nothing to filter).

local function seat_of(ctx, player)
  for i, q in ipairs(ctx:players()) do
    if q == player then return i end
  end
  error("close_border: " .. tostring(player) .. " is not a player")
end

-- Closes the border between systems a and b to every player but `open_to`.
function M.close_border(ctx, a, b, open_to)
  local seat = seat_of(ctx, open_to)
  for _, pair in ipairs { { a, b }, { b, a } } do
    local key = "closed_border:" .. ctx:name(pair[2])
    if ctx:counter(pair[1], key) == 0 then
      ctx:set_counter(pair[1], "closed_borders", ctx:counter(pair[1], "closed_borders") + 1, "game")
    end
    ctx:set_counter(pair[1], key, seat, "game")
  end
end

-- ctx:adjacent(sys[, kind]) as `player` sees it: less the systems across a border closed to
-- them. `player` nil: the active player. Without a closed border, ctx:adjacent's own list.
function M.adjacent(ctx, sys, player, kind)
  local all = ctx:adjacent(sys, kind)
  if ctx:counter(sys, "closed_borders") == 0 then return all end
  player = player or ctx:role("active_player")
  local players, out = ctx:players(), {}
  for _, v in ipairs(all) do
    local seat = ctx:kind(v) == "system" and ctx:counter(sys, "closed_border:" .. ctx:name(v)) or 0
    if seat == 0 or players[seat] == player then out[#out + 1] = v end
  end
  return out
end

-- Void Tether tokens (Thunder's Edge, the Empyrean's breakthrough): a token on the border between
-- two adjacent systems, the counter `void_tether:<other system's name>` on both (scope game).
-- Scenario key: a system's `void_tether = ["quann"]` (tactical_setup.lua). The token itself closes
-- nothing: the breakthrough's hook closes the borders of its holder's tokens (M.close_border).
function M.place_void_tether(ctx, a, b)
  ctx:set_counter(a, "void_tether:" .. ctx:name(b), 1, "game")
  ctx:set_counter(b, "void_tether:" .. ctx:name(a), 1, "game")
end

-- The borders that hold a Void Tether token: a list of { a, b } (systems, each border once).
function M.void_tethers(ctx)
  local out = {}
  for _, s in ipairs(ctx:entities { kind = "system" }) do
    for _, v in ipairs(ctx:adjacent(s)) do
      if s < v and ctx:kind(v) == "system" and ctx:counter(s, "void_tether:" .. ctx:name(v)) > 0 then
        out[#out + 1] = { s, v }
      end
    end
  end
  return out
end

return M
