-- The Titans of Ul: Tellurian (agent). Tests: ../../tests/factions/titans.toml

local USED = "tellurian_exhausted"  -- a flag on the player: the agent is exhausted (for the game here)

-- Whether the next hit on the player at `location` would destroy a unit worth saving: no unit
-- there can absorb it with Sustain Damage (policy sustain not "never"), and the unit the player's
-- order loses first is not a fighter or an infantry.
local function worth_cancelling(ctx, player, location, ground)
  local policy = ctx:policy(player)
  local units = ctx:units(player, location, ground and "ground_force" or "ship")
  if policy.sustain ~= "never" then
    for _, u in ipairs(units) do
      if ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then return false end
    end
  end
  local order = ground and { "infantry", "mech" } or policy.hit_order or {}
  for _, t in ipairs(order) do
    for _, u in ipairs(units) do
      if ctx:type(u) == t then return t ~= "fighter" and t ~= "infantry" end
    end
  end
  return #units > 0
end

local function wants(ctx, player, location, ground)
  if ctx:flag(player, USED) then return false end
  local use = ctx:policy(player).use
  if use and (use.tellurian == "always" or use.tellurian == true) then return true end
  return worth_cancelling(ctx, player, location, ground)
end

local function cancel(ctx, player, args)
  args.hits[player] = args.hits[player] - 1
  ctx:set_flag(player, USED, "game")
end

-- a hit against the player's ships in space combat (combat rolls or Anti-Fighter Barrage)
hook {
  id = "tellurian",
  window = "space_combat.assign_hits",
  source = "leader/tellurian",
  optional = true,
  condition = function(ctx, player, _, args)
    return (args.hits[player] or 0) > 0 and wants(ctx, player, ctx:role("active_system"), false)
  end,
  apply = function(ctx, player, _, args) cancel(ctx, player, args) end,
}

-- a hit against the player's ground forces in ground combat
hook {
  id = "tellurian_ground",
  window = "invasion.assign_ground_hits",
  source = "leader/tellurian",
  optional = true,
  condition = function(ctx, player, _, args)
    return (args.hits[player] or 0) > 0 and wants(ctx, player, args.planet, true)
  end,
  apply = function(ctx, player, _, args) cancel(ctx, player, args) end,
}
