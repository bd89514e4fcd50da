-- Sardakk N'orr: the abilities that need logic (the numbers are modifiers in sardakk_norr.toml).
-- Tests: ../../tests/factions/sardakk_norr.toml

local lib = require "lib"  -- scripts/ti4/lib.lua
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua

-- a hit a hook produces against ground forces, as a ground combat hit (it may be sustained)
local GROUND_HIT = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "invasion.assign_ground_hits", destroyed_window = "invasion.unit_destroyed",
  sustained_window = "invasion.unit_sustained_damage" }
local GROUND_ORDER = { "infantry", "mech" }

-- The other player with ground forces on `planet`.
local function ground_opponent(ctx, player, planet)
  for _, q in ipairs(ctx:players()) do
    if q ~= player and ctx:count(q, planet, "ground_force") > 0 then return q end
  end
end

-- Valkyrie Exoskeleton (mech): after it uses Sustain Damage during ground combat, 1 hit against
-- the opponent's ground forces on the planet. The window is opened by ground combat hits only
-- (not bombardment or space cannon defense, whose hits it may also sustain).
hook {
  id = "valkyrie_exoskeleton",
  window = "invasion.unit_sustained_damage",
  source = "unit/sardakk_norr_mech",
  condition = function(ctx, player, source, args)
    return args.unit == source and ground_opponent(ctx, player, args.location) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local q = ground_opponent(ctx, player, args.location)
    if ctx:tracing() then
      ctx:event("valkyrie_exoskeleton:" .. ctx:name(player), ctx:name(player) .. "'s mech sustained damage: 1 hit against " .. ctx:name(q))
    end
    ctx:assign_hits(q, args.location, 1, GROUND_HIT, GROUND_ORDER, ctx:policy(q).sustain)
  end,
}

-- Valkyrie Particle Weave: after the rolls of a ground combat round, if the opponent produced 1 or
-- more hits, 1 more hit against the opponent.
hook {
  id = "valkyrie_particle_weave",
  window = "invasion.assign_ground_hits",
  source = "technology/valkyrie_particle_weave",
  condition = function(_, player, _, args) return (args.hits[player] or 0) > 0 end,
  apply = function(ctx, player, _, args)
    for _, q in ipairs(ctx:players()) do
      if q ~= player and args.hits[q] ~= nil then args.hits[q] = args.hits[q] + 1 end
    end
  end,
}

-- Exotrireme II: after a round of space combat, it may destroy itself to destroy up to 2 ships in
-- the system (lib.sacrifice_for_two: the opponent's 2 most costly; default policy: when those 2
-- cost more than the Exotrireme, or are all the ships the opponent has left; policy.use = {
-- exotrireme_ii = "always" } uses it whenever it can, "never" never).
hook(lib.sacrifice_for_two("exotrireme_ii", "unit/exotrireme_ii"))

-- Tekklar Legion (promissory note): at the start of a ground combat its holder fights in, +1 to
-- the holder's ground combat rolls; -1 to the opponent's if the opponent is Sardakk N'orr. The
-- note then goes back to the N'orr player (here: discarded).
hook {
  id = "tekklar_legion",
  window = "invasion.start_of_ground_combat",
  source = "promissory_note/tekklar_legion",
  optional = true,
  discard = true,
  condition = function(_, player, _, args) return player == args.player or player == args.opponent end,
  apply = function(ctx, player, _, args)
    ctx:activate("tekklar_legion_bonus", player, "combat")
    local opponent = player == args.player and args.opponent or args.player
    for _, f in ipairs(ctx:entities { kind = "faction", owner = opponent }) do
      if ctx:type(f) == "sardakk_norr" then ctx:activate("tekklar_legion_penalty", opponent, "combat") end
    end
  end,
}

-- ------------------------------------------------------------------ leaders

-- G'hom Sek'kus (commander): in the Commit Ground Forces step, the player may also commit at most 1
-- ground force from each planet of the active system and from each planet of adjacent systems that
-- hold none of their command tokens. Before the player commits (invasion.before_commit), 1 ground
-- force from each such planet of theirs comes to the active system's space area, where the commit
-- step lands it like the others; one not landed goes back to its planet (after the commit).
-- Default policy: when a planet of the active system is another player's or nobody's, from the
-- planets that keep a ground force.
local GHOM = "ghom_sek_kus_from"  -- counter on the ground force: the planet it came from (scope action)

