-- Thunder's Edge's breakthroughs that act inside the tactical action (breakthroughs.toml).
-- Tests: ../tests/breakthroughs.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Gravleash Maneuvers (Letnev): before each of the player's space combat rolls, one of its ships'
-- dice gets +X, X the number of its ship types in the combat. The die is chosen before the roll,
-- so by its threshold only: the one that gains most (min(X, threshold - 1)), the first such.
hook {
  id = "gravleash_maneuvers",
  window = "space_combat.after_roll",
  source = "technology/gravleash_maneuvers",
  condition = function(_, player, _, args) return args.player == player and args.purpose == "combat" end,
  apply = function(ctx, player, _, args)
    local types, x = {}, 0
    for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "ship")) do
      local t = ctx:type(u)
      if not types[t] then types[t], x = true, x + 1 end
    end
    local pool, best, gain = args.pool, nil, 0
    for i = 1, pool:size() do
      local g = math.min(x, pool:threshold(i) - 1)
      if not pool:cancelled(i) and g > gain then best, gain = i, g end
    end
    if not best then return end
    pool:modify(best, x)
    if ctx:tracing() then
      ctx:event("gravleash:" .. ctx:name(player) .. ":" .. x,
        "Gravleash Maneuvers: +" .. x .. " to one of " .. ctx:name(player) .. "'s " .. ctx:type(pool:unit(best)) .. " dice")
    end
  end,
}

-- Gravleash Maneuvers' movement: the move value of each of the player's non-fighter ships is the
-- highest move value among the ships that move out of the system it starts in (the window
-- tactical_action.move_values: each ship's own value is known, nebula and other abilities
-- included). "Moving ships" are read as the ships that may move out of that system: one that
-- could but stays still lends its value (not modelled: a ship's choice to stay, made later).
hook {
  id = "gravleash_move",
  window = "tactical_action.move_values",
  source = "technology/gravleash_maneuvers",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player, _, args)
    local top = -1
    for i in ipairs(args.ships) do
      if args.moves[i] > top then top = args.moves[i] end
    end
    for i, u in ipairs(args.ships) do
      if args.moves[i] < top and not ctx:get(u, "fighter") then
        args.moves[i] = top
        if ctx:tracing() then
          ctx:event("gravleash_move:" .. ctx:name(player) .. ":" .. ctx:type(u) .. ":" .. top,
            ctx:name(player) .. "'s " .. ctx:type(u) .. " takes move " .. top .. " (Gravleash Maneuvers)")
        end
      end
    end
  end,
}

-- Imperator (Winnu): +1 to each of the player's combat rolls, space and ground, for each Support
-- for the Throne in the opponent's play area (the opponent's counter support_for_the_throne).
local function imperator(ctx, player, opponent, pool)
  local n = ctx:counter(opponent, "support_for_the_throne")
  for i = 1, pool:size() do pool:modify(i, n) end
  if ctx:tracing() then ctx:event("imperator:" .. ctx:name(player) .. ":" .. n, "Imperator: +" .. n .. " to " .. ctx:name(player) .. "'s combat rolls") end
end

hook {
  id = "imperator",
  window = "space_combat.after_roll",
  source = "technology/imperator",
  condition = function(ctx, player, _, args)
    return args.player == player and args.purpose == "combat" and ctx:counter(lib.opponent(ctx, player), "support_for_the_throne") > 0
  end,
  apply = function(ctx, player, _, args) imperator(ctx, player, lib.opponent(ctx, player), args.pool) end,
}

hook {
  id = "imperator_ground",
  window = "invasion.after_ground_roll",
  source = "technology/imperator",
  condition = function(ctx, player, _, args)
    return args.player == player and args.purpose == "ground_combat" and ctx:counter(args.opponent, "support_for_the_throne") > 0
  end,
  apply = function(ctx, player, _, args) imperator(ctx, player, args.opponent, args.pool) end,
}

