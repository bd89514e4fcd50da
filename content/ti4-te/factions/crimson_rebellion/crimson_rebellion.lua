-- The Crimson Rebellion: breaches. A system's breach token is its counter `breach` (lib.breach,
-- scripts/ti4/lib.lua; scenario key `breach = "active" | "inactive"` on a system). Incursion's
-- adjacency, the Quietus's loss of unit abilities, the Revenant's deploy and the Exiles' placement
-- of a breach at the end of a combat (space or ground); Sundered's movement half (only epsilon
-- wormholes) and the hero's stored ships (scenario key stored_ships). Resonance Generator's +1
-- move: ../../breakthroughs/.
-- Tests: ../../tests/factions/crimson_rebellion.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

local QUIETUS = "ti4-te:unit/crimson_rebellion_flagship"
local REVENANT = "crimson_rebellion_mech"
-- the Exiles: how far from the combat's system each may be (in systems) and the breach it places
local EXILES = { ["ti4-te:unit/exile"] = { range = 1, breach = "inactive" },
  ["ti4-te:unit/exile_ii"] = { range = 2, breach = "active" } }

-- the system a unit or place is in (a planet's system), or nil off the board
local function system_of(ctx, loc)
  if loc == nil or loc == "reinforcements" then return nil end
  if ctx:kind(loc) == "planet" then return ctx:location(loc) end
  return ctx:kind(loc) == "system" and loc or nil
end

local function active_breaches(ctx)
  local out = {}
  for _, s in ipairs(ctx:entities { kind = "system" }) do
    if lib.breach(ctx, s) == "active" then out[#out + 1] = s end
  end
  return out
end

-- Incursion: systems that contain active breaches are adjacent to each other. The systems are
-- linked (kind "breach") once the breaches of the action are known: at activation, after the flip
-- below, and where an Exile places an active breach. Links are not undone, so a breach that turns
-- inactive later in the action (nothing here does that after activation) would keep them.
local function link_breaches(ctx)
  local list = active_breaches(ctx)
  for i = 1, #list do
    for j = i + 1, #list do
      if not ctx:linked(list[i], list[j], "breach") then ctx:link(list[i], list[j], "breach") end
    end
  end
end

local function unlinked_breaches(ctx)
  local list = active_breaches(ctx)
  for i = 1, #list do
    for j = i + 1, #list do
      if not ctx:linked(list[i], list[j], "breach") then return true end
    end
  end
  return false
end

-- Incursion's flip: when the faction's player activates a system that contains a breach, they may
-- flip it. Default policy: an inactive breach becomes active (an active one stays).
hook {
  id = "incursion_flip",
  window = "tactical_action.activation",
  source = "faction/crimson_rebellion",
  optional = true,
  condition = function(ctx, player, _, args) return args.player == player and lib.breach(ctx, args.system) ~= nil end,
  helps = function(ctx, _, _, args) return lib.breach(ctx, args.system) == "inactive" end,
  apply = function(ctx, player, _, args)
    local now = lib.breach(ctx, args.system) == "active" and "inactive" or "active"
    lib.set_breach(ctx, args.system, now)
    if ctx:tracing() then
      ctx:event("breach_flipped:" .. ctx:name(args.system) .. ":" .. now,
        ctx:name(player) .. " flips the breach in " .. lib.place(ctx, args.system) .. ": now " .. now .. " (Incursion)")
    end
  end,
}

-- Incursion's adjacency, for every player (the ability names none), after the flip: movement, Space
-- Cannon Offense from adjacent systems and retreats read ctx:adjacent.
hook {
  id = "incursion",
  window = "tactical_action.activation",
  source = "faction/crimson_rebellion",
  condition = function(ctx) return unlinked_breaches(ctx) end,
  apply = function(ctx)
    link_breaches(ctx)
    if ctx:tracing() then ctx:event("incursion", "systems that contain active breaches are adjacent (Incursion)") end
  end,
}

-- The Quietus: while it is in a system that contains an active breach, other players' units in
-- systems with active breaches (space areas and planets) lose their unit abilities. Here: Sustain
-- Damage, Anti-Fighter Barrage, Bombardment, Space Cannon, Planetary Shield and Production, the
-- unit attributes the ruleset's rolls, casualties, invasion and production read (so the C++ rounds
-- see it with no hook), and the unit's counter unit_abilities_lost (lib.has_unit_abilities) for the
-- abilities that are hooks (a Linkship's). Each unit's own values are kept in counters
-- (quietus_<attribute>, scope game) and given back when the condition ends (the Quietus destroyed
-- or gone, a breach gone).
-- Checked at activation, after movement, at the start and end of a space combat, and when the
-- Quietus is destroyed; the player's counter quietus_on says it is in force (the destroyed hooks
-- require it, so the combat rounds stay in C++ otherwise).
local ABILITIES = { "sustain_damage", "afb", "bombardment", "space_cannon", "planetary_shield", "production" }

local function quietus_in_force(ctx, player)
  for _, u in ipairs(ctx:units(player, nil, "type:flagship")) do
    if ctx:record_id(u) == QUIETUS and ctx:kind(ctx:location(u)) == "system" and lib.breach(ctx, ctx:location(u)) == "active" then
      return true
    end
  end
  return false
end

local function silence(ctx, u)
  for _, a in ipairs(ABILITIES) do
    local v = ctx:get(u, a)
    if type(v) == "boolean" then v = v and 1 or 0 end
    ctx:set_counter(u, "quietus_" .. a, v or 0, "game")
    if a == "sustain_damage" or a == "planetary_shield" then ctx:set(u, a, false) else ctx:set(u, a, 0) end
  end
  ctx:set_counter(u, "unit_abilities_lost", 1, "game")
end

local function restore(ctx, u)
  for _, a in ipairs(ABILITIES) do
    local v = ctx:counter(u, "quietus_" .. a)
    if a == "sustain_damage" or a == "planetary_shield" then ctx:set(u, a, v == 1) else ctx:set(u, a, v) end
    ctx:set_counter(u, "quietus_" .. a, 0, "game")
  end
  ctx:set_counter(u, "unit_abilities_lost", 0, "game")
end

local function quietus_update(ctx, player)
  local on = quietus_in_force(ctx, player)
  local silenced, restored = 0, 0
  for _, u in ipairs(ctx:units(nil, nil)) do
    if ctx:owner(u) ~= player then
      local sys = system_of(ctx, ctx:location(u))
      local should = on and sys ~= nil and lib.breach(ctx, sys) == "active"
      local is = ctx:counter(u, "unit_abilities_lost") == 1
      if should and not is then
        silence(ctx, u); silenced = silenced + 1
      elseif is and not should then
        restore(ctx, u); restored = restored + 1
      end
    end
  end
  ctx:set_counter(player, "quietus_on", on and 1 or 0, "game")
  if ctx:tracing() and silenced + restored > 0 then
    ctx:event("quietus:" .. ctx:name(player) .. ":" .. silenced .. ":" .. restored,
      silenced .. " units lose their unit abilities, " .. restored .. " get them back (Quietus)")
  end
end

-- after the Incursion hooks above (registration order), and at the other moments
local CHECKS = { "tactical_action.activation", "tactical_action.after_movement", "space_combat.start_of_combat" }
for _, window in ipairs(CHECKS) do
  hook {
    id = "quietus_" .. window:gsub("%.", "_"),
    window = window,
    source = "faction/crimson_rebellion",
    condition = function(ctx, player)
      return quietus_in_force(ctx, player) or ctx:counter(player, "quietus_on") > 0
    end,
    apply = function(ctx, player) quietus_update(ctx, player) end,
  }
end
for _, window in ipairs { "space_combat.unit_destroyed", "tactical_action.unit_destroyed", "invasion.unit_destroyed" } do
  hook {
    id = "quietus_" .. window:gsub("%.", "_"),
    window = window,
    source = "faction/crimson_rebellion",
    requires = { counter = "quietus_on" },
    condition = function(ctx, player, _, args) return args.player == player and ctx:record_id(args.unit) == QUIETUS end,
    apply = function(ctx, player) quietus_update(ctx, player) end,
  }
end

-- The Exiles (Exile I and Exile II): at the end of any player's space combat in the Exile's system
-- or 1 system away (Exile I: an inactive breach) or up to 2 systems away (Exile II: an active one),
-- the owner may place a breach in the combat's system, where none is. Exile II may place an
-- inactive one instead: nothing later in the action reads an inactive breach, so that choice is
-- not offered. What reads an active one later in the same action: the Revenant's deploy (Commit
-- Ground Forces), the Quietus (checked again right after), Incursion's adjacency (linked, though
-- nothing later in the action moves). The end of a ground combat: below.
local function exile_breach(ctx, player, sys)
  local best
  for _, u in ipairs(ctx:units(player, nil, "type:destroyer")) do
    local e = EXILES[ctx:record_id(u)]
    local at = system_of(ctx, ctx:location(u))
    if e and at and (best == nil or e.breach == "active") and lib.steps_between(ctx, at, sys, e.range) then best = e end
  end
  return best and best.breach
