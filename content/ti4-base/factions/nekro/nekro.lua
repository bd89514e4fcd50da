-- The Nekro Virus: The Alastor, Mordred, Technological Singularity (with Valefar Assimilator X and
-- Y), Antivirus. Tests: ../../tests/factions/nekro.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- ------------------------------------------------------------------ The Alastor (flagship)

-- The Alastor: when a space combat starts, any of the Nekro ground forces in its system may fight
-- in it as ships. The ground forces in the space area of the flagship's system (default: all of
-- them) are ships for the combat: they roll their combat value in each round (combat rolls: what
-- modifies combat rolls modifies theirs) and take hits by the player's hit order (the default order
-- loses infantry after fighters and mechs after cruisers). At the end of the combat (before
-- capacity is checked), those left are ground forces again.
local ALASTOR = "alastor"  -- a flag on the ground force, scope action

hook {
  id = "the_alastor",
  window = "space_combat.start_of_combat",
  source = "unit/nekro_flagship",
  optional = true,
  condition = function(ctx, player, source)
    local sys = ctx:role("active_system")
    return ctx:location(source) == sys and ctx:count(player, sys, "ground_force") > 0
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    local n = 0
    for _, u in ipairs(ctx:units(player, sys, "ground_force")) do
      ctx:set(u, "ship", true)
      ctx:set_flag(u, ALASTOR, "action")
      n = n + 1
    end
    if ctx:tracing() then ctx:event("the_alastor:" .. ctx:name(player) .. ":" .. n, n .. " of " .. ctx:name(player) .. "'s ground forces fight as ships (The Alastor)") end
  end,
}

local function ground_forces_again(ctx, units)
  for _, u in ipairs(units) do
    if ctx:flag(u, ALASTOR) then ctx:set(u, "ship", false) end
  end
end

hook {
  id = "the_alastor_end",
  window = "space_combat.end_of_combat",
  source = "faction/nekro",
  apply = function(ctx, player) ground_forces_again(ctx, ctx:units(player, ctx:role("active_system"), "ground_force")) end,
}

hook {
  id = "the_alastor_destroyed",
  window = "space_combat.unit_destroyed",
  source = "faction/nekro",
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(args.unit, ALASTOR) end,
  apply = function(ctx, _, _, args) ground_forces_again(ctx, { args.unit }) end,
}

-- ------------------------------------------------------------------ Mordred (mech)

-- Mordred: against an opponent with an X or Y assimilator token on one of their technologies, this
-- mech rolls at +2 in combat. (the flag assimilator_token on a technology: the scenario's
-- assimilator_tokens, or Technological Singularity below) The +2 (nekro.toml, the Nekro mechs'
-- ground combat rolls; their combat rolls when a mech takes part in a space combat) is switched on
-- at the start of each combat, ground or space.
local function has_token(ctx, q)
  for _, t in ipairs(ctx:entities { kind = "technology", owner = q }) do
    if ctx:flag(t, "assimilator_token") then return true end
  end
  return false
end

hook {
  id = "mordred",
  window = "invasion.start_of_ground_combat",
  source = "faction/nekro",
  condition = function(ctx, player, _, args)
    if player ~= args.player and player ~= args.opponent then return false end
    local opponent = player == args.player and args.opponent or args.player
    return has_token(ctx, opponent) and ctx:count(player, args.planet, "type:mech") > 0
  end,
  apply = function(ctx, player) ctx:activate("mordred_bonus", player, "combat") end,
}

hook {
  id = "mordred_space",
  window = "space_combat.start_of_combat",
  source = "faction/nekro",
  condition = function(ctx, player)
    local a, d, sys = ctx:role("attacker", "defender", "active_system")
    if player ~= a and player ~= d then return false end
    return has_token(ctx, player == a and d or a) and ctx:count(player, sys, "type:mech") > 0
  end,
  apply = function(ctx, player) ctx:activate("mordred_space_bonus", player, "combat") end,
}

-- ------------------------------------------------------------------ Technological Singularity

-- Technological Singularity: once in each combat, when an opponent's unit is destroyed, the Nekro
-- player may take one of that opponent's technologies, prerequisites ignored. Valefar Assimilator X
-- / Y: instead of gaining another player's technology through a faction ability, the Nekro player
-- may put the X or Y token on a faction technology of that player; while it is there, the matching
-- Assimilator card has that technology's ability. In a space combat and in a ground combat (the
-- combat's round counter is set), against an opponent without Antivirus in play. What is gained:
-- the default policy takes, among the opponent's technologies the Nekro player does not have, a
-- unit upgrade of a type the Nekro player has in this combat (the type with the most units there),
-- else a faction technology through a free assimilator (not a unit upgrade: the Nekro player has no
-- such faction unit), else the first other technology by name. A unit upgrade takes effect at once
-- on the Nekro player's units of its type; a copied faction technology's hooks fire for the Nekro
-- player.
local function owned(ctx, player, t) return #ctx:entities { kind = "technology", owner = player, type = t } > 0 end

