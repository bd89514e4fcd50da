-- Disable (base action card). In short: played when an invasion starts in a system holding at least
-- one opponent's PDS; for that invasion, the opponents' PDS there have neither Planetary Shield nor
-- Space Cannon. The active player plays it (the default policy: whenever
-- it applies). Its effect lasts the invasion, so the card stays face up until then: playing it
-- sets the flag "disable_played" on the card (scope action), the two hooks below read it, and
-- the card is discarded at invasion.end_of_invasion.
--   invasion.planetary_shield, args {player, planet, shielded}: a planet whose shield came only
--     from other players' PDS is not shielded.
--   invasion.before_space_cannon_defense, args {player, target, planet, can_fire}: a player whose
--     space cannon units on the planet are all PDS cannot fire.
-- A PDS is a structure with Space Cannon (generic or faction, PDS I or II).
-- Test: tests/cards/disable.toml

local PLAYED = "disable_played"

local function is_pds(ctx, u)
  return ctx:get(u, "structure") and ctx:get(u, "space_cannon") > 0
end

local function other_pds_in(ctx, player, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    for _, u in ipairs(ctx:units(nil, planet, "space_cannon")) do
      if ctx:owner(u) ~= player and is_pds(ctx, u) then return true end
    end
  end
  return false
end

-- whether every unit of `units` is a PDS
local function only_pds(ctx, units)
  for _, u in ipairs(units) do
    if not is_pds(ctx, u) then return false end
  end
  return true
end

hook {
  id = "disable",
  window = "invasion.start_of_invasion",
  source = "action_card/disable",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player == player and other_pds_in(ctx, player, args.system) end,
  apply = function(ctx, player, source, args)
    ctx:set_flag(source, PLAYED, "action")
    if ctx:tracing() then
      ctx:event("disable:" .. ctx:name(player) .. ":" .. ctx:name(args.system),
        "the other players' PDS in " .. ctx:name(args.system) .. " lose Planetary Shield and Space Cannon this invasion (Disable)")
    end
  end,
}

hook {
  id = "disable_planetary_shield",
  window = "invasion.planetary_shield",
  source = "action_card/disable",
  condition = function(ctx, player, source, args)
    return ctx:flag(source, PLAYED) and args.player == player and args.shielded
  end,
  apply = function(ctx, player, _, args)
    local shields = {}
    for _, u in ipairs(ctx:units(nil, args.planet, "planetary_shield")) do
      if ctx:owner(u) ~= player then shields[#shields + 1] = u end
    end
    if only_pds(ctx, shields) then args.shielded = false end
  end,
}

hook {
  id = "disable_space_cannon_defense",
  window = "invasion.before_space_cannon_defense",
  source = "action_card/disable",
  condition = function(ctx, player, source, args)
    return ctx:flag(source, PLAYED) and args.target == player and args.can_fire
  end,
  apply = function(ctx, _, _, args)
    if only_pds(ctx, ctx:units(args.player, args.planet, "space_cannon")) then args.can_fire = false end
  end,
}

hook {
  id = "disable_discarded",
  window = "invasion.end_of_invasion",
  source = "action_card/disable",
  discard = true,
  condition = function(ctx, _, source) return ctx:flag(source, PLAYED) end,
  apply = function() end,  -- the runtime discards the card
}