end

hook {
  id = "exile_breach",
  window = "space_combat.end_of_combat",
  source = "faction/crimson_rebellion",
  optional = true,
  condition = function(ctx, player)
    local sys = ctx:role("active_system")
    return lib.breach(ctx, sys) == nil and exile_breach(ctx, player, sys) ~= nil
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    local state = exile_breach(ctx, player, sys)
    lib.set_breach(ctx, sys, state)
    if state == "active" then link_breaches(ctx) end
    if ctx:tracing() then
      ctx:event("breach_placed:" .. ctx:name(player) .. ":" .. ctx:name(sys) .. ":" .. state,
        ctx:name(player) .. " places an " .. state .. " breach in " .. lib.place(ctx, sys) .. " (Exile)")
    end
  end,
}

hook {
  id = "quietus_space_combat_end_of_combat",
  window = "space_combat.end_of_combat",
  source = "faction/crimson_rebellion",
  condition = function(ctx, player) return quietus_in_force(ctx, player) or ctx:counter(player, "quietus_on") > 0 end,
  apply = function(ctx, player) quietus_update(ctx, player) end,
}

-- The Exiles at the end of a ground combat: "any player's combat" covers ground combats too; the
-- combat's system is its planet's. What reads a breach placed here later in the same action: the
-- Quietus (checked again at once, so another planet's ground combat in the system fights with the
-- other player's units there stripped of Sustain Damage and Planetary Shield), Incursion's
-- adjacency (linked; nothing later in the action moves) and the Quietus against Production.
hook {
  id = "exile_breach_ground",
  window = "invasion.end_of_ground_combat",
  source = "faction/crimson_rebellion",
  optional = true,
  condition = function(ctx, player, _, args)
    local sys = system_of(ctx, args.planet)
    return sys ~= nil and lib.breach(ctx, sys) == nil and exile_breach(ctx, player, sys) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local sys = system_of(ctx, args.planet)
    local state = exile_breach(ctx, player, sys)
    lib.set_breach(ctx, sys, state)
    if state == "active" then link_breaches(ctx) end
    if ctx:tracing() then
      ctx:event("breach_placed:" .. ctx:name(player) .. ":" .. ctx:name(sys) .. ":" .. state,
        ctx:name(player) .. " places an " .. state .. " breach in " .. lib.place(ctx, sys) .. " (Exile, end of a ground combat)")
    end
    if quietus_in_force(ctx, player) or ctx:counter(player, "quietus_on") > 0 then quietus_update(ctx, player) end
  end,
}

-- Sundered (the faction's movement half): the player cannot use wormholes other than epsilon
-- wormholes. In the player's own movement every other wormhole type goes into the step's
-- inactive_wormholes (as Enforced Travel Ban does for alpha and beta), so systems adjacent only
-- through identical wormholes of those types are not adjacent; epsilon wormholes still link. Its
-- retreats: a system adjacent to the active system only through such wormholes is not eligible
-- (space_combat.retreat_eligibility, which Skilled Retreat asks too). Not modelled: Space Cannon
-- Offense from a system adjacent through a wormhole (not movement; whether firing "uses" it the
-- card does not say). Its home half is below.
local NOT_EPSILON = { "alpha", "beta", "gamma", "delta" }
local WORMHOLE_ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }

-- whether systems a and b are adjacent only through identical wormholes none of them epsilon
local function only_through_other_wormholes(ctx, a, b)
  local kinds = ctx:link_kinds(a, b)
  if #kinds ~= 1 or kinds[1] ~= "wormhole" then return false end
  for _, x in ipairs(WORMHOLE_ATTRS) do
    if ctx:get(a, x) == "epsilon" then
      for _, y in ipairs(WORMHOLE_ATTRS) do
        if ctx:get(b, y) == "epsilon" then return false end
      end
    end
  end
  return true
end

hook {
  id = "sundered_retreat",
  window = "space_combat.retreat_eligibility",
  source = "faction/crimson_rebellion",
  condition = function(ctx, player, _, args)
    return args.player == player and args.eligible
      and only_through_other_wormholes(ctx, ctx:role("active_system"), args.system)
  end,
  apply = function(ctx, player, _, args)
    args.eligible = false
    if ctx:tracing() then
      ctx:event("sundered_retreat:" .. ctx:name(player) .. ":" .. ctx:name(args.system),
        ctx:name(player) .. " cannot retreat to " .. lib.place(ctx, args.system) .. " through its wormhole (Sundered)")
    end
  end,
}
hook {
  id = "sundered",
  window = "tactical_action.before_movement",
  source = "faction/crimson_rebellion",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, _, _, args)
    args.inactive_wormholes = args.inactive_wormholes or {}
    for _, w in ipairs(NOT_EPSILON) do args.inactive_wormholes[w] = true end
    if ctx:tracing() then ctx:event("sundered", "only epsilon wormholes have an effect on this movement (Sundered)") end
  end,
}