-- Imperator's movement: after the player activates a system that holds a legendary planet, 1 of
-- their ships gets +1 to its move value during this tactical action. As Gravity Drive: asked of
-- each ship in turn until one takes it (limit "action"); the default policy gives it to the first
-- ship it brings within reach (farther than its move value, no farther than one more).
local function legendary_here(ctx, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:get(planet, "legendary") then return true end
  end
  return false
end

hook {
  id = "imperator_move",
  window = "tactical_action.move_value",
  source = "technology/imperator",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player == player and legendary_here(ctx, ctx:role("active_system")) end,
  helps = function(ctx, _, _, args)
    local d = lib.steps_between(ctx, ctx:location(args.unit), ctx:role("active_system"), args.move + 1)
    return d ~= nil and d > args.move
  end,
  apply = function(ctx, player, _, args)
    args.move = args.move + 1
    if ctx:tracing() then
      ctx:event("imperator_move:" .. ctx:name(player) .. ":" .. ctx:type(args.unit),
        ctx:name(player) .. "'s " .. ctx:type(args.unit) .. " gets +1 move (Imperator: a legendary planet in the active system): " .. args.move)
    end
  end,
}

-- Fealty Uplink (L1Z1X): on gaining control of a planet, as many infantry as its influence are
-- placed on it from reinforcements (infantry are not limited: tokens stand in).
hook {
  id = "fealty_uplink",
  window = "invasion.planet_gained",
  source = "technology/fealty_uplink",
  condition = function(ctx, player, _, args) return args.player == player and (ctx:get(args.planet, "influence") or 0) > 0 end,
  apply = function(ctx, player, _, args)
    local n = ctx:get(args.planet, "influence")
    local record = lib.unit_records(ctx, player).infantry
    for _ = 1, n do
      local u = ctx:create { kind = "unit", type = "infantry", owner = player, location = args.planet }
      if record then ctx:upgrade(u, record) end
    end
    if ctx:tracing() then
      ctx:event("fealty_uplink:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. " places " .. n .. " infantry on " .. lib.place(ctx, args.planet) .. " (Fealty Uplink)")
    end
  end,
}

-- N'orr Supremacy (Sardakk N'orr): after the player wins a combat (space or ground: the opponent has
-- no units left there, destroyed or retreated), either 1 command token (not modelled) or research a
-- unit upgrade technology: its prerequisites met by the colours of the player's technologies, the
-- faction's own upgrade of a type where it has one, else the generic one. The player's units of
-- that type take the upgraded record at once, so an upgrade researched after the space combat fights
-- the ground combat (decision research.unit_upgrade, options best first by the combat the player's
-- units in the active system gain; the default uses it when the best gains something).
-- the unit upgrades the player can research, best first (lib.unit_upgrades: { name =, gain = }),
-- the gain counted over the player's units in the active system and on its planets
local function upgrades(ctx, player)
  local sys = ctx:role("active_system")
  local units = ctx:units(player, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    for _, u in ipairs(ctx:units(player, planet)) do units[#units + 1] = u end
  end
  return lib.unit_upgrades(ctx, player, units, true)
end

local function research(ctx, player)
  local opts, names = upgrades(ctx, player), {}
  for i, o in ipairs(opts) do names[i] = o.name end
  local name = ctx:decide(player, "research.unit_upgrade", names)
  lib.research_unit_upgrade(ctx, player, name)
  if ctx:tracing() then
    ctx:event("norr_supremacy:" .. ctx:name(player) .. ":" .. name, ctx:name(player) .. " researches " .. name .. " (N'orr Supremacy)")
  end
end

-- the winner of the combat that just ended: the player with units left when the opponent has none
local function won(ctx, player, place, what, opponent)
  return opponent ~= nil and ctx:count(player, place, what) > 0 and ctx:count(opponent, place, what) == 0
end

hook {
  id = "norr_supremacy_space",
  window = "space_combat.end_of_combat",
  source = "technology/norr_supremacy",
  optional = true,
  condition = function(ctx, player)
    return won(ctx, player, ctx:role("active_system"), "ship", lib.opponent(ctx, player)) and #upgrades(ctx, player) > 0
  end,
  helps = function(ctx, player) return upgrades(ctx, player)[1].gain > 0 end,
  apply = research,
}

hook {
  id = "norr_supremacy_ground",
  window = "invasion.end_of_ground_combat",
  source = "technology/norr_supremacy",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player ~= player and args.opponent ~= player then return false end
    local other = args.player == player and args.opponent or args.player
    return won(ctx, player, args.planet, "ground_force", other) and #upgrades(ctx, player) > 0
  end,
  helps = function(ctx, player) return upgrades(ctx, player)[1].gain > 0 end,
  apply = function(ctx, player) research(ctx, player) end,
}

-- Particle Synthesis (Ghosts of Creuss): in the Production step, each wormhole of the active system
-- is a Production 1 unit of the player's while the player has ships there, and what the player
-- produces in a system with wormholes costs 1 resource less in all for each of them.
local WORMHOLE_ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }
local function wormholes(ctx, sys)
  local n = 0
  for _, a in ipairs(WORMHOLE_ATTRS) do
    if ctx:get(sys, a) then n = n + 1 end
  end
  return n
end

hook {
  id = "particle_synthesis",
  window = "production.start_of_production",
  source = "technology/particle_synthesis",
  condition = function(ctx, player, _, args) return args.player == player and wormholes(ctx, args.system) > 0 end,
  apply = function(ctx, player, _, args)
    local n = wormholes(ctx, args.system)
    if ctx:count(player, args.system, "ship") > 0 then args.limit = args.limit + n end
    args.discount = args.discount + n
  end,
}

-- Bellum Gloriosum (Sol): in the Production step, the ground forces and fighters produced, up to
-- the capacity of the ships with capacity produced with them, do not count against the limit (they
-- are paid for as usual).
hook {
  id = "bellum_gloriosum",
  window = "production.start_of_production",
  source = "technology/bellum_gloriosum",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(_, _, _, args) args.cargo_outside_limit = true end,
}

-- The Icon (Last Bastion): when the player produces ships, exhaust it (once here) to place them in
-- another system that holds one of the player's command tokens, one of their ground forces (space
-- area or planet) and no other player's ships (decision production.place_ships, by system id). The
-- ships produced in this step carry the action flag produced_this_step. The default does not use
-- it: nothing later in the tactical action fights there (policy use = { the_icon = "always" }).
local PRODUCED = "produced_this_step"

hook {
  id = "the_icon_produced",
  window = "production.unit_produced",
  source = "technology/the_icon",
  condition = function(ctx, player, _, args) return args.player == player and ctx:get(args.unit, "ship") end,
  apply = function(ctx, _, _, args) ctx:set_flag(args.unit, PRODUCED, "action") end,
}

local function icon_systems(ctx, player, active)
  local out = {}
  for _, sys in ipairs(ctx:entities { kind = "system" }) do
    local ok = sys ~= active and #ctx:entities { kind = "command_token", owner = player, location = sys } > 0
    for _, q in ipairs(ctx:players()) do
      if ok and q ~= player and ctx:count(q, sys, "ship") > 0 then ok = false end
    end
    local ground = ctx:count(player, sys, "ground_force") > 0
    for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
      if ctx:count(player, planet, "ground_force") > 0 then ground = true end
    end
    if ok and ground then out[#out + 1] = sys end
  end
  return out
end

local function produced_ships(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    if ctx:flag(u, PRODUCED) then out[#out + 1] = u end
  end
  return out
end

hook {
  id = "the_icon",
  window = "production.end_of_production",
  source = "technology/the_icon",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    return args.player == player and #produced_ships(ctx, player, args.system) > 0 and #icon_systems(ctx, player, args.system) > 0
  end,
  helps = function() return false end,
  apply = function(ctx, player, _, args)
    local systems, names = icon_systems(ctx, player, args.system), {}
    for i, sys in ipairs(systems) do names[i] = ctx:name(sys) end
    local choice = ctx:decide(player, "production.place_ships", names)
    for i, n in ipairs(names) do
      if n == choice then
        for _, u in ipairs(produced_ships(ctx, player, args.system)) do ctx:move(u, systems[i]) end
        if ctx:tracing() then
          ctx:event("the_icon:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. "'s ships produced are placed in " .. lib.place(ctx, systems[i]) .. " (The Icon)")
        end
      end
    end
  end,
}

-- Slumberstate Computing (Titans): when Coalescence makes a ground combat (ti4-pok's titans.lua: the
-- units Awaken placed beside another player's ground forces, flag "coalesced") and the Titans
-- committed no other units to that planet, they may choose that their units there coexist instead
-- (scripts/ti4/invasion.lua, M.coexistence; decision invasion.use_coexistence). Its status phase
-- half (action cards) and its sleepers on other players' planets act outside the tactical action.
hook {
  id = "slumberstate_computing",
  window = "invasion.coexistence",
  source = "technology/slumberstate_computing",
  condition = function(ctx, player, _, args)
    if args.player ~= player or lib.coexisting(ctx, args.planet, player) then return false end
    local forces = ctx:units(player, args.planet, "ground_force")
    for _, u in ipairs(forces) do
      if not ctx:flag(u, "coalesced") then return false end
    end
    return #forces > 0
  end,
  apply = function(_, player, _, args) args.may[player] = true end,
}

-- Resonance Generator (Crimson Rebellion): in the player's tactical actions, each of their ships
-- that starts in their home system (lib.is_home_system: a scenario gives the faction a home tile's
-- planet) or in a system that contains an active breach (lib.breach) has +1 to its move value
-- (+1 once, where both hold). Its ACTION (flip or place a breach) is outside the tactical action.
hook {
  id = "resonance_generator_move",
  window = "tactical_action.move_value",
  source = "technology/resonance_generator",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    local start = ctx:location(args.unit)
    return lib.breach(ctx, start) == "active" or lib.is_home_system(ctx, player, start)
  end,
  apply = function(ctx, player, _, args)
    args.move = args.move + 1
    if ctx:tracing() then
      local why = lib.breach(ctx, ctx:location(args.unit)) == "active" and "an active breach where it starts" or "it starts in its home system"
      ctx:event("resonance_generator_move:" .. ctx:name(player) .. ":" .. ctx:type(args.unit),
        ctx:name(player) .. "'s " .. ctx:type(args.unit) .. " gets +1 move (Resonance Generator: " .. why .. "): " .. args.move)
    end
  end,
}

-- Void Tether (Empyrean): the borders that hold the player's Void Tether tokens are closed to
-- every other player (those two systems are not adjacent for them: movement, Space Cannon Offense
-- from adjacent systems, retreats; galaxy.adjacent), while the Empyrean player still sees them
-- adjacent. The tokens are the scenario's (a system's `void_tether`); the effect lasts as long as
-- they are there, so the borders are closed at the first window of any player's tactical action,
-- before anything reads adjacency. Not modelled: placing or moving a token when the player
-- activates a system (scenarios place them), and "unless you allow it" (the player never allows).
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua

hook {
  id = "void_tether",
  window = "tactical_action.activation",
  source = "technology/void_tether",
  apply = function(ctx, player)
    for _, border in ipairs(galaxy.void_tethers(ctx)) do
      galaxy.close_border(ctx, border[1], border[2], player)
      if ctx:tracing() then
        ctx:event("void_tether:" .. ctx:name(border[1]) .. ":" .. ctx:name(border[2]),
          "Void Tether: " .. lib.place(ctx, border[1]) .. " and " .. lib.place(ctx, border[2]) .. " are not adjacent for players other than " .. ctx:name(player))
      end
    end
  end,
}
