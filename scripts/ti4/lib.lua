-- Helpers shared by the TI4 procedure, its policies and any pack (a pack's `require "lib"`
-- finds this file when the pack has no lib.lua of its own). Functions only: no state.

local lib = {}
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua: adjacency as a player sees it

-- How the narration names a system or planet: a tile's name and number ("Wellon (19)"), a planet
-- record's name ("Abyz"), else the entity's name. For trace texts only: event keys, decision
-- options and scripted answers keep the ids (tile_19, abyz).
function lib.place(ctx, e)
  local id = ctx:record_id(e)
  local rec = id and ctx:record(id)
  if rec and rec.name then
    return (rec.tile and rec.tile > 0 and ctx:kind(e) == "system") and (rec.name .. " (" .. rec.tile .. ")") or rec.name
  end
  return ctx:name(e)
end

-- A path of systems as the narration writes it: "Mecatol Rex (18) > Wellon (19)".
function lib.path_text(ctx, systems)
  local names = {}
  for i, s in ipairs(systems) do names[i] = lib.place(ctx, s) end
  return table.concat(names, " > ")
end

-- The other side of the combat.
function lib.opponent(ctx, player)
  local a, d = ctx:role("attacker"), ctx:role("defender")
  return player == a and d or a
end

function lib.has_ships(ctx, player, sys)
  return ctx:count(player, sys, "ship") > 0
end

-- Whether `player` has a unit of `unit_type` (nil: any unit) in `sys`: in its space area or on one
-- of its planets (a mech "in the system", as the Naalu's Iconoclast and the Nomad's Memoria read it;
-- a system holding your units).
function lib.in_system(ctx, player, sys, unit_type)
  local filter = unit_type and "type:" .. unit_type or nil
  if ctx:count(player, sys, filter) > 0 then return true end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:count(player, planet, filter) > 0 then return true end
  end
  return false
end

-- Whether a player other than `player` has ships in `sys` (7.3, movement).
function lib.other_ships(ctx, player, sys)
  for _, other in ipairs(ctx:players()) do
    if other ~= player and ctx:count(other, sys, "ship") > 0 then return true end
  end
  return false
end

-- The units of every player but `player` in the space area of `sys` and, with `planets`, on its
-- planets too (in player order).
function lib.other_players_units(ctx, player, sys, planets)
  local out = {}
  for _, q in ipairs(ctx:players()) do
    if q ~= player then
      for _, u in ipairs(ctx:units(q, sys)) do out[#out + 1] = u end
      if planets then
        for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
          for _, u in ipairs(ctx:units(q, planet)) do out[#out + 1] = u end
        end
      end
    end
  end
  return out
end

-- Whether `player` owns the technology `tech`.
function lib.owns(ctx, player, tech)
  return #ctx:entities { kind = "technology", owner = player, type = tech } > 0
end

-- Sorts fighters and ground forces by the player's transport_order (types it does not name go
-- last), then by entity order: the first ones are carried while capacity lasts.
function lib.sort_cargo(ctx, player, cargo)
  local order = ctx:policy(player).transport_order or {}
  local function rank(u)
    local t = ctx:type(u)
    for i, name in ipairs(order) do if name == t then return i end end
    return #order + 1
  end
  table.sort(cargo, function(a, b)
    local ra, rb = rank(a), rank(b)
    if ra ~= rb then return ra < rb end
    return a < b
  end)
end

-- rounds = k in the scenario: every combat of the run stops after its round k, and the run ends
-- there with the outcome "ongoing" (0: no stop). setup.lua keeps k as the counter "round_limit"
-- on the active system; a combat that stops sets the flag "rounds_stopped" there (scope game).
function lib.round_limit(ctx)
  return ctx:counter(ctx:role("active_system"), "round_limit")
end

function lib.rounds_stopped(ctx)
  return ctx:flag(ctx:role("active_system"), "rounds_stopped")
end

-- The combat at `where` (a system or planet) stops after `round` (rounds = k): the run ends.
function lib.stop_rounds(ctx, where, round)
  ctx:set_flag(ctx:role("active_system"), "rounds_stopped", "game")
  if ctx:tracing() then
    ctx:event("rounds_stopped:" .. ctx:name(where) .. ":" .. round,
      "the combat in " .. lib.place(ctx, where) .. " stops after round " .. round .. " (rounds = " .. round .. ")")
  end
  ctx:result("ongoing")
end

-- Whether the player's retreat policy says to leave now: "never", "when_outnumbered" (fewer
-- ships than the opponent here) or N (once N rounds have been fought). Also says why.
function lib.time_to_retreat(ctx, player)
  local r = ctx:policy(player).retreat
  local sys = ctx:role("active_system")
  if r == "when_outnumbered" then
    local mine, theirs = ctx:count(player, sys, "ship"), ctx:count(lib.opponent(ctx, player), sys, "ship")
    if mine < theirs then return true, "outnumbered " .. mine .. " to " .. theirs end
    return false, "not outnumbered (" .. mine .. " to " .. theirs .. ")"
  end
  if math.type(r) == "integer" then
    local fought = ctx:counter(sys, "round") - 1
    if fought >= r then return true, "retreat after " .. r .. " rounds" end
    return false, "retreat after " .. r .. " rounds; " .. fought .. " fought"
  end
  return false, "retreat: never"
