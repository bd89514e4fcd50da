-- Decoy Operation (Prophecy of Kings action card). In short: when another player activates a system
-- holding one of your structures, up to 2 of your ground forces are lifted from anywhere on the
-- board onto a planet you control in that system. Window: tactical_action.activation, args {player,
-- system} (player: the active player). Which ground forces: up to 2 of the holder's ground forces
-- on the board outside the active system's planets, mechs first (they sustain), then infantry, in
-- the order they entered the game. Which planet: decision decoy_operation.planet, the options best
-- first: the planet the holder controls there with a structure and the fewest of their ground
-- forces, then the others.
-- Default policy: played whenever it can move a ground force (policy.use = { decoy_operation =
-- "never" } keeps it). Test: tests/cards/decoy_operation.toml

local RANK = { mech = 1, infantry = 2 }

local function planets_of(ctx, sys) return ctx:entities { kind = "planet", location = sys } end

-- The holder's planets in the active system, best first (see above).
local function destinations(ctx, player, sys)
  local out = {}
  for _, planet in ipairs(planets_of(ctx, sys)) do
    if ctx:owner(planet) == player then out[#out + 1] = planet end
  end
  table.sort(out, function(a, b)
    local sa, sb = ctx:count(player, a, "structure") > 0, ctx:count(player, b, "structure") > 0
    if sa ~= sb then return sa end
    local na, nb = ctx:count(player, a, "ground_force"), ctx:count(player, b, "ground_force")
    if na ~= nb then return na < nb end
    return a < b
  end)
  return out
end

-- The holder's ground forces elsewhere on the board, in the order they would be taken.
local function candidates(ctx, player, sys)
  local here = { [sys] = true }
  for _, planet in ipairs(planets_of(ctx, sys)) do here[planet] = true end
  local out = {}
  for _, u in ipairs(ctx:units(player, nil, "ground_force")) do
    if not here[ctx:location(u)] then out[#out + 1] = u end
  end
  table.sort(out, function(a, b)
    local ra, rb = RANK[ctx:type(a)] or 3, RANK[ctx:type(b)] or 3
    if ra ~= rb then return ra < rb end
    return a < b
  end)
  return out
end

local function has_structure(ctx, player, sys)
  if ctx:count(player, sys, "structure") > 0 then return true end
  for _, planet in ipairs(planets_of(ctx, sys)) do
    if ctx:count(player, planet, "structure") > 0 then return true end
  end
  return false
end

hook {
  id = "decoy_operation",
  window = "tactical_action.activation",
  source = "action_card/decoy_operation",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    return args.player ~= player and has_structure(ctx, player, args.system)
      and #destinations(ctx, player, args.system) > 0 and #candidates(ctx, player, args.system) > 0
  end,
  apply = function(ctx, player, _, args)
    local sys = args.system
    local planets, names = destinations(ctx, player, sys), {}
    for i, planet in ipairs(planets) do names[i] = ctx:name(planet) end
    local choice = ctx:decide(player, "decoy_operation.planet", names)
    local dest = planets[1]
    for i, n in ipairs(names) do if n == choice then dest = planets[i] end end
    local units = candidates(ctx, player, sys)
    for i = 1, math.min(2, #units) do
      local u = units[i]
      if ctx:tracing() then
        ctx:event("decoy_operation:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. ctx:name(dest),
          ctx:name(player) .. "'s " .. ctx:type(u) .. " from " .. ctx:name(ctx:location(u)) .. " is placed on " .. ctx:name(dest) .. " (Decoy Operation)")
      end
      ctx:move(u, dest)
    end
  end,
}
