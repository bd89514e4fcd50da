-- Builds the start state from a scenario. Two shapes:
--   procedure = "attack":     [attacker] and [defender] tables, one attack of attacker on defender.
--   procedure = "engagement": [[ship]] entries, each with a player, and [[ship.target]] lines
--                             giving range/arc/obstruction from that ship to enemy ships.
-- Every unknown key is rejected with the scenario line that holds it.
local combat = require "combat"

local TOP = { "ruleset", "procedure", "packs", "name", "description", "attacker", "defender", "ship", "first_player" }
local SHIP = { "name", "pilot", "initiative", "attack", "agility", "hull", "shields", "charges", "tokens", "weapons",
  "upgrades", "policy", "dice_available" }
local ATTACK_ONLY = { "range", "arc", "obstructed" }
local ENGAGEMENT_ONLY = { "player", "target" }
local TARGET = { "ship", "range", "arc", "obstructed" }
local TOKENS = { "focus", "calculate", "evade", "stress", "lock", "shields", "charges" }
local POLICY = { "focus", "calculate", "lock", "evade", "weapon", "target", "abilities" }
local POLICY_VALUES = {
  focus = { "auto", "never" }, calculate = { "auto", "never" }, evade = { "auto", "never" },
  lock = { "auto", "blanks", "blanks_and_focus", "never" }, abilities = { "always", "never" },
}

local function list(t) return table.concat(t, ", ") end
local function has(t, v)
  for _, x in ipairs(t) do if x == v then return true end end
  return false
end

local function check_keys(ctx, t, allowed, path)
  if type(t) ~= "table" then ctx:reject(path, path .. " must be a table") end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for _, k in ipairs(keys) do
    if not has(allowed, k) then
      ctx:reject(path .. "." .. k, "unknown key '" .. k .. "' in " .. path .. ", expected one of: " .. list(allowed))
    end
  end
end

local function int(ctx, v, path, lo, hi)
  if math.type(v) ~= "integer" then ctx:reject(path, path .. " must be an integer") end
  if (lo and v < lo) or (hi and v > hi) then
    ctx:reject(path, path .. " must be between " .. tostring(lo) .. " and " .. tostring(hi or "any"))
  end
  return v
end

local function names(t, path, ctx)
  if t == nil then return {} end
  if type(t) == "string" then return { t } end
  if type(t) ~= "table" then ctx:reject(path, path .. " must be a name or a list of names") end
  return t
end