local function ghom_sources(ctx, player, sys)
  local systems = { sys }
  for _, s in ipairs(galaxy.adjacent(ctx, sys, player)) do  -- as the player sees it (Void Tether)
    if ctx:kind(s) == "system" and #ctx:entities { kind = "command_token", owner = player, location = s } == 0 then systems[#systems + 1] = s end
  end
  local out = {}
  for _, s in ipairs(systems) do
    for _, planet in ipairs(ctx:entities { kind = "planet", location = s }) do
      if ctx:count(player, planet, "ground_force") >= 2 then out[#out + 1] = planet end
    end
  end
  return out
end

local function worth_invading(ctx, player, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:owner(planet) ~= player then return true end
  end
  return false
end

hook {
  id = "g_hom_sek_kus",
  window = "invasion.before_commit",
  source = "leader/g_hom_sek_kus",
  optional = true,
  condition = function(ctx, player, _, args)
    return args.player == player and #ghom_sources(ctx, player, args.system) > 0
  end,
  helps = function(ctx, player, _, args) return worth_invading(ctx, player, args.system) end,
  apply = function(ctx, player, _, args)
    for _, planet in ipairs(ghom_sources(ctx, player, args.system)) do
      local u = ctx:units(player, planet, "ground_force")[1]
      ctx:set_counter(u, GHOM, planet, "action")
      ctx:move(u, args.system)
      if ctx:tracing() then
        ctx:event("g_hom_sek_kus:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. ctx:name(planet), ctx:name(player) .. "'s " .. ctx:type(u) .. " on " .. ctx:name(planet) .. " may be committed (G'hom Sek'kus)")
      end
    end
  end,
}

hook {
  id = "g_hom_sek_kus_back",
  window = "invasion.commit_ground_forces",
  source = "leader/g_hom_sek_kus",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    for _, u in ipairs(ctx:units(player, args.system, "ground_force")) do
      if ctx:counter(u, GHOM) ~= 0 then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    for _, u in ipairs(ctx:units(player, args.system, "ground_force")) do
      local from = ctx:counter(u, GHOM)
      if from ~= 0 then ctx:move(u, from) end
    end
  end,
}

-- Sh'val, Harbinger (hero), Tekklar Conditioning: once the player's ships are in the active system,
-- they may go straight to Commit Ground Forces; then, after committing, the hero is purged and
-- every ship of theirs in the active system returns to reinforcements. Space Cannon Offense, the
-- space combat and bombardment are skipped (the action flag skip_to_commit); after the commit the
-- Sardakk ships there go back to reinforcements (not destroyed). Default policy: when another
-- player's ships there are the stronger (expected hits a round times hits to destroy) and the
-- Sardakk player has ground forces there to commit.
local SHVAL = "sh_val_harbinger"  -- a flag on the player, scope action

local function strength(ctx, player, sys)
  local hits, hp = 0, 0
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    hits = hits + ctx:get(u, "dice") * math.max(0, 11 - ctx:get(u, "combat")) / 10
    hp = hp + 1 + ((ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged")) and 1 or 0)
  end
  return hits * hp
end

hook {
  id = "sh_val_harbinger",
  window = "tactical_action.after_movement",
  source = "leader/sh_val_harbinger",
  optional = true,
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args)
    if ctx:count(player, args.system, "ground_force") == 0 then return false end
    local strongest = 0
    for _, q in ipairs(ctx:players()) do
      if q ~= player then strongest = math.max(strongest, strength(ctx, q, args.system)) end
    end
    return strongest > 0 and strongest > strength(ctx, player, args.system)
  end,
  apply = function(ctx, player)
    ctx:set_flag(player, "skip_to_commit", "action")
    ctx:set_flag(player, SHVAL, "action")
    if ctx:tracing() then ctx:event("sh_val_harbinger:" .. ctx:name(player), ctx:name(player) .. " skips to the Commit Ground Forces step (Sh'val, Harbinger)") end
  end,
}

hook {
  id = "sh_val_harbinger_return",
  window = "invasion.commit_ground_forces",
  source = "leader/sh_val_harbinger",
  discard = true,  -- purged
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(player, SHVAL) end,
  apply = function(ctx, player, _, args)
    for _, u in ipairs(ctx:units(player, args.system, "ship")) do ctx:move(u, "reinforcements") end
    for _, u in ipairs(ctx:units(player, args.system, "fighter", "ground_force")) do ctx:move(u, "reinforcements") end
    if ctx:tracing() then ctx:event("returned:" .. ctx:name(player) .. ":ships", ctx:name(player) .. "'s ships in " .. ctx:name(args.system) .. " return to reinforcements (Sh'val, Harbinger)") end
  end,
}

-- T'ro (agent): when any player's tactical action ends, the agent may be exhausted to let that
-- player put 2 infantry from reinforcements on a planet of theirs in the active system. Default
-- policy: at the end of the Sardakk player's own tactical action, on the
-- first planet they control in the active system.
hook {
  id = "t_ro",
  window = "tactical_action.end_of_turn",
  source = "leader/t_ro",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    return args.player == player and lib.controlled_planet(ctx, player, args.system) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local planet = lib.controlled_planet(ctx, player, args.system)
    lib.place_units(ctx, player, "infantry", 2, planet)
    if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":infantry:" .. ctx:name(planet), ctx:name(player) .. " places 2 infantry on " .. ctx:name(planet) .. " (T'ro)") end
  end,
}
