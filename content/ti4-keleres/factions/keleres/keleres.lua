-- The Council Keleres: Artemiris, Omniopiares, Law's Order, Kuuasi Aun Jalatai (Overwing Zeta),
-- I.I.H.Q. Modernization's space cannon on Mecatol Rex. Tests: ../../tests/factions/keleres.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Artemiris: activating its system costs any other player 2 influence. Paid at the activation
-- (lib.spend_influence: planets, then trade goods); a player who cannot pay cannot activate that
-- system: the scenario is refused with this hook's error.
hook {
  id = "artemiris",
  window = "tactical_action.activation",
  source = "unit/keleres_flagship",
  condition = function(ctx, player, source, args) return args.player ~= player and ctx:location(source) == args.system end,
  apply = function(ctx, player, _, args)
    if not lib.spend_influence(ctx, args.player, 2) then
      error(ctx:name(args.player) .. " cannot activate " .. ctx:name(args.system) .. ": it holds " .. ctx:name(player)
        .. "'s Artemiris, and activating it costs 2 influence (" .. lib.influence_available(ctx, args.player) .. " available)", 0)
    end
  end,
}

-- Omniopiares: another player pays 1 influence to commit ground forces to its planet. After the
-- commitments: 1 influence for each Omniopiares on each planet the active player committed to
-- (separate payments, in planet order); a planet not paid for gets no ground forces: they go back
-- to the space area and it is not invaded.
hook {
  id = "omniopiares",
  window = "invasion.commit_ground_forces",
  source = "faction/keleres",
  condition = function(ctx, player, _, args)
    if args.player == player then return false end
    for _, planet in ipairs(args.planets) do
      for _, m in ipairs(ctx:units(player, planet, "type:mech")) do
        if ctx:record_id(m):find("keleres_mech", 1, true) then return true end
      end
    end
    return false
  end,
  apply = function(ctx, player, _, args)
    for _, planet in ipairs(args.planets) do
      local due = 0
      for _, m in ipairs(ctx:units(player, planet, "type:mech")) do
        if ctx:record_id(m):find("keleres_mech", 1, true) then due = due + 1 end
      end
      local paid = true
      for _ = 1, due do
        if paid and not lib.spend_influence(ctx, args.player, 1) then paid = false end
      end
      if not paid then
        for _, u in ipairs(ctx:units(args.player, planet, "ground_force")) do ctx:move(u, args.system) end
        ctx:set_counter(planet, "invaded", 0, "action")
        if ctx:tracing() then
          ctx:event("omniopiares:" .. ctx:name(args.player) .. ":" .. ctx:name(planet),
            ctx:name(args.player) .. " cannot pay the influence to commit to " .. ctx:name(planet) .. ": the ground forces stay in space")
        end
      end
    end
  end,
}

-- Law's Order: for 1 influence paid as their turn starts, the Keleres player has every law count as
-- blank for that turn. At the activation of the Keleres player's tactical action (in a
-- space combat alone: at its start, the attacker being the active player), the laws leave play
-- (their cards go off the board: their abilities are not held) and come back at the end of the
-- turn. Default policy: when another player holds a law and the Keleres player none.
local BLANKED = "laws_order"  -- flag on a law: blanked this turn

local function laws(ctx)
  return ctx:entities { kind = "agenda" }
end

local function wants_laws_order(ctx, player)
  local others, own = false, false
  for _, l in ipairs(laws(ctx)) do
    if ctx:location(l) ~= "reinforcements" then
      if ctx:owner(l) == player then own = true else others = true end
    end
  end
  return others and not own
end

local function blank_laws(ctx, player)
  if not lib.spend_influence(ctx, player, 1) then return end
  for _, l in ipairs(laws(ctx)) do
    if ctx:location(l) ~= "reinforcements" then
      ctx:move(l, "reinforcements")
      ctx:set_flag(l, BLANKED, "game")
    end
  end
  ctx:set_flag(player, BLANKED, "game")
  if ctx:tracing() then ctx:event("laws_order:" .. ctx:name(player), ctx:name(player) .. " treats all laws as blank this turn (Law's Order)") end
end

