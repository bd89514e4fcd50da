-- The Ghosts of Creuss: Dimensional Splicer, Quantum Entanglement, Slipstream, the Hil Colish's
-- delta wormhole, Emissary Taivra, Sai Seravus, the Icarus Drive. Tests: ../../tests/factions/creuss.toml
--
-- Wormhole adjacency is links of kind "wormhole" between systems (galaxy.lua links the systems
-- whose tiles share a wormhole type); the movement abilities below add such links for the rest of
-- the run (a run is one tactical action). Links are the board's: for that action they also serve
-- another player (a retreat from the active system), a simplification.

local lib = require "lib"  -- scripts/ti4/lib.lua

local WORMHOLE_ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }

-- the wormhole types of a system, as a set
local function wormholes(ctx, sys)
  local out = {}
  for _, attr in ipairs(WORMHOLE_ATTRS) do
    local w = ctx:get(sys, attr)
    if w then out[w] = true end
  end
  return out
end

-- the systems that contain a wormhole of one of `types` (a set; nil: any type)
local function systems_with(ctx, types)
  local out = {}
  for _, sys in ipairs(ctx:entities { kind = "system" }) do
    for w in pairs(wormholes(ctx, sys)) do
      if not types or types[w] then out[#out + 1] = sys; break end
    end
  end
  return out
end

-- links `sys` with each of `others` (kind wormhole), unless adjacent already
local function link_all(ctx, sys, others)
  for _, o in ipairs(others) do
    if o ~= sys and not ctx:is_adjacent(sys, o) then ctx:link(sys, o, "wormhole") end
  end
end

local function is_flagship(ctx, u)
  return ctx:record_id(u):find("creuss_flagship", 1, true) ~= nil
end

-- the Hil Colish's systems: each contains a delta wormhole
local function flagship_systems(ctx, player)
  local out = {}
  for _, u in ipairs(ctx:units(player, nil, "type:flagship")) do
    if is_flagship(ctx, u) and ctx:kind(ctx:location(u)) == "system" then out[#out + 1] = ctx:location(u) end
  end
  return out
end

-- ------------------------------------------------------------------ Dimensional Splicer

-- Hil Colish: when a space combat starts in a wormhole system where the Creuss player has ships,
-- they may make 1 hit and choose which of the opponent's ships takes it. (the Hil Colish's system
-- contains a delta wormhole) The Creuss player picks the ship: the costliest one the hit destroys
-- (one that cannot use Sustain Damage, or is damaged), else the costliest one; the owner may still
-- use its Sustain Damage (their sustain policy).
local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }
-- per type: the spec of a hit on a unit of that type, and that type as a hit order (made at load)
local SPLICER_TARGET, ONLY = {}, {}
for _, t in ipairs { "fighter", "destroyer", "cruiser", "carrier", "dreadnought", "flagship", "war_sun", "infantry", "mech" } do
  local spec = { types = { t } }
  for k, v in pairs(HITS) do spec[k] = v end
  SPLICER_TARGET[t], ONLY[t] = spec, { t }
end

local function unit_cost(ctx, u)
  return (ctx:get(u, "cost") or 0) / math.max(1, ctx:get(u, "units_per_cost") or 1)
end

local function wormhole_here(ctx, player, sys)
  if next(wormholes(ctx, sys)) then return true end
  for _, s in ipairs(flagship_systems(ctx, player)) do
    if s == sys then return true end
  end
  return false
end