-- Sundered (the home half): other players' units that move or are placed into the player's home
-- system (lib.is_home_system: a scenario gives the faction a home tile's planet; its own, tile 118
-- Ahk Creuxx, lies in its play area, reached through epsilon wormholes) are destroyed. Three ways in
-- within a tactical action: passing through on the way to the active system (no path goes through
-- it: tactical_action.passage, below), moving in when another player activates it (the units that arrive,
-- ships and what they carry, and any other unit of theirs placed in the space area before the
-- movement step ends: destroyed at tactical_action.after_movement, before anything fights), and
-- retreating into it (space_combat.retreat: a retreat goes where the retreating player has units or
-- controls a planet and no other player has ships, so here only into a home tile of several planets
-- where the Crimson holds one and the retreating player another).
-- Units already there when the action starts cannot be another player's (they were destroyed as
-- they came), so every other player's unit in the space area then has moved or been placed in.
local function destroy_all(ctx, player, units, window, how)
  for _, u in ipairs(units) do
    local owner = ctx:owner(u)
    if ctx:tracing() then
      ctx:event("sundered_home:" .. ctx:name(owner) .. ":" .. ctx:type(u),
        ctx:name(owner) .. "'s " .. ctx:type(u) .. " " .. how .. " " .. ctx:name(player) .. "'s home system and is destroyed (Sundered)")
    end
    ctx:destroy(u, window)
  end