end

-- Another version of a faction unit (a Codex's Ω, or the version it replaced) is a unit record
-- whose replaces names a faction unit's record rather than a generic type: that record, or nil.
-- So is a faction's record whose replaces names a unit upgrade's record (a card the faction lays
-- over a generic upgrade: Thunder's Edge's Corsair over Cruiser II).
function lib.version_of(ctx, rec)
  local default = rec.replaces and ctx:record(rec.replaces, "unit")
  if default and default.faction and default.replaces then return default end
  if default and rec.faction and lib.upgrade_record(ctx, rec.replaces) then return default end
  return nil
end

-- Whether unit record `name` is what a unit upgrade technology makes of a unit (Cruiser II).
function lib.upgrade_record(ctx, name)
  for _, t in ipairs(ctx:records("technology")) do
    if ctx:record(t, "technology").upgrade_to == name then return true end
  end
  return false
end

-- The record a unit of `player` takes for unit record `name`: the version the side chose of it
-- (its flag "version:<record>", setup.lua's versions), else `name`.
function lib.chosen_version(ctx, player, name)
  for _, t in ipairs(ctx:records("unit")) do
    if ctx:flag(player, "version:" .. t) and ctx:record(t, "unit").replaces == name then return t end
  end
  return name
end

-- The records new units of the player take, by generic type: the faction's own units (a
-- faction's flagship, mech, Exotrireme ...), then the player's unit upgrade technologies.
function lib.unit_records(ctx, player)
  local out = {}
  local faction = ctx:entities { kind = "faction", owner = player }[1]
  if faction then
    local name = ctx:type(faction)
    for _, t in ipairs(ctx:records("unit")) do
      local rec = ctx:record(t, "unit")
      if rec and rec.faction == name and rec.replaces and not lib.version_of(ctx, rec) then out[rec.replaces] = t end
    end
    -- the version the side chose instead (its flag "version:<record>", setup.lua's versions); a
    -- version of an upgrade's record (the Corsair) is taken with the technology, below
    for _, t in ipairs(ctx:records("unit")) do
      local rec = ctx:record(t, "unit")
      local default = rec and ctx:flag(player, "version:" .. t) and lib.version_of(ctx, rec)
      if default and default.replaces then out[default.replaces] = t end
    end
  end
  for _, tech in ipairs(ctx:entities { kind = "technology", owner = player }) do
    local rec = ctx:record(ctx:type(tech), "technology")
    if rec.upgrades then out[rec.upgrades] = lib.chosen_version(ctx, player, rec.upgrade_to) end
  end
  return out
end

-- Places `n` units of the generic type `unit_type` of the player's at `location`, each with the
-- record the player's units of that type take (lib.unit_records: a faction's own infantry, an
-- upgrade). Returns the units placed.
function lib.place_units(ctx, player, unit_type, n, location)
  local record, placed = lib.unit_records(ctx, player)[unit_type], {}
  for i = 1, n do
    placed[i] = ctx:create { kind = "unit", type = unit_type, owner = player, location = location }
    if record then ctx:upgrade(placed[i], record) end
  end
  return placed
end

-- Whether unit `u` has its unit abilities: an effect that takes them away (the Crimson Rebellion's
-- Quietus) sets the unit's counter `unit_abilities_lost` to 1 while it lasts, and a hook that is a
-- unit's own ability (a Linkship lending itself a structure's Space Cannon) asks this first. The
-- abilities the rolls and casualties read as attributes (Sustain Damage, Space Cannon, ...) the
-- effect takes away itself.
function lib.has_unit_abilities(ctx, u)
  return ctx:counter(u, "unit_abilities_lost") == 0
end

-- The first planet of `sys` (in the system's order) that `player` controls, or nil.
function lib.controlled_planet(ctx, player, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:owner(planet) == player then return planet end
  end
  return nil
end

-- Whether `sys` is `player`'s home system. The reading every card that names "your home system"
-- shares (Creuss's Slipstream, Winnu's Rickar Rickani, the Crimson Rebellion's Sundered and
-- Resonance Generator): a home system (a home tile: the system's `home` attribute, ruleset.toml)
-- that holds a planet the player controls. The data do not say whose faction a home tile is (Creuss
-- is tile 51, the Crimson Rebellion's tile 118 lies in its play area), so the player's own home
-- tile is the one where they control a planet: a scenario gives a faction its home system by giving
-- it a home tile's planet. Not read: a map's empty home slot (`home_N`, tile 0: no `home`), and a
-- home system another player took from its faction (it reads as the taker's; the rules keep it the
-- faction's).
function lib.is_home_system(ctx, player, sys)
  return ctx:get(sys, "home") == true and lib.controlled_planet(ctx, player, sys) ~= nil
end

-- A hook several units share, for a pack's hook file: `hook(lib.barrage_kills_infantry(id, source))`.
-- After the unit's Anti-Fighter Barrage roll, each of its results of 9 or 10 (the die as rolled,
-- before modifiers) destroys 1 of the opponent's infantry in the active system's space area
-- (Prophecy of Kings' Strike Wing Alpha II, Twilight's Fall's Strike Wing Alpha).
function lib.barrage_kills_infantry(id, source)
  return {
    id = id,
    window = "space_combat.after_anti_fighter_barrage_roll",
    source = source,
    condition = function(ctx, player, unit, args)
      if args.player ~= player or ctx:count(lib.opponent(ctx, player), ctx:role("active_system"), "type:infantry") == 0 then return false end
      for i = 1, args.pool:size() do
        if args.pool:unit(i) == unit and args.pool:value(i) >= 9 then return true end
      end
      return false
    end,
    apply = function(ctx, player, unit, args)
      local enemy, sys = lib.opponent(ctx, player), ctx:role("active_system")
      for i = 1, args.pool:size() do
        if args.pool:unit(i) == unit and args.pool:value(i) >= 9 then
          local inf = ctx:units(enemy, sys, "type:infantry")[1]
          if inf then ctx:destroy(inf, "space_combat.unit_destroyed") end
        end
      end
    end,
  }
end

-- A hook several units share (`hook(lib.sacrifice_for_two(id, source))`): after a round of space
-- combat the unit may destroy itself to destroy up to 2 ships in its system, the opponent's 2 most
-- costly (Sardakk N'orr's Exotrireme II, Twilight's Fall's Exotrireme). Default policy: use it
-- when those 2 cost more than the unit, or are all the opponent's ships left; policy.use = { [id]
-- = "always" | "never" }.
local function costliest_ships(ctx, player, sys)
  local out = ctx:units(lib.opponent(ctx, player), sys, "ship")
  table.sort(out, function(a, b)
    local ca, cb = lib.unit_cost(ctx, a), lib.unit_cost(ctx, b)
    if ca ~= cb then return ca > cb end
    return a < b
  end)
  return out
end

function lib.sacrifice_for_two(id, source)
  return {
    id = id,
    window = "space_combat.end_of_round",
    source = source,
    optional = true,
    condition = function(ctx, _, unit) return ctx:location(unit) == ctx:role("active_system") end,
    helps = function(ctx, player, unit)
      local t = costliest_ships(ctx, player, ctx:role("active_system"))
      if #t == 0 then return false end
      local worth = lib.unit_cost(ctx, t[1]) + (t[2] and lib.unit_cost(ctx, t[2]) or 0)
      return #t <= 2 or worth > lib.unit_cost(ctx, unit)
    end,
    apply = function(ctx, player, unit)
      local t = costliest_ships(ctx, player, ctx:role("active_system"))
      ctx:destroy(unit, "space_combat.unit_destroyed")
      for i = 1, math.min(2, #t) do ctx:destroy(t[i], "space_combat.unit_destroyed") end
    end,
  }
end

-- A hook several units share (`hook(lib.retreat_strike(id, source, eligible))`): when the unit
-- retreats with its owner's ships, its owner may destroy the opponent's most costly ship left in
-- the active system for which `eligible(ctx, u)` is true (the Ral Nel's Last Dispatch, Twilight's
-- Fall's Linkship); the owner's own ships there have retreated with it.
function lib.retreat_strike(id, source, eligible)
  local function target(ctx, player)
    return lib.most_costly(ctx, ctx:units(lib.opponent(ctx, player), ctx:role("active_system"), "ship"),
      function(u) return eligible(ctx, u) end)
  end
  return {
    id = id,
    window = "space_combat.retreat",
    source = source,
    optional = true,
    condition = function(ctx, player, unit, args)
      if args.player ~= player then return false end
      local with_it = false
      for _, u in ipairs(args.units or {}) do
        if u == unit then with_it = true end
      end
      return with_it and target(ctx, player) ~= nil
    end,
    apply = function(ctx, player)
      ctx:destroy(target(ctx, player), "space_combat.unit_destroyed")
    end,
  }
end

-- A fighter or ground force: a unit that moves only with a ship and counts against capacity. A
-- structure is never transported, even one that is also a ground force (the Titans' Hel-Titan).
function lib.needs_transport(ctx, u)
  return ctx:get(u, "move") == 0 and (ctx:get(u, "fighter") or ctx:get(u, "ground_force")) and not ctx:get(u, "structure")
end

-- Capacity (Key Concept, 10.1): while the player's fighters and ground forces in the space area
-- of `sys` exceed `capacity` (fighters first fill `fighter_room`, the structures' room on the
-- planets), the player chooses a type by `decision` and `remove(unit, type)` takes one of it:
-- fighters only while fighters are over their room, then ground forces. No cap on how many.
function lib.remove_excess(ctx, player, sys, capacity, fighter_room, decision, remove)
  local fighters, forces, total
  local function scan()
    fighters, forces, total = {}, {}, ctx:count(player, sys)
    for _, u in ipairs(ctx:units(player, sys)) do
      if lib.needs_transport(ctx, u) then
        if ctx:get(u, "fighter") then fighters[#fighters + 1] = u else forces[#forces + 1] = u end
      end
    end
  end
  scan()
  while true do  -- one unit per pass, until every excess unit is removed
    local excess = math.max(0, #fighters - fighter_room) + #forces - capacity
    if excess <= 0 then return end
    local types, seen, candidates = {}, {}, {}
    local pools = (#fighters > fighter_room) and { fighters, forces } or { forces }
    for _, list in ipairs(pools) do
      for _, u in ipairs(list) do
        local t = ctx:type(u)
        if not seen[t] then seen[t] = true; types[#types + 1] = t; candidates[t] = u end
      end
    end
    local t = ctx:decide(player, decision, types)
    local gone = candidates[t]
    remove(gone, t)
    for _, list in ipairs { fighters, forces } do
      for i, u in ipairs(list) do
        if u == gone then table.remove(list, i); break end
      end
    end
    -- a hook that ran as the unit went may have changed the space area: look again
    total = total - 1
    if ctx:count(player, sys) ~= total then scan() end
  end
end

-- Capacity (Key Concept) outside combat: whenever a space area holds more of a player's fighters
-- and ground forces than their ships there can carry, the surplus is destroyed. Fighters also fit
-- in structures' fighter_capacity on the system's planets (space docks). The tactical action and
-- cards that destroy ships outside combat (Graviton Laser System, Experimental Battlestation) call
-- it. A structure in the space area with a capacity (the Saar's Floating Factory) holds units as a
-- ship does.
function lib.check_capacity(ctx, player, sys)
  local capacity, fighter_room = ctx:sum(player, sys, "capacity", "ship", "structure"), 0
  if ctx:count(player, sys, "fighter", "ground_force") <= capacity then return end  -- all fit (most calls)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    fighter_room = fighter_room + ctx:sum(player, planet, "fighter_capacity")
  end
  lib.remove_excess(ctx, player, sys, capacity, fighter_room, "tactical_action.remove_excess", function(u, t)
    if ctx:tracing() then
      ctx:event("over_capacity:" .. ctx:name(player) .. ":" .. t .. ":" .. ctx:name(sys),
        ctx:name(player) .. "'s " .. t .. " in " .. lib.place(ctx, sys) .. " is destroyed: over capacity")
    end
    ctx:destroy(u, "tactical_action.unit_destroyed")
  end)
end

-- Steps from system `from` to `target` through adjacent systems, searched no deeper than `limit`
-- (nil when farther): a card's default policy asks whether it brings a ship within reach.
-- `pass(s)` (optional) says whether a system may be passed; `more(s)` (optional) lists systems
-- that count as adjacent to s too (Lost Star Chart's wormholes). Adjacency as `player` sees it
-- (optional; nil: the active player): a border closed to them is not crossed (galaxy.adjacent).
function lib.steps_between(ctx, from, target, limit, pass, more, player)
  if from == target then return 0 end
  local seen, frontier = { [from] = true }, { from }
  for d = 1, limit do
    local next = {}
    for _, s in ipairs(frontier) do
      local around = galaxy.adjacent(ctx, s, player)
      if more then
        around = { table.unpack(around) }
        for _, o in ipairs(more(s)) do around[#around + 1] = o end
      end
      for _, n in ipairs(around) do
        if n == target then return d end
        if not seen[n] and ctx:kind(n) == "system" and (not pass or pass(n)) then seen[n] = true; next[#next + 1] = n end
      end
    end
    frontier = next
  end
  return nil
end

-- Whom player `shooter` fires Space Cannon Offense at: another player fires at the active
-- player's ships; the active player at the first other player, in turn order from the active
-- player, with ships in the active system. nil: nobody to fire at.
function lib.space_cannon_target(ctx, shooter)
  local active, sys = ctx:role("active_player"), ctx:role("active_system")
  if shooter ~= active then
    return ctx:count(active, sys, "ship") > 0 and active or nil
  end
  local players, at = ctx:players(), 1
  for i, q in ipairs(players) do if q == active then at = i end end
  for k = 1, #players - 1 do
    local q = players[(at - 1 + k) % #players + 1]
    if ctx:count(q, sys, "ship") > 0 then return q end
  end
  return nil
end

-- Spending influence (the Key Concept on spending resources and influence): the player exhausts
-- planets they control that are ready and have influence, and spends trade goods (1 each) for the
-- rest. The planets chosen waste the least influence, then leave the most trade goods; among
-- equals, the fewest planets, then the first in entity order. Returns whether `n` was paid (if
-- not, nothing is spent). Faction abilities that cost influence (the Empyrean flagship, the
-- Keleres flagship and mech, Law's Order) call it.
function lib.influence_available(ctx, player)
  local sum = ctx:counter(player, "trade_goods")
  for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
    if not ctx:flag(planet, "exhausted") then sum = sum + ctx:get(planet, "influence") end
  end
  return sum
end

function lib.spend_influence(ctx, player, n)
  if n <= 0 then return true end
  local planets = {}
  for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
    if not ctx:flag(planet, "exhausted") and ctx:get(planet, "influence") > 0 then planets[#planets + 1] = planet end
  end
  local goods = ctx:counter(player, "trade_goods")
  local best, best_key
  local k = math.min(#planets, 10)  -- subsets of the first 10 planets (1024 at most)
  for mask = 0, (1 << k) - 1 do
    local sum, count = 0, 0
    for i = 1, k do
      if mask & (1 << (i - 1)) ~= 0 then sum = sum + ctx:get(planets[i], "influence"); count = count + 1 end
    end
    local tg = math.max(0, n - sum)
    if tg <= goods then
      local key = { math.max(0, sum - n), tg, count, mask }
      local better = not best_key
      for j = 1, 4 do
        if best_key and key[j] ~= best_key[j] then better = key[j] < best_key[j]; break end
      end
      if better then best, best_key = mask, key end
    end
  end
  if not best then return false end
  local spent = {}
  for i = 1, k do
    if best & (1 << (i - 1)) ~= 0 then
      ctx:set_flag(planets[i], "exhausted", "game")
      spent[#spent + 1] = ctx:name(planets[i])
    end
  end
  if best_key[2] > 0 then
    ctx:set_counter(player, "trade_goods", goods - best_key[2], "game")
    spent[#spent + 1] = best_key[2] .. " trade goods"
  end
  if ctx:tracing() then
    ctx:event("influence:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. " spends " .. n .. " influence (" .. table.concat(spent, ", ") .. ")")
  end
  return true
end

-- Spending resources outside production (an ability's cost: the Letnev mech's deploy): the way
-- production pays (production.payments: ready planets that waste the fewest resources, then the
-- fewest trade goods, then the fewest planets). Returns whether `n` was paid (if not, nothing is
-- spent).
function lib.spend_resources(ctx, player, n)
  if n <= 0 then return true end
  local way = require("production").payments(ctx, player, n)[1]
  if not way then return false end
  local goods = 0
  for part in way.label:gmatch("[^+]+") do
    local g = part:match("^tg:(%d+)$")
    if g then
      goods = tonumber(g)
    else
      for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
        if ctx:name(planet) == part and not ctx:flag(planet, "exhausted") then ctx:set_flag(planet, "exhausted", "game"); break end
      end
    end
  end
  if goods > 0 then ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") - goods, "game") end
  if ctx:tracing() then
    ctx:event("resources:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. " spends " .. n .. " resources (" .. way.label .. ")")
  end
  return true
end

-- Whether the player can spend `n` resources (ready planets and trade goods).
function lib.resources_available(ctx, player)
  local sum = ctx:counter(player, "trade_goods")
  for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
    if not ctx:flag(planet, "exhausted") then sum = sum + ctx:get(planet, "resources") end
  end
  return sum
end

-- Whether the player's policy says to use the optional ability `id` whenever it may
-- (`policy.use = { id = "always" }`): a card's default heuristic (use it when it helps) is then
-- skipped. "never" is the runtime's own answer to the use:<id> decision.
function lib.use_always(ctx, player, id)
  local use = ctx:policy(player).use
  local v = use and use[id]
  return v == "always" or v == true
end

-- A unit's cost per unit (fighters and infantry: half).
function lib.unit_cost(ctx, u)
  return (ctx:get(u, "cost") or 0) / math.max(1, ctx:get(u, "units_per_cost") or 1)
end

-- The player's costliest unit of some kind: the unit of the list `units` with the highest
-- lib.unit_cost among those for which `keep(u)` is true (`keep` nil: all of them), the first in
-- the list among equals; nil when none is kept. (Rescue, Crash Landing, Metali Void Shielding,
-- Phoenix Standard, The Cavalry.)
function lib.most_costly(ctx, units, keep)
  local best, best_cost
  for _, u in ipairs(units) do
    if not keep or keep(u) then
      local c = lib.unit_cost(ctx, u)
      if not best or c > best_cost then best, best_cost = u, c end
    end
  end
  return best
end

-- The unit upgrade technologies `player` can research now (Reveal Prototype, N'orr Supremacy):
-- for each unit type, the faction's own upgrade where it has one, else the generic one; not
-- owned, and its prerequisites met by the colours of the player's technologies. Only the types
-- among `units` unless `any_type`. Best first: { name =, gain = } where gain is what `units` of
-- the type gain in expected hits per combat roll under the upgraded record (the version the
-- player chose of it), then by name.
local function expected_hits(combat, dice)
  if not combat or combat <= 0 then return 0 end
  return (dice or 1) * math.max(0, math.min(10, 11 - combat)) / 10
end

function lib.unit_upgrades(ctx, player, units, any_type)
  local faction = ctx:entities { kind = "faction", owner = player }[1]
  faction = faction and ctx:type(faction)
  local have = {}
  for _, t in ipairs(ctx:entities { kind = "technology", owner = player }) do
    local c = ctx:record(ctx:type(t), "technology").specialty
    if c then have[c] = (have[c] or 0) + 1 end
  end
  local function meets(prerequisites)
    local need = {}
    for c in (prerequisites or ""):gmatch("%S+") do need[c] = (need[c] or 0) + 1 end
    for c, n in pairs(need) do
      if (have[c] or 0) < n then return false end
    end
    return true
  end
  local by_type = {}
  for _, u in ipairs(units) do
    local t = ctx:type(u)
    by_type[t] = by_type[t] or {}
    by_type[t][#by_type[t] + 1] = u
  end
  local own, generic = {}, {}
  for _, name in ipairs(ctx:records("technology")) do
    local rec = ctx:record(name, "technology")
    if rec.upgrades and (any_type or by_type[rec.upgrades]) then
      if rec.faction == nil then generic[rec.upgrades] = name
      elseif rec.faction == faction then own[rec.upgrades] = name end
    end
  end
  local names = {}  -- the type's upgrade: the faction's own (Memoria II has no generic one)
  for t, g in pairs(generic) do names[t] = g end
  for t, o in pairs(own) do names[t] = o end
  local out = {}
  for t, name in pairs(names) do
    local rec = ctx:record(name, "technology")
    if not lib.owns(ctx, player, name) and meets(rec.prerequisites) then
      local to, gain = ctx:record(lib.chosen_version(ctx, player, rec.upgrade_to), "unit"), 0
      for _, u in ipairs(by_type[t] or {}) do
        gain = gain + expected_hits(to.combat, to.dice) - expected_hits(ctx:get(u, "combat"), ctx:get(u, "dice"))
      end
      out[#out + 1] = { name = name, gain = gain }
    end
  end
  table.sort(out, function(a, b)
    if a.gain ~= b.gain then return a.gain > b.gain end
    return a.name < b.name
  end)
  return out
end

-- `player` researches the unit upgrade technology `name`: every unit of its type takes the
-- upgraded record (the version the player chose of it) at once.
function lib.research_unit_upgrade(ctx, player, name)
  local rec = ctx:record(name, "technology")
  ctx:create { kind = "technology", type = name, owner = player }
  local to = lib.chosen_version(ctx, player, rec.upgrade_to)
  for _, u in ipairs(ctx:entities { kind = "unit", owner = player, type = rec.upgrades }) do lib.upgrade(ctx, u, to) end
end

-- Reroll as many dice as you like, and lose each unit whose reroll misses (The Crown
-- of Thalnos, the base law and the Prophecy of Kings relic). `how`: bonus (added to each rerolled
-- result), any_hit_saves (a unit is safe if any of its dice hits, not only its rerolled ones),
-- always (reroll every miss), opponent (whose cheapest unit at `where` is what a hit is worth).
-- Returns, per unit, the indexes of its missed dice to reroll, in unit order: a unit's misses are
-- rerolled when the hits they are expected to add, each worth the opponent's cheapest unit there,
-- outweigh the chance of losing the unit times its cost.
function lib.rerolls_worth_it(ctx, pool, how, where)
  local by_unit, order = {}, {}
  for i = 1, #pool do
    local u = pool:unit(i)
    if u and not pool:cancelled(i) then
      local e = by_unit[u]
      if not e then e = { unit = u, misses = {}, hit = false }; by_unit[u] = e; order[#order + 1] = e end
      if pool:hit(i) then e.hit = true else e.misses[#e.misses + 1] = i end
    end
  end
  local worth = math.huge
  for _, v in ipairs(ctx:units(how.opponent, where)) do
    local c = lib.unit_cost(ctx, v)
    if c < worth and (ctx:get(v, "ship") or ctx:get(v, "ground_force")) then worth = c end
  end
  if worth == math.huge then worth = 0 end
  local out = {}
  for _, e in ipairs(order) do
    if #e.misses > 0 then
      local gain, all_miss = 0, 1
      for _, i in ipairs(e.misses) do
        local need = pool:threshold(i) - (pool:result(i) - pool:value(i)) - how.bonus
        local p = math.max(0, math.min(10, 11 - need)) / 10
        gain, all_miss = gain + p, all_miss * (1 - p)
      end
      local risk = (how.any_hit_saves and e.hit) and 0 or all_miss
      if how.always or gain * worth > risk * lib.unit_cost(ctx, e.unit) then out[#out + 1] = e end
    end
  end
  return out
end

-- Rerolls the chosen units' misses (lib.rerolls_worth_it), adds how.bonus to each rerolled die,
-- then destroys each of those units that did not hit (by how.any_hit_saves) through
-- how.destroyed_window. `tag` names the trace events.
function lib.reroll_or_destroy(ctx, player, pool, how, chosen, tag)
  for _, e in ipairs(chosen) do
    local hit = how.any_hit_saves and e.hit
    for _, i in ipairs(e.misses) do
      pool:reroll(i)
      if how.bonus ~= 0 then pool:modify(i, how.bonus) end
      if pool:hit(i) then hit = true end
    end
    if ctx:tracing() then
      ctx:event(tag .. ":" .. ctx:name(player) .. ":" .. ctx:type(e.unit) .. ":" .. (hit and "hit" or "destroyed"),
        ctx:name(player) .. "'s " .. ctx:type(e.unit) .. " rerolls " .. #e.misses .. " dice: " .. (hit and "a hit" or "no hit, destroyed"))
    end
    if not hit and ctx:location(e.unit) ~= "reinforcements" then ctx:destroy(e.unit, how.destroyed_window) end
  end
end

-- The scripted move (a player's `moves` in the scenario) of the n-th ship of type `t` in the
-- system named `from`: the n-th entry naming that type and start system, and its number; nil: none.
function lib.scripted_move(moves, t, from, n)
  local seen = 0
  for i, m in ipairs(moves or {}) do
    if m.unit == t and m.from == from then
      seen = seen + 1
      if seen == n then return m, i end
    end
  end
  return nil
end

-- Galvanize (Thunder's Edge): a galvanized unit rolls 1 additional die for its combat rolls and for
-- each unit ability it rolls for (Anti-Fighter Barrage, Bombardment, Space Cannon). The token stays
-- with the unit (flag `galvanized`, scope game); the extra die is kept in the unit's own dice
-- counts, so every roll sees it with no hook. A unit is galvanized once; returns whether it was now.
local GALVANIZE_DICE = { { "combat", "dice" }, { "afb", "afb_dice" }, { "bombardment", "bombardment_dice" },
  { "space_cannon", "space_cannon_dice" } }
local function galvanize_dice(ctx, u)
  for _, kd in ipairs(GALVANIZE_DICE) do
    if (ctx:get(u, kd[1]) or 0) > 0 then ctx:set(u, kd[2], math.max(1, ctx:get(u, kd[2]) or 0) + 1) end
  end
end

function lib.galvanize(ctx, u)
  if ctx:flag(u, "galvanized") then return false end
  ctx:set_flag(u, "galvanized", "game")
  galvanize_dice(ctx, u)
  if ctx:tracing() then
    ctx:event("galvanized:" .. ctx:name(ctx:owner(u)) .. ":" .. ctx:type(u), ctx:name(ctx:owner(u)) .. "'s " .. ctx:type(u) .. " is galvanized")
  end
  return true
end

-- A unit takes another record's numbers (ctx:upgrade: a faction's unit at setup, a unit upgrade,
-- a mech that flips) and keeps its galvanize token's extra die: the new record's dice counts are
-- the printed ones, so a galvanized unit gets its 1 more again.
function lib.upgrade(ctx, u, record)
  ctx:upgrade(u, record)
  if ctx:flag(u, "galvanized") then galvanize_dice(ctx, u) end
end

-- Coexistence (Thunder's Edge: ground forces that stay on a planet beside another player's without
-- fighting): the planet's flag "coexisting:<player>" (scope game) says that player's units there
-- coexist (the player who chose it, or whose unit an ability placed into coexistence: Crash
-- Landing). invasion.lua reads it at Establish Control and in the report.
function lib.set_coexisting(ctx, planet, player)
  ctx:set_flag(planet, "coexisting:" .. ctx:name(player), "game")
end

function lib.coexisting(ctx, planet, player)
  return ctx:flag(planet, "coexisting:" .. ctx:name(player))
end

-- Breaches (Thunder's Edge): a system holds at most one breach token, inactive or active. It is the
-- system's counter `breach` (scope game: 0 none, 1 inactive, 2 active), so the state holds it and
-- no attribute slot is taken. Scenario key `breach = "active" | "inactive"` on a system
-- (setup.lua); the Crimson Rebellion's abilities read and place them (content/ti4-te).
lib.BREACH = { inactive = 1, active = 2 }
-- "active", "inactive" or nil
function lib.breach(ctx, sys)
  local n = ctx:counter(sys, "breach")
  return (n == 2 and "active") or (n == 1 and "inactive") or nil
end
-- state: "active", "inactive" or nil (no breach)
function lib.set_breach(ctx, sys, state)
  ctx:set_counter(sys, "breach", lib.BREACH[state] or 0, "game")
end

return lib