-- A ship, its primary weapon, its special weapons and upgrades.
local function make_ship(ctx, t, path, player, default_name, allowed)
  check_keys(ctx, t, allowed, path)
  local name = t.name or t.pilot or default_name
  if t.pilot ~= nil and not ctx:record(t.pilot, "ship") then
    ctx:reject(path .. ".pilot", "unknown pilot '" .. tostring(t.pilot) .. "', expected one of: " .. list(ctx:records("ship")))
  end
  local ship = ctx:create { kind = "ship", type = t.pilot, owner = player, name = name }
  if t.pilot == nil then ctx:set(ship, "hull", 3) end -- a bare ship: hull 3, no shields
  for _, a in ipairs { "initiative", "attack", "agility", "hull", "shields", "charges" } do
    if t[a] ~= nil then ctx:set(ship, a, int(ctx, t[a], path .. "." .. a, 0, 99)) end
  end
  if ctx:get(ship, "attack") > 0 then
    local w = ctx:create { kind = "weapon", name = "primary", owner = player, location = ship }
    ctx:set(w, "attack", ctx:get(ship, "attack"))
    ctx:set(w, "min_range", 1)
    ctx:set(w, "max_range", 3)
    ctx:set(w, "arc", "front")
    ctx:set(w, "primary", true)
  end
  -- weapons = ["proton_torpedoes", { name = "concussion_missiles", charges = 1 }]
  for i, w in ipairs(names(t.weapons, path .. ".weapons", ctx)) do
    local wpath = path .. ".weapons." .. i
    local charges
    if type(w) == "table" then
      check_keys(ctx, w, { "name", "charges" }, wpath)
      if w.charges ~= nil then charges = int(ctx, w.charges, wpath .. ".charges", 0, 99) end
      w = w.name
    end
    if type(w) ~= "string" or not ctx:record(w, "weapon") then
      ctx:reject(wpath, "unknown weapon '" .. tostring(w) .. "', expected one of: " .. list(ctx:records("weapon")))
    end
    local e = ctx:create { kind = "weapon", type = w, owner = player, location = ship }
    if charges then ctx:set(e, "charges", charges) end
  end
  for i, u in ipairs(names(t.upgrades, path .. ".upgrades", ctx)) do
    if not ctx:record(u, "upgrade") then
      ctx:reject(path .. ".upgrades." .. i, "unknown upgrade '" .. tostring(u) .. "', expected one of: " .. list(ctx:records("upgrade")))
    end
    ctx:create { kind = "upgrade", type = u, owner = player, location = ship }
  end
  if t.tokens ~= nil then
    check_keys(ctx, t.tokens, TOKENS, path .. ".tokens")
    for _, k in ipairs { "focus", "calculate", "evade", "stress" } do
      if t.tokens[k] ~= nil then ctx:set_counter(ship, k, int(ctx, t.tokens[k], path .. ".tokens." .. k, 0, 99)) end
    end
    for _, k in ipairs { "shields", "charges" } do
      if t.tokens[k] ~= nil then ctx:set(ship, k, int(ctx, t.tokens[k], path .. ".tokens." .. k, 0, 99)) end
    end
  end
  if t.policy ~= nil then
    check_keys(ctx, t.policy, POLICY, path .. ".policy")
    for k, v in pairs(t.policy) do
      if POLICY_VALUES[k] and not has(POLICY_VALUES[k], v) then
        ctx:reject(path .. ".policy." .. k, path .. ".policy." .. k .. " must be one of: " .. list(POLICY_VALUES[k]))
      end
    end
    ctx:set_policy(player, t.policy)
  end
  if t.dice_available ~= nil then
    ctx:set_counter(player, "dice_available", int(ctx, t.dice_available, path .. ".dice_available", 1, 99))
  end
  return ship
end