end


hook {
  id = "sundered_home",
  window = "tactical_action.after_movement",
  source = "faction/crimson_rebellion",
  condition = function(ctx, player, _, args)
    return lib.is_home_system(ctx, player, args.system) and #lib.other_players_units(ctx, player, args.system) > 0
  end,
  apply = function(ctx, player, _, args)
    destroy_all(ctx, player, lib.other_players_units(ctx, player, args.system), "tactical_action.unit_destroyed", "moved into")
  end,
}

-- Passing through: a ship of another player's that enters the home system on its way is destroyed
-- there and never reaches the active system, so no path through it is one (can_pass false); the
-- active system itself can still be entered (the hook above). The faction's own home, tile 118,
-- lies off the board, adjacent only through epsilon wormholes to systems adjacent to each other
-- already, so no path needs it; a stand-in home tile on a scenario's map could be passed through.
hook {
  id = "sundered_home_passage",
  window = "tactical_action.passage",
  source = "faction/crimson_rebellion",
  condition = function(ctx, player, _, args)
    return args.player ~= player and not args.active and args.can_pass and lib.is_home_system(ctx, player, args.system)
  end,
  apply = function(ctx, player, _, args)
    args.can_pass = false
    if ctx:tracing() then
      ctx:event("sundered_home_passage:" .. ctx:name(args.player) .. ":" .. ctx:name(args.system),
        ctx:name(args.player) .. "'s ships cannot pass through " .. lib.place(ctx, args.system) .. ": " .. ctx:name(player) .. "'s home system destroys them (Sundered)")
    end
  end,
}