hook {
  id = "dimensional_splicer",
  window = "space_combat.start_of_combat",
  source = "technology/dimensional_splicer",
  optional = true,
  condition = function(ctx, player)
    local sys = ctx:role("active_system")
    return ctx:count(player, sys, "ship") > 0 and wormhole_here(ctx, player, sys)
  end,
  apply = function(ctx, player)
    local enemy, sys = lib.opponent(ctx, player), ctx:role("active_system")
    local sustains = ctx:policy(enemy).sustain ~= "never"
    local best, best_key
    for _, u in ipairs(ctx:units(enemy, sys, "ship")) do
      local dies = not (sustains and ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged"))
      local key = (dies and 1000 or 0) + unit_cost(ctx, u)
      if not best_key or key > best_key then best, best_key = u, key end
    end
    if not best then return end
    local t = ctx:type(best)
    local spec = SPLICER_TARGET[t] or HITS
    if ctx:tracing() then ctx:event("dimensional_splicer:" .. ctx:name(player) .. ":" .. t, ctx:name(player) .. " assigns 1 hit to " .. ctx:name(enemy) .. "'s " .. t .. " (Dimensional Splicer)") end
    ctx:assign_hits(enemy, sys, 1, spec, ONLY[t] or ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain)
  end,
}

-- ------------------------------------------------------------------ movement

-- Quantum Entanglement: for the Creuss player, every system with an alpha or a beta wormhole counts
-- as adjacent to every other such system. During the Creuss player's tactical actions: the systems
-- with an alpha or a beta wormhole are linked to each other after the activation.
hook {
  id = "quantum_entanglement",
  window = "tactical_action.before_movement",
  source = "faction/creuss",
  priority = 10,  -- before the abilities that add wormholes (their links come after)
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx)
    local ab = systems_with(ctx, { alpha = true, beta = true })
    for i = 1, #ab do link_all(ctx, ab[i], { table.unpack(ab, i + 1) }) end
  end,
}

-- Slipstream: in the Creuss player's tactical actions, a ship of theirs whose movement begins in
-- their home system or in an alpha or beta wormhole system moves 1 further. (the Creuss home
-- system, tile 51 Creuss: lib.is_home_system)

hook {
  id = "slipstream",
  window = "tactical_action.move_value",
  source = "faction/creuss",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    local sys = ctx:location(args.unit)
    local w = wormholes(ctx, sys)
    return w.alpha or w.beta or lib.is_home_system(ctx, player, sys)
  end,
  apply = function(_, _, _, args) args.move = args.move + 1 end,
}

-- Hil Colish: there is a delta wormhole in the flagship's system, and in movement it may go before
-- or after the player's other ships. Its system is linked to every system with a delta wormhole;
-- in the Creuss player's movement it moves first, and once it leaves for the active system, the
-- active system is linked to them too (so ships in the Creuss Gate or the Creuss home system reach
-- it through the delta wormhole).
local function delta_systems(ctx) return systems_with(ctx, { delta = true }) end

