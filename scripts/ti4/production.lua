-- TI4 tactical action, step 5: Production (shared/rules/ti4-tactical-action.md, "5. Production" and
-- the Key Concept on spending resources and influence). M.run(ctx, st) is the step.
--
-- The active player's units with Production in the active system produce up to their combined
-- production value (a space dock's: its planet's resources plus its own value); units cost their
-- record's `cost`, fighters and infantry come `units_per_cost` (2) for one cost and each counts
-- against the limit (option "fighter" is the pair; "fighter:1" one alone, for the same cost); a blockaded player (another player's ships in the system and none of his)
-- produces no ships. What to produce is asked unit by unit (decision production.produce), how to
-- pay once (production.pay: which planets to exhaust and how many trade goods). M.run returns
-- the number of units produced.

local M = {}

local lib = require "lib"  -- scripts/ti4/lib.lua

local function event(ctx, key, text)
  if ctx:tracing() then ctx:event(key, text) end
end

local function open(ctx, st, window, args)
  if st.hooked[window] == nil then st.hooked[window] = ctx:hooked(window) end
  if st.hooked[window] or ctx:tracing() then return ctx:open(window, args) end
  return 0
end

-- The unit types player `p` may produce: every unit record with a cost that no technology makes
-- (upgraded records are taken through the technology), by name; a type a technology unlocks (the
-- war sun) only when the player owns that technology or a faction unit of that type. `own` is
-- lib.unit_records(ctx, p).
function M.producible(ctx, p, own)
  local upgraded, locked, unlocked = {}, {}, {}
  for _, t in ipairs(ctx:records("technology")) do
    local rec = ctx:record(t, "technology")
    if rec.upgrade_to then upgraded[rec.upgrade_to] = true end
    if rec.unlocks then locked[rec.unlocks] = true end
  end
  for _, tech in ipairs(ctx:entities { kind = "technology", owner = p }) do
    local rec = ctx:record(ctx:type(tech), "technology")
    if rec and rec.unlocks then unlocked[rec.unlocks] = true end
  end
  local out, seen = {}, {}
  for _, name in ipairs(ctx:records("unit")) do
    local rec = not seen[name] and ctx:record(name, "unit")
    seen[name] = true
    if rec and (rec.cost or 0) > 0 and not upgraded[name] and not rec.replaces  -- a faction's unit: by its generic type
        and (not locked[name] or unlocked[name] or own[name]) then
      out[#out + 1] = { name = name, cost = rec.cost, per_cost = math.max(1, rec.units_per_cost or 1), ship = rec.ship or false,
        limit = rec.reinforcements or 0 }
    end
  end
  table.sort(out, function(a, b) return a.name < b.name end)
  return out
end

-- A unit of type `t` the player may take back to reinforcements to produce it again: one on the
-- board in a system (space area or planet) that holds none of the player's command tokens.
local function reclaimable(ctx, p, t, taken)
  for _, u in ipairs(ctx:units(p, nil, "type:" .. t)) do
    local loc = ctx:location(u)
    local sys = ctx:kind(loc) == "planet" and ctx:location(loc) or loc
    if not taken[u] and #ctx:entities { kind = "command_token", owner = p, location = sys } == 0 then return u end
  end
  return nil
end

-- How many more units of `t` the player can take from reinforcements (math.huge: no limit),
-- and the units on the board he would take back for the rest.
local function in_reinforcements(ctx, p, t, queued)
  if t.limit <= 0 then return math.huge end
  return t.limit - ctx:count(p, nil, "type:" .. t.name) - (queued[t.name] or 0)
end

-- The planets a player can exhaust for resources: controlled, ready, with resources.
local function ready_planets(ctx, p)
  local out = {}
  for _, planet in ipairs(ctx:entities { kind = "planet", owner = p }) do
    if not ctx:flag(planet, "exhausted") and ctx:get(planet, "resources") > 0 then out[#out + 1] = planet end
  end
  return out
end

-- The ways to pay `cost`: sets of ready planets plus trade goods, each as a label
-- ("archon_ren+archon_tau+tg:1"), the least wasted resources first, then the fewest trade goods,
-- then the fewest planets (Key Concept: excess resources are lost).
function M.payments(ctx, p, cost)
  local planets = ready_planets(ctx, p)
  local tg = ctx:counter(p, "trade_goods")
  local n = math.min(#planets, 12)
  local out = {}
  for mask = 0, (1 << n) - 1 do
    local sum, names, count = 0, {}, 0
    for i = 1, n do
      if mask & (1 << (i - 1)) ~= 0 then
        sum = sum + ctx:get(planets[i], "resources")
        names[#names + 1] = ctx:name(planets[i])
        count = count + 1
      end
    end
    local goods = math.max(0, cost - sum)
    -- a planet whose resources are not needed at all is not exhausted
    local needed = true
    for i = 1, n do
      if mask & (1 << (i - 1)) ~= 0 and sum - ctx:get(planets[i], "resources") >= cost then needed = false end
    end
    if goods <= tg and needed then
      if goods > 0 then names[#names + 1] = "tg:" .. goods end
      out[#out + 1] = { label = #names > 0 and table.concat(names, "+") or "nothing", waste = math.max(0, sum - cost),
        goods = goods, count = count }
    end
  end
  table.sort(out, function(a, b)
    if a.waste ~= b.waste then return a.waste < b.waste end
    if a.goods ~= b.goods then return a.goods < b.goods end
    if a.count ~= b.count then return a.count < b.count end
    return a.label < b.label
  end)
  return out
end

-- What the player can spend: the resources of ready planets and the trade goods.
local function budget(ctx, p)
  local sum = ctx:counter(p, "trade_goods")
  for _, planet in ipairs(ready_planets(ctx, p)) do sum = sum + ctx:get(planet, "resources") end
  return sum
end

-- `ability_limit`: an ability that produces outside the Production step (5 units in its system:
-- Duha Menaimon; 1 unit: Dirzuga Rophal) gives its limit, which replaces
-- the units' production values; st.player is the one producing (not always the active player).
function M.run(ctx, st, ability_limit)
  local p, sys = st.player, st.system
  -- the production value of the player's units in the system; ground forces go to the planet of
  -- a producing unit (the player's choice when there are several: production.place_ground_force)
  local limit, docks, at_dock = 0, {}, {}
  for _, u in ipairs(ctx:units(p, sys, "production")) do limit = limit + ctx:get(u, "production") end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    for _, u in ipairs(ctx:units(p, planet, "production")) do
      limit = limit + ctx:get(u, "production")
      if ctx:get(u, "structure") then limit = limit + ctx:get(planet, "resources") end
      if not at_dock[planet] then at_dock[planet] = true; docks[#docks + 1] = planet end
    end
  end
  if ability_limit then limit = ability_limit end
  -- (a hook may give production where no unit has it: Particle Synthesis)
  if limit <= 0 and not ctx:hooked("production.start_of_production") then return 0 end
  -- blockaded: another player's ships in the system and none of the player's
  local others = false
  for _, q in ipairs(st.players) do
    if q ~= p and ctx:count(q, sys, "ship") > 0 then others = true end
  end
  -- discount: resources taken off the combined cost of what is produced; cargo_outside_limit: the
  -- ground forces and fighters produced, up to the capacity of the ships with capacity produced,
  -- do not count against the limit
  local args = { player = p, system = sys, limit = limit, blockaded = others and ctx:count(p, sys, "ship") == 0, discount = 0,
    cargo_outside_limit = false }
  open(ctx, st, "production.start_of_production", args)
  limit = args.limit
  if limit <= 0 then return 0 end
  local discount = math.max(0, args.discount)
  local blockaded = args.blockaded
  event(ctx, "production:" .. ctx:name(p) .. ":" .. limit .. (blockaded and ":blockaded" or ""),
    ctx:name(p) .. " may produce up to " .. limit .. " units" .. (blockaded and " (blockaded: no ships)" or ""))

  -- what to produce, one cost at a time
  local upgrade = lib.unit_records(ctx, p)  -- the faction's units, then unit upgrades
  local types = M.producible(ctx, p, upgrade)
  local money = budget(ctx, p)
  local queue, count, cost, queued, taken, reclaim = {}, 0, 0, {}, {}, {}
  -- the units counted against the limit: the others, and the cargo (ground forces, fighters) beyond
  -- the room the ships produced give when cargo_outside_limit is set
  local others_n, cargo, room, is_cargo, cap = 0, 0, 0, {}, {}
  for _, t in ipairs(types) do
    local rec = ctx:record(t.name, "unit")
    is_cargo[t] = rec.ground_force or rec.fighter or false
    cap[t] = args.cargo_outside_limit and t.ship and not is_cargo[t] and (ctx:record(upgrade[t.name] or t.name, "unit").capacity or 0) or 0
  end
  local function count_after(t, k)
    if is_cargo[t] then return others_n + math.max(0, cargo + k - room) end
    return others_n + k + math.max(0, cargo - room - k * cap[t])
  end
  for _ = 1, 100 do
    local options, by_name = {}, {}
    if count < limit or args.cargo_outside_limit then
      for _, t in ipairs(types) do
        -- a piece limit: none left in reinforcements and none on the board to take back
        local left = in_reinforcements(ctx, p, t, queued) > 0 or reclaimable(ctx, p, t.name, taken)
        if cost + t.cost - discount <= money and not (blockaded and t.ship) and left and count_after(t, 1) <= limit then
          options[#options + 1] = t.name
          by_name[t.name] = t
          -- two units come for one cost: he may take one
          if t.per_cost > 1 then
            options[#options + 1] = t.name .. ":1"
            by_name[t.name .. ":1"] = t
          end
        end
      end
    end
    if #options == 0 then break end
    options[#options + 1] = "done"
    local choice = ctx:decide(p, "production.produce", options)
    local t = by_name[choice]
    if not t then break end
    local n, added = choice:find(":1$") and 1 or t.per_cost, 0
    while n > 1 and count_after(t, n) > limit do n = n - 1 end
    for _ = 1, n do
      if in_reinforcements(ctx, p, t, queued) <= 0 then
        -- at the piece limit, he may take a unit of that type back to reinforcements from a system
        -- without his command token
        local u = reclaimable(ctx, p, t.name, taken)
        if not u then break end
        taken[u] = true
        reclaim[#reclaim + 1] = u
      end
      queue[#queue + 1] = t
      queued[t.name] = (queued[t.name] or 0) + 1
      added = added + 1
    end
    if added == 0 then break end
    if is_cargo[t] then cargo = cargo + added else others_n, room = others_n + added, room + added * cap[t] end
    count, cost = others_n + math.max(0, cargo - room), cost + t.cost
    ctx:add_counter(p, "produced:" .. t.name, added, "action")
  end
  if #queue == 0 then return 0 end
  cost = math.max(0, cost - discount)

  -- pay: which planets to exhaust, how many trade goods
  local ways = M.payments(ctx, p, cost)
  local labels = {}
  for i, w in ipairs(ways) do labels[i] = w.label end
  local pay = ctx:decide(p, "production.pay", labels)
  local goods = 0
  for part in pay:gmatch("[^+]+") do
    local g = part:match("^tg:(%d+)$")
    if g then goods = tonumber(g)
    else
      for _, planet in ipairs(ready_planets(ctx, p)) do
        if ctx:name(planet) == part then ctx:set_flag(planet, "exhausted", "game") end
      end
    end
  end
  if goods > 0 then ctx:set_counter(p, "trade_goods", ctx:counter(p, "trade_goods") - goods, "game") end
  event(ctx, "pay:" .. ctx:name(p) .. ":" .. cost .. ":" .. pay, ctx:name(p) .. " pays " .. cost .. " resources: " .. pay)

  for _, u in ipairs(reclaim) do
    event(ctx, "reclaimed:" .. ctx:name(p) .. ":" .. ctx:type(u) .. ":" .. ctx:name(ctx:location(u)),
      ctx:name(p) .. " takes a " .. ctx:type(u) .. " back from " .. lib.place(ctx, ctx:location(u)) .. " to reinforcements")
    ctx:move(u, "reinforcements")
  end
  -- the units: ships in the space area, ground forces on the producing dock's planet
  local dock_names = {}
  for i, planet in ipairs(docks) do dock_names[i] = ctx:name(planet) end
  for _, t in ipairs(queue) do
    local rec = ctx:record(t.name, "unit")
    -- ground forces go on the planet of the space dock that made them: with docks on several
    -- planets, the player says which produced it
    local at = sys
    if rec.ground_force and #docks == 1 then
      at = docks[1]
    elseif rec.ground_force and #docks > 1 then
      local choice = ctx:decide(p, "production.place_ground_force", dock_names)
      for i, n in ipairs(dock_names) do if n == choice then at = docks[i] end end
    end
    local u = ctx:create { kind = "unit", type = t.name, owner = p, location = at }
    if upgrade[t.name] then ctx:upgrade(u, upgrade[t.name]) end
    event(ctx, "produced:" .. ctx:name(p) .. ":" .. t.name .. ":" .. ctx:name(at), ctx:name(p) .. " produces " .. (t.name:find("^[aeiou]") and "an " or "a ") .. t.name .. " in " .. lib.place(ctx, at))
    open(ctx, st, "production.unit_produced", { player = p, unit = u })
  end
  -- (added to: an ability may have produced before the Production step)
  ctx:add_metric("resources_spent", cost)
  ctx:add_metric("units_produced", #queue)
  ctx:add_metric("trade_goods_spent", goods)
  open(ctx, st, "production.end_of_production", { player = p, system = sys })
  return #queue
end

return M