local function free_assimilator(ctx, player)
  for _, name in ipairs { "valefar_assimilator_x", "valefar_assimilator_y" } do
    for _, e in ipairs(ctx:entities { kind = "technology", owner = player, type = name }) do
      if ctx:counter(e, "assimilated") == 0 then return e end
    end
  end
  return nil
end

-- the technology to gain from `opponent`, and whether it takes an assimilator; nil: none
local function choice(ctx, player, opponent, location)
  local upgrades, faction_techs, others = {}, {}, {}
  for _, e in ipairs(ctx:entities { kind = "technology", owner = opponent }) do
    local t = ctx:type(e)
    local rec = ctx:record(t, "technology")
    if rec and not owned(ctx, player, t) then
      if rec.faction then
        if not rec.upgrades and free_assimilator(ctx, player) then faction_techs[#faction_techs + 1] = { t, e } end
      elseif rec.upgrades then
        local n = ctx:count(player, location, "type:" .. rec.upgrades)
        if n > 0 then upgrades[#upgrades + 1] = { t, e, n } end
      else
        others[#others + 1] = { t, e }
      end
    end
  end
  table.sort(upgrades, function(a, b) if a[3] ~= b[3] then return a[3] > b[3] end return a[1] < b[1] end)
  table.sort(faction_techs, function(a, b) return a[1] < b[1] end)
  table.sort(others, function(a, b) return a[1] < b[1] end)
  if upgrades[1] then return upgrades[1][1], nil end
  if faction_techs[1] then return faction_techs[1][1], faction_techs[1][2] end
  if others[1] then return others[1][1], nil end
  return nil
end

local function in_combat(ctx, location)
  return location ~= nil and ctx:counter(location, "round") > 0
end

local function gain(ctx, player, opponent, location)
  local t, token_on = choice(ctx, player, opponent, location)
  if not t then return end
  ctx:create { kind = "technology", type = t, owner = player }
  local rec = ctx:record(t, "technology")
  if token_on then
    ctx:set_flag(token_on, "assimilator_token", "game")
    ctx:set_counter(free_assimilator(ctx, player), "assimilated", 1, "game")
  elseif rec.upgrades then
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player, type = rec.upgrades }) do lib.upgrade(ctx, u, rec.upgrade_to) end
  end
  if ctx:tracing() then
    ctx:event("technological_singularity:" .. ctx:name(player) .. ":" .. t, ctx:name(player) .. " gains " .. t .. " from " .. ctx:name(opponent)
      .. (token_on and " (an assimilator token placed on it)" or "") .. " (Technological Singularity)")
  end
end

for _, w in ipairs { { "technological_singularity", "space_combat.unit_destroyed" },
  { "technological_singularity_ground", "invasion.unit_destroyed" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "faction/nekro",
    optional = true,
    limit = "combat",
    condition = function(ctx, player, _, args)
      if args.player == player or ctx:flag(args.player, "antivirus") then return false end
      return in_combat(ctx, args.location) and choice(ctx, player, args.player, args.location) ~= nil
    end,
    apply = function(ctx, player, _, args) gain(ctx, player, args.player, args.location) end,
  }
end

-- Antivirus (promissory note): played face up when a combat starts; while its holder keeps it in
-- play, Technological Singularity cannot be used against them, and it goes back to the Nekro player
-- when the holder activates a system holding a Nekro unit. Played by its holder at the start
-- of a space or ground combat against the Nekro player, unless the holder is the active player (who
-- activated the Nekro player's system and so would return it at once); the flag antivirus stays on
-- the holder for the game.
local function nekro_opponent(ctx, player, opponent)
  return #ctx:entities { kind = "faction", owner = opponent, type = "nekro" } > 0 and player ~= ctx:role("active_player")
end

hook {
  id = "antivirus",
  window = "space_combat.start_of_combat",
  source = "promissory_note/antivirus",
  condition = function(ctx, player)
    return (player == ctx:role("attacker") or player == ctx:role("defender")) and nekro_opponent(ctx, player, lib.opponent(ctx, player))
  end,
  apply = function(ctx, player) ctx:set_flag(player, "antivirus", "game") end,
}

hook {
  id = "antivirus_ground",
  window = "invasion.start_of_ground_combat",
  source = "promissory_note/antivirus",
  condition = function(ctx, player, _, args)
    if player ~= args.player and player ~= args.opponent then return false end
    return nekro_opponent(ctx, player, player == args.player and args.opponent or args.player)
  end,
  apply = function(ctx, player) ctx:set_flag(player, "antivirus", "game") end,
}