local function measure(ctx, from, to, t, path)
  local range = int(ctx, t.range, path .. ".range", 0, 5)
  local arc = t.arc or "front"
  if not combat.ARCS[arc] then
    local arcs = {}
    for k in pairs(combat.ARCS) do arcs[#arcs + 1] = k end
    table.sort(arcs)
    ctx:reject(path .. ".arc", "unknown arc '" .. tostring(arc) .. "', expected one of: " .. list(arcs))
  end
  if t.obstructed ~= nil and type(t.obstructed) ~= "boolean" then
    ctx:reject(path .. ".obstructed", path .. ".obstructed must be true or false")
  end
  combat.measure(ctx, from, to, range, arc, t.obstructed == true)
end

local function set_locks(ctx, ship, t, path, by_name, default_target)
  local lock = t.tokens and t.tokens.lock
  if lock == nil then return end
  local targets
  if math.type(lock) == "integer" then
    if lock > 0 and not default_target then
      ctx:reject(path .. ".tokens.lock", "in an engagement, lock names the locked ship(s): lock = \"tie_1\"")
    end
    targets = lock > 0 and { default_target } or {}
  else
    targets = {}
    for i, n in ipairs(names(lock, path .. ".tokens.lock", ctx)) do
      if not by_name[n] then ctx:reject(path .. ".tokens.lock", "lock on unknown ship '" .. tostring(n) .. "'") end
      targets[i] = by_name[n]
    end
  end
  for _, target in ipairs(targets) do ctx:set_counter(ship, combat.lock_key(target), 1) end
end

return function(ctx, sc)
  check_keys(ctx, sc, TOP, "scenario")
  if sc.ship ~= nil then
    -- an engagement
    if sc.attacker ~= nil or sc.defender ~= nil then
      ctx:reject("ship", "a scenario has either [attacker]/[defender] (one attack) or [[ship]] (an engagement), not both")
    end
    local players, order = {}, {}
    local allowed = {}
    for _, k in ipairs(SHIP) do allowed[#allowed + 1] = k end
    for _, k in ipairs(ENGAGEMENT_ONLY) do allowed[#allowed + 1] = k end
    local ships, by_name = {}, {}
    for i, t in ipairs(sc.ship) do
      local path = "ship." .. i
      if type(t) ~= "table" or type(t.player) ~= "string" then ctx:reject(path, path .. " needs player = \"name\"") end
      if not players[t.player] then
        players[t.player] = ctx:create { kind = "player", name = t.player }
        order[#order + 1] = t.player
      end
      local ship = make_ship(ctx, t, path, players[t.player], "ship_" .. i, allowed)
      local name = ctx:name(ship)
      if by_name[name] then ctx:reject(path .. ".name", "two ships are named '" .. name .. "'; give each a name") end
      by_name[name] = ship
      ships[i] = ship
    end
    if #order ~= 2 then ctx:reject("ship", "an engagement needs ships of exactly two players, found " .. #order) end
    local first = sc.first_player or order[1]
    if not players[first] then ctx:reject("first_player", "first_player '" .. tostring(first) .. "' owns no ship") end
    ctx:set_role("first_player", players[first])
    ctx:set_role("second_player", players[first == order[1] and order[2] or order[1]])
    for i, t in ipairs(sc.ship) do
      local path = "ship." .. i
      for j, tg in ipairs(t.target or {}) do
        local tpath = path .. ".target." .. j
        check_keys(ctx, tg, TARGET, tpath)
        local other = by_name[tg.ship]
        if not other then ctx:reject(tpath .. ".ship", "unknown ship '" .. tostring(tg.ship) .. "'") end
        if ctx:owner(other) == ctx:owner(ships[i]) then ctx:reject(tpath .. ".ship", "'" .. tg.ship .. "' is a friendly ship") end
        measure(ctx, ships[i], other, tg, tpath)
      end
      set_locks(ctx, ships[i], t, path, by_name, nil)
    end
  else
    -- one attack
    if type(sc.attacker) ~= "table" then ctx:reject("attacker", "the scenario needs an [attacker] table") end
    if type(sc.defender) ~= "table" then ctx:reject("defender", "the scenario needs a [defender] table") end
    if sc.first_player ~= nil then ctx:reject("first_player", "first_player is for engagements ([[ship]])") end
    local allowed = {}
    for _, k in ipairs(SHIP) do allowed[#allowed + 1] = k end
    for _, k in ipairs(ATTACK_ONLY) do allowed[#allowed + 1] = k end
    local ap = ctx:create { kind = "player", name = "attacker" }
    local dp = ctx:create { kind = "player", name = "defender" }
    local a = make_ship(ctx, sc.attacker, "attacker", ap, "attacker_ship", allowed)
    local d = make_ship(ctx, sc.defender, "defender", dp, "defender_ship", allowed)
    if sc.attacker.range == nil then ctx:reject("attacker", "[attacker] needs range = 1, 2 or 3 (the range to the defender)") end
    measure(ctx, a, d, sc.attacker, "attacker")
    if sc.defender.range ~= nil then measure(ctx, d, a, sc.defender, "defender") end -- for a bonus attack back
    set_locks(ctx, a, sc.attacker, "attacker", { [ctx:name(d)] = d }, d)
    set_locks(ctx, d, sc.defender, "defender", { [ctx:name(a)] = a }, a)
    ctx:set_role("first_player", ap)
    ctx:set_role("second_player", dp)
    -- the report's sides (best play, simulate --best attacker, names the player by its role)
    ctx:set_role("attacker", ap)
    ctx:set_role("defender", dp)
    ctx:set_role("attacking_ship", a)
    ctx:set_role("defending_ship", d)
  end
end