for _, w in ipairs { { "laws_order", "tactical_action.activation" }, { "laws_order_combat", "space_combat.start_of_combat" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "faction/keleres",
    optional = true,
    priority = 10,
    condition = function(ctx, player)
      return ctx:role("active_player") == player and not ctx:flag(player, BLANKED)
        and lib.influence_available(ctx, player) >= 1
    end,
    helps = function(ctx, player) return wants_laws_order(ctx, player) end,
    apply = function(ctx, player) blank_laws(ctx, player) end,
  }
end

hook {
  id = "laws_order_end",
  window = "tactical_action.end_of_turn",
  source = "faction/keleres",
  condition = function(ctx, player) return ctx:flag(player, BLANKED) end,
  apply = function(ctx)
    for _, l in ipairs(laws(ctx)) do
      if ctx:flag(l, BLANKED) then ctx:move(l, nil); ctx:set_counter(l, BLANKED, 0, "game") end
    end
  end,
}

-- Kuuasi Aun Jalatai, OVERWING ZETA: when a space combat round starts in a system with a planet the
-- Keleres player controls, they put their flagship and at most 2 cruisers or destroyers (in any
-- mix) from reinforcements into the active system, and the hero is purged. The Keleres
-- player must be in the combat. Cruisers before destroyers (the better combat value). Default
-- policy: the first round it can.
local function left(ctx, player, t)
  local rec = ctx:record(t, "unit")
  return math.max(0, (rec.reinforcements or 0) - ctx:count(player, nil, "type:" .. t))
end

local function place(ctx, player, t, sys)
  local u = ctx:create { kind = "unit", type = t, owner = player, location = sys }
  local own = lib.unit_records(ctx, player)[t]
  if own then ctx:upgrade(u, own) end
  if ctx:tracing() then ctx:event("overwing_zeta:" .. ctx:name(player) .. ":" .. t, ctx:name(player) .. " places a " .. t .. " in the active system (Overwing Zeta)") end
end

hook {
  id = "kuuasi_aun_jalatai",
  window = "space_combat.start_of_round",
  source = "leader/kuuasi_aun_jalatai",
  optional = true,
  discard = true,
  condition = function(ctx, player)
    local a, d, sys = ctx:role("attacker", "defender", "active_system")
    if player ~= a and player ~= d then return false end
    local controls = false
    for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
      if ctx:owner(planet) == player then controls = true end
    end
    return controls and (left(ctx, player, "flagship") + left(ctx, player, "cruiser") + left(ctx, player, "destroyer")) > 0
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    if left(ctx, player, "flagship") > 0 then place(ctx, player, "flagship", sys) end
    local n = 0
    for _, t in ipairs { "cruiser", "destroyer" } do
      for _ = 1, math.min(2 - n, left(ctx, player, t)) do
        place(ctx, player, t, sys)
        n = n + 1
      end
    end
  end,
}

-- I.I.H.Q. Modernization, Custodia Vigilia: Mecatol Rex has Space Cannon 5 while the Keleres player
-- controls it, used as a unit would use it. In a tactical action at the Mecatol Rex system, a unit
-- custodia_vigilia of the Keleres player stands on Mecatol Rex (space cannon 5, nothing else) from
-- the activation while they control it (Space Cannon Offense and Defense), gone when another player
-- gains control of the planet.
local function mecatol(ctx, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:type(planet) == "mecatol_rex" or ctx:name(planet) == "mecatol_rex" then return planet end
  end
  return nil
end

hook {
  id = "custodia_vigilia",
  window = "tactical_action.activation",
  source = "technology/iihq_modernization",
  priority = 10,
  condition = function(ctx, player, _, args)
    local m = mecatol(ctx, args.system)
    return m ~= nil and ctx:owner(m) == player and ctx:count(player, m, "type:custodia_vigilia") == 0
  end,
  apply = function(ctx, player, _, args)
    ctx:create { kind = "unit", type = "custodia_vigilia", owner = player, location = mecatol(ctx, args.system) }
  end,
}

hook {
  id = "custodia_vigilia_lost",
  window = "invasion.planet_gained",
  source = "unit/custodia_vigilia",
  condition = function(ctx, player, source, args) return args.planet == ctx:location(source) and args.player ~= player end,
  apply = function(ctx, _, source) ctx:move(source, "reinforcements") end,
}
