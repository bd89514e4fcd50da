-- The Ral Nel Consortium: Last Dispatch, Alarum, Survival Instinct, Miniaturization, the Linkships,
-- Nano-Link Permit. Tests: ../../tests/factions/ral_nel.toml
local lib = require "lib"  -- scripts/ti4/lib.lua
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua

-- Last Dispatch: when it retreats, its owner may destroy 1 ship without Sustain Damage in the
-- active system, the most costly (lib.retreat_strike).
hook(lib.retreat_strike("last_dispatch", "unit/ral_nel_flagship",
  function(ctx, u) return not ctx:get(u, "sustain_damage") end))

-- Alarum (mech): at the end of a round of a ground combat on its planet, its owner may move up to
-- 2 of their ground forces onto that planet from planets in systems adjacent to it. Used at the
-- end of a round after which the combat goes on (the opponent still has ground forces there, and
-- the Alarum is alive: its owner's forces are too); the default uses it (more forces in the
-- combat). Which forces: those with the best combat value first (a mech before infantry), the
-- adjacent systems and their planets in the galaxy's order; each Alarum there moves up to 2.
local function alarum_forces(ctx, player, planet)
  local out = {}
  for _, sys in ipairs(ctx:adjacent(ctx:location(planet))) do
    for _, p in ipairs(ctx:entities { kind = "planet", location = sys }) do
      for _, u in ipairs(ctx:units(player, p, "ground_force")) do out[#out + 1] = u end
    end
  end
  -- stable: equal combat values keep the order found
  for i = 2, #out do
    local u, j = out[i], i - 1
    while j >= 1 and (ctx:get(out[j], "combat") or 10) > (ctx:get(u, "combat") or 10) do
      out[j + 1] = out[j]
      j = j - 1
    end
    out[j + 1] = u
  end
  return out
end

hook {
  id = "alarum",
  window = "invasion.end_of_ground_round",
  source = "unit/ral_nel_mech",
  optional = true,
  limit = "round",
  condition = function(ctx, player, source, args)
    if player ~= args.player and player ~= args.opponent then return false end
    if ctx:location(source) ~= args.planet then return false end
    local enemy = player == args.player and args.opponent or args.player
    return ctx:count(enemy, args.planet, "ground_force") > 0 and #alarum_forces(ctx, player, args.planet) > 0
  end,
  apply = function(ctx, player, _, args)
    local forces = alarum_forces(ctx, player, args.planet)
    for i = 1, math.min(2, #forces) do
      local u = forces[i]
      if ctx:tracing() then
        ctx:event("alarum:" .. ctx:name(player) .. ":" .. ctx:type(u),
          ctx:name(player) .. "'s " .. ctx:type(u) .. " moves from " .. lib.place(ctx, ctx:location(u)) .. " to " .. lib.place(ctx, args.planet) .. " (Alarum)")
      end
      ctx:move(u, args.planet)
    end
  end,
}

-- Miniaturization: the faction's structures in a space area (carried there by its ships) have
-- their unit abilities off. At the first window of any tactical action the owner's structures in
-- space areas lose Space Cannon, Planetary Shield and Production (attributes set to none, their
-- own Space Cannon values kept in counters on the unit for the Linkships below). Their transport
-- and their placing onto planets at the end of the action are not modelled (README).
local SPACE_CANNON_ATTRS = { "space_cannon", "space_cannon_dice", "space_cannon_range" }

local function in_space(ctx, u) return ctx:kind(ctx:location(u)) == "system" end

local function space_structures(ctx, player)
  local out = {}
  for _, u in ipairs(ctx:units(player, nil, "structure")) do
    if in_space(ctx, u) and ctx:counter(u, "miniaturized") == 0 then out[#out + 1] = u end
  end
  return out
end

hook {
  id = "miniaturization",
  window = "tactical_action.activation",
  source = "faction/ral_nel",
  condition = function(ctx, player) return #space_structures(ctx, player) > 0 end,
  apply = function(ctx, player)
    for _, u in ipairs(space_structures(ctx, player)) do
      for _, a in ipairs(SPACE_CANNON_ATTRS) do ctx:set_counter(u, "miniaturized_" .. a, ctx:get(u, a) or 0, "game") end
      ctx:set_counter(u, "miniaturized", 1, "game")
      for _, a in ipairs(SPACE_CANNON_ATTRS) do ctx:set(u, a, 0) end
      ctx:set(u, "production", 0)
      ctx:set(u, "planetary_shield", false)
      if ctx:tracing() then
        ctx:event("miniaturized:" .. ctx:name(player) .. ":" .. ctx:type(u),
          ctx:name(player) .. "'s " .. ctx:type(u) .. " in the space area of " .. lib.place(ctx, ctx:location(u)) .. " cannot use its unit abilities (Miniaturization)")
      end
    end
  end,
}

-- Linkship I / Linkship II (destroyer): it may use the Space Cannon of one of its owner's
-- structures in its space area (so a structure there by Miniaturization, which cannot fire
-- itself). Linkship I: each structure once (each Linkship takes a different one); Linkship II:
-- any number of Linkships may use the same one. After movement (so in every system where Space
-- Cannon Offense may fire from), each Linkship sharing a space area with such a structure takes
-- its Space Cannon values (value, dice, reach into adjacent systems), its own kept in counters;
-- the procedure's Space Cannon Offense then rolls it as any unit (decision
-- tactical_action.use_space_cannon, whether to fire). Which structure: in the active system the
-- best value, then the most dice; next door one that reaches first. Space Cannon Defense fires
-- from planets, so a Linkship in space never fires it. How long: the card lets the Linkship use
-- the structure's ability, it gives it no ability of its own; the ability is used in Space Cannon
-- Offense, the only step a unit in a space area uses Space Cannon in. So once that step is over
-- (tactical_action.after_space_cannon_offense) each Linkship has its own values back. A Linkship
-- that lost its unit abilities (the Quietus: lib.has_unit_abilities) lends itself nothing.
local LINKSHIP, LINKSHIP_II = "ti4-te:unit/linkship", "ti4-te:unit/linkship_ii"

local function borrowable(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "structure")) do
    if ctx:counter(u, "miniaturized") == 1 and ctx:counter(u, "miniaturized_space_cannon") > 0 then out[#out + 1] = u end
  end
  local active = sys == ctx:role("active_system")
  local function key(u)
    local reach = (not active and ctx:counter(u, "miniaturized_space_cannon_range") > 0) and 0 or 1
    return reach * 10000 + ctx:counter(u, "miniaturized_space_cannon") * 100 - ctx:counter(u, "miniaturized_space_cannon_dice")
  end
  table.sort(out, function(a, b) return key(a) < key(b) end)  -- (ties keep no order: the values are equal)
  return out
end

local function linkships(ctx, player)
  local out = {}
  for _, u in ipairs(ctx:units(player, nil, "ship")) do
    local r = ctx:record_id(u)
    if (r == LINKSHIP or r == LINKSHIP_II) and in_space(ctx, u) and ctx:counter(u, "linked") == 0
      and lib.has_unit_abilities(ctx, u)
      and #borrowable(ctx, player, ctx:location(u)) > 0 then
      out[#out + 1] = u
    end
  end
  return out
end

hook {
  id = "linkship",
  window = "tactical_action.after_movement",
  source = "faction/ral_nel",
  condition = function(ctx, player) return #linkships(ctx, player) > 0 end,
  apply = function(ctx, player)
    local used = {}  -- Linkship I: structures already triggered
    for _, ship in ipairs(linkships(ctx, player)) do
      local once = ctx:record_id(ship) == LINKSHIP
      for _, s in ipairs(borrowable(ctx, player, ctx:location(ship))) do
        if not (once and used[s]) then
          used[s] = true
          for _, a in ipairs(SPACE_CANNON_ATTRS) do
            ctx:set_counter(ship, "linkship_own_" .. a, ctx:get(ship, a) or 0, "action")
            ctx:set(ship, a, ctx:counter(s, "miniaturized_" .. a))
          end
          ctx:set_counter(ship, "linked", 1, "action")
          if ctx:tracing() then
            ctx:event("linkship:" .. ctx:name(player) .. ":" .. ctx:type(s),
              ctx:name(player) .. "'s " .. ctx:type(ship) .. " in " .. lib.place(ctx, ctx:location(ship)) .. " uses the Space Cannon of its "
              .. ctx:type(s) .. " (" .. ctx:counter(s, "miniaturized_space_cannon") .. " x" .. ctx:counter(s, "miniaturized_space_cannon_dice") .. ")")
          end
          break
        end
      end
    end
  end,
}

local function linked(ctx, player)
  local out = {}
  for _, u in ipairs(ctx:units(player, nil, "ship")) do
    if ctx:counter(u, "linked") == 1 then out[#out + 1] = u end
  end
  return out
end

hook {
  id = "linkship_end",
  window = "tactical_action.after_space_cannon_offense",
  source = "faction/ral_nel",
  condition = function(ctx, player) return #linked(ctx, player) > 0 end,
  apply = function(ctx, player)
    for _, ship in ipairs(linked(ctx, player)) do
      for _, a in ipairs(SPACE_CANNON_ATTRS) do
        ctx:set(ship, a, ctx:counter(ship, "linkship_own_" .. a))
        ctx:set_counter(ship, "linkship_own_" .. a, 0, "action")
      end
      ctx:set_counter(ship, "linked", 0, "action")
      if ctx:tracing() then
        ctx:event("linkship_end:" .. ctx:name(player) .. ":" .. ctx:type(ship) .. ":" .. ctx:get(ship, "space_cannon"),
          ctx:name(player) .. "'s " .. ctx:type(ship) .. " no longer uses its structure's Space Cannon (Space Cannon Offense is over)")
      end
    end
  end,
}

-- The systems adjacent to `active` (as `player` sees adjacency: galaxy.adjacent) that hold none
-- of `player`'s command tokens: where Survival Instinct and Nano-Link Permit move units from.
local function untokened_neighbours(ctx, player, active)
  local out = {}
  for _, sys in ipairs(galaxy.adjacent(ctx, active, player)) do
    if ctx:kind(sys) == "system" and #ctx:entities { kind = "command_token", owner = player, location = sys } == 0 then
      out[#out + 1] = sys
    end
  end
  return out
end

-- Survival Instinct: once any player has activated a system holding the Ral Nel's ships, the Ral
-- Nel may bring up to 2 of its ships in from neighbouring systems free of its command tokens.
-- At tactical_action.activation; the ships moved are those that roll the most expected hits in a
-- combat round first (combat value and dice), then the most costly (the first found among
-- equals), alone (they carry nothing: the ability moves ships), anomalies not asked (README).
-- Excess fighters and ground forces left behind are removed (capacity). The default uses it when
-- another player activated the system (a defence: more ships in the combat); `use =
-- { survival_instinct = "always" }` also when the Ral Nel is the active player, whose own
-- movement follows.
local function instinct_ships(ctx, player, active)
  local out = {}
  for _, sys in ipairs(untokened_neighbours(ctx, player, active)) do
    for _, u in ipairs(ctx:units(player, sys, "ship")) do out[#out + 1] = u end
  end
  return out
end

hook {
  id = "survival_instinct",
  window = "tactical_action.activation",
  source = "faction/ral_nel",
  optional = true,
  condition = function(ctx, player, _, args)
    return ctx:count(player, args.system, "ship") > 0 and #instinct_ships(ctx, player, args.system) > 0
  end,
  helps = function(_, player, _, args) return args.player ~= player end,
  apply = function(ctx, player, _, args)
    local ships, left = instinct_ships(ctx, player, args.system), {}
    local function hits(u)
      local c = ctx:get(u, "combat") or 0
      return c > 0 and (ctx:get(u, "dice") or 1) * math.max(0, 11 - c) or 0
    end
    for i = 2, #ships do  -- stable: equal ships keep the order found
      local u, j = ships[i], i - 1
      while j >= 1 and (hits(ships[j]) < hits(u) or (hits(ships[j]) == hits(u) and lib.unit_cost(ctx, ships[j]) < lib.unit_cost(ctx, u))) do
        ships[j + 1] = ships[j]
        j = j - 1
      end
      ships[j + 1] = u
    end
    for i = 1, math.min(2, #ships) do
      local u = ships[i]
      local from = ctx:location(u)
      left[#left + 1] = from
      if ctx:tracing() then
        ctx:event("survival_instinct:" .. ctx:name(player) .. ":" .. ctx:type(u),
          ctx:name(player) .. "'s " .. ctx:type(u) .. " moves from " .. lib.place(ctx, from) .. " to " .. lib.place(ctx, args.system) .. " (Survival Instinct)")
      end
      ctx:move(u, args.system)
    end
    for _, sys in ipairs(left) do lib.check_capacity(ctx, player, sys) end
  end,
}

-- Nano-Link Permit (the Ral Nel's promissory note, held by another player): after its holder
-- activates a system, they may move their structures from adjacent systems without their command
-- tokens onto planets they control in the active system; then the note goes back (here: discarded).
-- At tactical_action.activation, before movement, so a PDS moved in fires Space Cannon Offense
-- from the active system and a space dock there produces. Which: every structure of the holder on
-- a planet of those systems, onto the holder's planets in the active system in their order, as
-- long as a planet has room (at most 2 PDS and 1 space dock). The default uses it when one of
-- them has Space Cannon and another player has ships in the active system.
local PER_PLANET = { pds = 2, space_dock = 1 }

local function permit_moves(ctx, player, active)
  local targets = {}
  for _, planet in ipairs(ctx:entities { kind = "planet", location = active }) do
    if ctx:owner(planet) == player then targets[#targets + 1] = planet end
  end
  if #targets == 0 then return {} end
  local room, out = {}, {}
  for _, sys in ipairs(untokened_neighbours(ctx, player, active)) do
    for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
      for _, u in ipairs(ctx:units(player, planet, "structure")) do
        local t = ctx:type(u)
        for _, target in ipairs(targets) do
          local key = ctx:name(target) .. ":" .. t
          if room[key] == nil then room[key] = (PER_PLANET[t] or math.huge) - #ctx:units(player, target, "type:" .. t) end
          if room[key] > 0 then
            room[key] = room[key] - 1
            out[#out + 1] = { u, target }
            break
          end
        end
      end
    end
  end
  return out
end

hook {
  id = "nano_link_permit",
  window = "tactical_action.activation",
  source = "promissory_note/nano_link_permit",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player == player and #permit_moves(ctx, player, args.system) > 0 end,
  helps = function(ctx, player, _, args)
    if not lib.other_ships(ctx, player, args.system) then return false end
    for _, m in ipairs(permit_moves(ctx, player, args.system)) do
      if (ctx:get(m[1], "space_cannon") or 0) > 0 then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    for _, m in ipairs(permit_moves(ctx, player, args.system)) do
      if ctx:tracing() then
        ctx:event("nano_link_permit:" .. ctx:name(player) .. ":" .. ctx:type(m[1]),
          ctx:name(player) .. "'s " .. ctx:type(m[1]) .. " moves from " .. lib.place(ctx, ctx:location(m[1])) .. " to " .. lib.place(ctx, m[2]) .. " (Nano-Link Permit)")
      end
      ctx:move(m[1], m[2])
    end
  end,
}

-- Watchful Ojz (commander): when its owner announces a retreat, up to 2 of their ships retreat at
-- once from the active system to an adjacent system without other players' ships, where a command
-- token from their reinforcements is placed (none left there: none placed). At
-- space_combat.retreat_announced: the ships leave before the round's rolls (the rest of the
-- fleet retreats at the end of the round as usual; with 2 ships or fewer none is left, and the
-- combat ends with the round). Which: the 2 most costly (the first found among equals), alone
-- (their fighters and ground forces go with the rest of the fleet, which may lack the room); where:
-- the first such system in adjacency order, the system's anomalies not asked (README). The window
-- space_combat.retreat opens for them, so Last Dispatch's strike follows its own retreat. The
-- default uses it (optional: its owner chose to retreat).
local function ojz_destination(ctx, player, sys)
  for _, s in ipairs(galaxy.adjacent(ctx, sys, player)) do
    if ctx:kind(s) == "system" and not lib.other_ships(ctx, player, s) then return s end
  end
  return nil
end

hook {
  id = "watchful_ojz",
  window = "space_combat.retreat_announced",
  source = "leader/watchful_ojz",
  optional = true,
  condition = function(ctx, player, _, args)
    local sys = ctx:role("active_system")
    return args.player == player and ctx:flag(player, "retreat_announced") and ctx:count(player, sys, "ship") > 0
      and ojz_destination(ctx, player, sys) ~= nil
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    local dest = ojz_destination(ctx, player, sys)
    local ships, moved = ctx:units(player, sys, "ship"), {}
    for _ = 1, 2 do
      local u = lib.most_costly(ctx, ships, function(v)
        for _, m in ipairs(moved) do if m == v then return false end end
        return ctx:get(v, "move") > 0
      end)
      if not u then break end
      moved[#moved + 1] = u
    end
    if #moved == 0 then return end
    for _, u in ipairs(moved) do ctx:move(u, dest) end
    if ctx:tracing() then
      ctx:event("watchful_ojz:" .. ctx:name(player) .. ":" .. ctx:name(dest),
        ctx:name(player) .. " retreats " .. #moved .. " ships to " .. lib.place(ctx, dest) .. " at once (Watchful Ojz)")
    end
    if #ctx:entities { kind = "command_token", owner = player, location = dest } == 0 and ctx:get(player, "reinforcement_tokens") > 0 then
      ctx:set(player, "reinforcement_tokens", ctx:get(player, "reinforcement_tokens") - 1)
      ctx:create { kind = "command_token", owner = player, location = dest }
    end
    ctx:open("space_combat.retreat", { player = player, system = dest, units = moved })
  end,
}