hook {
  id = "sundered_home_retreat",
  window = "space_combat.retreat",
  source = "faction/crimson_rebellion",
  condition = function(ctx, player, _, args)
    return args.player ~= player and lib.is_home_system(ctx, player, args.system)
  end,
  apply = function(ctx, player, _, args)
    local there = {}
    for _, u in ipairs(args.units) do
      if ctx:location(u) == args.system then there[#there + 1] = u end
    end
    destroy_all(ctx, player, there, "space_combat.unit_destroyed", "retreated into")
  end,
}

-- The hero (Homesick Phantom): the ships it holds (the ones its owner produced and put on it
-- earlier, the player's counters stored_ships:<type>, scenario key `stored_ships`) come into the
-- active system at the start of a space combat its owner fights in; the card is purged (once a
-- game). Default policy: used. Its other half, putting ships produced in this action on the card,
-- happens in the Production step, after every combat of the action: not modelled (nothing later
-- in the action would read it). A space combat between two other players: not modelled (the
-- ships would make a third side).
local SHIP_TYPES = { "flagship", "war_sun", "dreadnought", "carrier", "cruiser", "destroyer", "fighter" }

local function stored_ships(ctx, player)
  local out = {}
  for _, t in ipairs(SHIP_TYPES) do
    local n = ctx:counter(player, "stored_ships:" .. t)
    if n > 0 then out[#out + 1] = { t, n } end
  end
  return out
end

hook {
  id = "homesick_phantom",
  window = "space_combat.start_of_combat",
  source = "leader/crimson_rebellion_hero",
  optional = true,
  limit = "game",
  condition = function(ctx, player)
    return (player == ctx:role("attacker") or player == ctx:role("defender")) and #stored_ships(ctx, player) > 0
  end,
  apply = function(ctx, player)
    local sys, names, keys = ctx:role("active_system"), {}, {}
    for _, e in ipairs(stored_ships(ctx, player)) do
      lib.place_units(ctx, player, e[1], e[2], sys)
      ctx:set_counter(player, "stored_ships:" .. e[1], 0, "game")
      names[#names + 1], keys[#keys + 1] = e[2] .. " " .. e[1], e[1] .. ":" .. e[2]
    end
    if ctx:tracing() then
      ctx:event("homesick_phantom:" .. ctx:name(player) .. ":" .. table.concat(keys, ","),
        ctx:name(player) .. " purges Homesick Phantom: " .. table.concat(names, ", ") .. " come into " .. lib.place(ctx, sys))
    end
  end,
}

-- The Revenant's deploy: in the Commit Ground Forces step of the owner's tactical action in a
-- system that contains an active breach, they may commit 1 mech from reinforcements, even without
-- units there. It comes into the space area before the commit (invasion.before_commit), where the
-- commit step lands it like the others; one not landed goes back to reinforcements.
local DEPLOYED = "revenant_deployed"

local function mechs_left(ctx, player)
  local rec = ctx:record(REVENANT, "unit")
  return (rec.reinforcements or 0) - ctx:count(player, nil, "type:mech")
end

hook {
  id = "revenant_deploy",
  window = "invasion.before_commit",
  source = "faction/crimson_rebellion",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args)
    return args.player == player and lib.breach(ctx, args.system) == "active"
      and lib.unit_records(ctx, player).mech == REVENANT and mechs_left(ctx, player) > 0
      and #ctx:entities { kind = "planet", location = args.system } > 0
  end,
  helps = function(ctx, player, _, args)
    for _, planet in ipairs(ctx:entities { kind = "planet", location = args.system }) do
      if ctx:owner(planet) ~= player then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    local u = lib.place_units(ctx, player, "mech", 1, args.system)[1]
    ctx:set_counter(u, DEPLOYED, 1, "action")
    if ctx:tracing() then
      ctx:event("revenant_deploy:" .. ctx:name(player) .. ":" .. ctx:name(args.system),
        ctx:name(player) .. " may commit a Revenant from reinforcements (deploy, an active breach in " .. lib.place(ctx, args.system) .. ")")
    end
  end,
}

hook {
  id = "revenant_deploy_back",
  window = "invasion.commit_ground_forces",
  source = "faction/crimson_rebellion",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    for _, u in ipairs(ctx:units(player, args.system, "type:mech")) do
      if ctx:counter(u, DEPLOYED) > 0 then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    for _, u in ipairs(ctx:units(player, args.system, "type:mech")) do
      if ctx:counter(u, DEPLOYED) > 0 then ctx:move(u, "reinforcements") end
    end
  end,
}