hook {
  id = "hil_colish",
  window = "tactical_action.before_movement",
  source = "unit/creuss_flagship",
  condition = function(ctx, player, source, args)
    return args.player == player and ctx:kind(ctx:location(source)) == "system"
  end,
  apply = function(ctx, _, source, args)
    link_all(ctx, ctx:location(source), delta_systems(ctx))
    if ctx:location(source) ~= args.system then args.first[#args.first + 1] = source end
  end,
}

hook {
  id = "hil_colish_moves",
  window = "tactical_action.ship_moves",
  source = "unit/creuss_flagship",
  condition = function(_, player, source, args) return args.player == player and args.unit == source end,
  apply = function(ctx, player, _, args)
    local active = args.path[#args.path]
    link_all(ctx, active, delta_systems(ctx))
    if ctx:tracing() then ctx:event("hil_colish:" .. ctx:name(player) .. ":" .. ctx:name(active), ctx:name(active) .. " contains a delta wormhole (Hil Colish)") end
  end,
}

-- Emissary Taivra (agent): when a player activates a system with a wormhole other than delta, the
-- agent may be exhausted to make that system adjacent, for this tactical action, to every other
-- system with a wormhole. Default policy: in the Creuss player's own action, when a
-- Creuss ship is in another wormhole system not adjacent to the active one.
local function taivra_helps(ctx, player, active)
  for _, s in ipairs(systems_with(ctx, nil)) do
    if s ~= active and not ctx:is_adjacent(active, s) and ctx:count(player, s, "ship") > 0 then return true end
  end
  return false
end

hook {
  id = "emissary_taivra",
  window = "tactical_action.activation",
  source = "leader/emissary_taivra",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    local w = wormholes(ctx, args.system)
    local non_delta = false
    for t in pairs(w) do if t ~= "delta" then non_delta = true end end
    return non_delta
  end,
  helps = function(ctx, player, _, args) return args.player == player and taivra_helps(ctx, player, args.system) end,
  apply = function(ctx, player, _, args)
    link_all(ctx, args.system, systems_with(ctx, nil))
    if ctx:tracing() then ctx:event("emissary_taivra:" .. ctx:name(player), ctx:name(args.system) .. " is adjacent to every system with a wormhole (Emissary Taivra)") end
  end,
}

-- Icarus Drive (mech): after any player's activation, the mech may be taken off the board to put a
-- Creuss wormhole token (placed or moved) into its own system. Legal
-- after any player's activation, with the mech on the board; the token placed is the alpha one,
-- which links that system to the alpha systems (and, with Quantum Entanglement, to the beta ones).
-- Default policy (helps): in the Creuss player's own action, with the mech on a planet of the
-- active system (not in its space area, where it would be committed to an invasion) and no alpha
-- or beta wormhole there.
local function mech_system(ctx, source)
  local at = ctx:location(source)
  return ctx:kind(at) == "planet" and ctx:location(at) or at
end

hook {
  id = "icarus_drive",
  window = "tactical_action.activation",
  source = "unit/creuss_mech",
  optional = true,
  condition = function(ctx, _, source)
    local sys = mech_system(ctx, source)
    return sys ~= nil and ctx:kind(sys) == "system"
  end,
  helps = function(ctx, player, source, args)
    local w = wormholes(ctx, args.system)
    return args.player == player and ctx:kind(ctx:location(source)) == "planet"
      and mech_system(ctx, source) == args.system and not (w.alpha or w.beta)
  end,
  apply = function(ctx, player, source)
    local sys = mech_system(ctx, source)
    ctx:move(source, "reinforcements")
    for _, attr in ipairs(WORMHOLE_ATTRS) do
      if not ctx:get(sys, attr) then ctx:set(sys, attr, "alpha"); break end
    end
    link_all(ctx, sys, systems_with(ctx, { alpha = true }))
    if ctx:tracing() then ctx:event("icarus_drive:" .. ctx:name(player) .. ":" .. ctx:name(sys), ctx:name(player) .. " places an alpha wormhole token in " .. ctx:name(sys) .. " (Icarus Drive)") end
  end,
}

-- Sai Seravus (commander): once the Creuss player's ships have moved, each ship with a capacity
-- value whose path went through a wormhole may be given 1 fighter from reinforcements, while
-- capacity in the active system allows. A step of a ship's path moves through a wormhole
-- when its two systems are linked as wormhole systems or share a wormhole type.
local SERAVUS = "sai_seravus"  -- a flag on the ship, scope action

local function through_wormhole(ctx, path)
  for i = 1, #path - 1 do
    local a, b = path[i], path[i + 1]
    if ctx:linked(a, b, "wormhole") then return true end
    local wa, wb = wormholes(ctx, a), wormholes(ctx, b)
    for t in pairs(wa) do if wb[t] then return true end end
  end
  return false
end

hook {
  id = "sai_seravus_path",
  window = "tactical_action.ship_moves",
  source = "leader/sai_seravus",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:get(args.unit, "capacity") > 0 and through_wormhole(ctx, args.path)
  end,
  apply = function(ctx, _, _, args) ctx:set_flag(args.unit, SERAVUS, "action") end,
}

hook {
  id = "sai_seravus",
  window = "tactical_action.after_movement",
  source = "leader/sai_seravus",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    for _, u in ipairs(ctx:units(player, args.system, "ship")) do
      if ctx:flag(u, SERAVUS) then return true end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    local sys = args.system
    local room = ctx:sum(player, sys, "capacity", "ship", "structure") - ctx:count(player, sys, "fighter", "ground_force")
    local record = lib.unit_records(ctx, player).fighter
    for _, u in ipairs(ctx:units(player, sys, "ship")) do
      if room <= 0 then return end
      if ctx:flag(u, SERAVUS) then
        local f = ctx:create { kind = "unit", type = "fighter", owner = player, location = sys }
        if record then ctx:upgrade(f, record) end
        room = room - 1
        if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":fighter:" .. ctx:name(sys), ctx:name(player) .. " places 1 fighter with its " .. ctx:type(u) .. " (Sai Seravus)") end
      end
    end
  end,
}
