-- The Barony of Letnev: Munitions Reserves, the Arc Secundus, L4 Disruptors, Non-Euclidean
-- Shielding, the Dunlain Reaper, Viscount Unlenn, Rear Admiral Farran, War Funding (and its Ω).
-- Tests: ../../tests/factions/letnev.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local FLAG = "munitions_reserves"

-- the rolls a player's reroll-as-many-as-you-like rerolls by default: every die that missed
local function reroll_misses(pool)
  for i = 1, pool:size() do
    if not pool:hit(i) and not pool:cancelled(i) then pool:reroll(i) end
  end
end

-- Munitions Reserves: at the start of a space combat round, 2 trade goods buy rerolls for the
-- round. Default policy: spent whenever the player has them (policy.use = { munitions_reserves
-- = "never" } keeps them); in the round, every die that missed is rerolled once.
hook {
  id = "munitions_reserves",
  window = "space_combat.start_of_round",
  source = "faction/letnev",
  optional = true,
  limit = "round",
  -- (the condition, declared: rounds the runtime runs itself need not stop for this hook while
  -- the player has fewer than 2 trade goods)
  requires = { counter = "trade_goods", at_least = 2 },
  condition = function(ctx, player) return ctx:counter(player, "trade_goods") >= 2 end,
  apply = function(ctx, player)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") - 2, "game")
    ctx:set_flag(player, FLAG, "round")
  end,
}

hook {
  id = "munitions_reserves_reroll",
  window = "space_combat.after_roll",
  source = "faction/letnev",
  requires = { counter = FLAG },  -- only in a round Munitions Reserves paid for
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(player, FLAG) end,
  apply = function(_, _, _, args) reroll_misses(args.pool) end,
}

-- Arc Secundus: repaired at the start of every space combat round
hook {
  id = "arc_secundus_repair",
  window = "space_combat.start_of_round",
  source = "unit/letnev_flagship",
  condition = function(ctx, _, source)
    return ctx:location(source) == ctx:role("active_system") and ctx:get(source, "damaged")
  end,
  apply = function(ctx, player, source)
    ctx:set(source, "damaged", false)
    if ctx:tracing() then ctx:event("repaired:" .. ctx:name(player) .. ":flagship", ctx:name(player) .. " repairs the Arc Secundus") end
  end,
}

-- Arc Secundus: other players' units in its system lose Planetary Shield
hook {
  id = "arc_secundus_shield",
  window = "invasion.planetary_shield",
  source = "unit/letnev_flagship",
  condition = function(ctx, _, source, args)
    return args.shielded and ctx:location(source) == ctx:location(args.planet)
  end,
  apply = function(_, _, _, args) args.shielded = false end,
}

-- L4 Disruptors: no Space Cannon Defense against the player's units
hook {
  id = "l4_disruptors",
  window = "invasion.before_space_cannon_defense",
  source = "technology/l4_disruptors",
  condition = function(_, player, _, args) return args.target == player and args.can_fire end,
  apply = function(_, _, _, args) args.can_fire = false end,
}

-- ------------------------------------------------------------------ Non-Euclidean Shielding

-- Non-Euclidean Shielding is data (the modifier non_euclidean_shielding, letnev.toml): the runtime
-- makes each Sustain Damage of the player's units cancel 2 hits in every assignment of hits, by
-- the procedures or by any other content, whoever chooses the casualties.

-- ------------------------------------------------------------------ Dunlain Reaper (mech)

-- Deploy: at the start of a round of ground combat, 2 resources replace 1 of the player's
-- infantry in that combat with 1 mech (from reinforcements: 4 mechs at most on the board). Paid
-- by exhausting planets or with trade goods (lib.spend_resources: the fewest resources wasted,
-- then the fewest trade goods). Default policy: whenever the player can pay.
local function mech_limit(ctx)
  local rec = ctx:record("mech", "unit")
  return rec and rec.reinforcements or 4
end

hook {
  id = "dunlain_reaper",
  window = "invasion.start_of_ground_round",
  source = "faction/letnev",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player ~= player and args.opponent ~= player then return false end
    if lib.resources_available(ctx, player) < 2 then return false end
    if ctx:count(player, args.planet, "type:infantry") == 0 then return false end
    return ctx:count(player, nil, "type:mech") < mech_limit(ctx)
  end,
  apply = function(ctx, player, _, args)
    lib.spend_resources(ctx, player, 2)
    local infantry = ctx:units(player, args.planet, "type:infantry")[1]
    ctx:move(infantry, "reinforcements")
    local m = ctx:create { kind = "unit", type = "mech", owner = player, location = args.planet }
    local record = lib.unit_records(ctx, player).mech
    if record then ctx:upgrade(m, record) end
    if ctx:tracing() then ctx:event("deployed:" .. ctx:name(player) .. ":mech", ctx:name(player) .. " replaces an infantry with a mech (Dunlain Reaper)") end
  end,
}

-- ------------------------------------------------------------------ leaders

-- Viscount Unlenn (agent): when a space combat round starts, the agent may be exhausted to give 1
-- ship in the active system 1 extra die for that round.
-- Default policy: in the first round it can be, on the player's ship most likely to hit (the
-- lowest combat value; among equals, the first). The agent exhausted stays exhausted (its use is
-- counted for the game). The die is added to the ship's roll (a die like its others) right after
-- the roll, before other abilities change dice (priority 10: Munitions Reserves may reroll it).
local UNLENN = "viscount_unlenn"  -- a flag on the ship, scope round

hook {
  id = "viscount_unlenn",
  window = "space_combat.start_of_round",
  source = "leader/viscount_unlenn",
  optional = true,
  limit = "game",
  condition = function(ctx, player)
    local sys = ctx:role("active_system")
    return ctx:count(player, sys, "ship") > 0 and ctx:count(lib.opponent(ctx, player), sys, "ship") > 0
  end,
  apply = function(ctx, player)
    local best
    for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "ship")) do
      if ctx:get(u, "dice") > 0 and (not best or ctx:get(u, "combat") < ctx:get(best, "combat")) then best = u end
    end
    if not best then return end
    ctx:set_flag(best, UNLENN, "round")
    if ctx:tracing() then
      ctx:event("viscount_unlenn:" .. ctx:name(player) .. ":" .. ctx:type(best), ctx:name(player) .. "'s " .. ctx:type(best) .. " rolls 1 additional die this round (Viscount Unlenn)")
    end
  end,
}

hook {
  id = "viscount_unlenn_die",
  window = "space_combat.after_roll",
  source = "leader/viscount_unlenn",
  priority = 10,
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    for i = 1, args.pool:size() do
      local u = args.pool:unit(i)
      if u and ctx:flag(u, UNLENN) then return true end
    end
    return false
  end,
  apply = function(ctx, _, _, args)
    local pool = args.pool
    for i = 1, pool:size() do
      local u = pool:unit(i)
      if u and ctx:flag(u, UNLENN) then
        pool:add(1, i)
        return
      end
    end
  end,
}

-- Rear Admiral Farran (commander): each time a Letnev unit uses Sustain Damage, the Letnev player
-- may take 1 trade good. (in space combat and in ground combat; trade goods Munitions Reserves can
-- spend)
for _, w in ipairs { { "rear_admiral_farran", "space_combat.unit_sustained_damage" },
  { "rear_admiral_farran_ground", "invasion.unit_sustained_damage" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "leader/rear_admiral_farran",
    condition = function(_, player, _, args) return args.player == player end,
    apply = function(ctx, player)
      ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") + 1, "game")
      if ctx:tracing() then ctx:event("trade_good:" .. ctx:name(player), ctx:name(player) .. " gains 1 trade good (Rear Admiral Farran)") end
    end,
  }
end

-- ------------------------------------------------------------------ War Funding (promissory note)

-- The Letnev player of the game, if any.
local function letnev_player(ctx)
  local f = ctx:entities { kind = "faction", type = "letnev" }[1]
  return f and ctx:owner(f) or nil
end

local function in_combat(ctx, player)
  local sys = ctx:role("active_system")
  return (player == ctx:role("attacker") or player == ctx:role("defender"))
    and ctx:count(player, sys, "ship") > 0 and ctx:count(lib.opponent(ctx, player), sys, "ship") > 0
end

-- War Funding: played when a space combat round starts: the Letnev player loses 2 trade goods, the
-- holder may reroll as many of their dice as they like that round, and the note goes back to the
-- Letnev player. Its holder (not the Letnev player) rerolls every die that missed that round. The
-- Letnev player (if in the game) loses up to 2 trade goods: whether the note may be played when
-- they have fewer is not written [?]; here it may. Default policy: in the first round.
local WAR_FUNDING = "war_funding"

hook {
  id = "war_funding",
  window = "space_combat.start_of_round",
  source = "promissory_note/war_funding",
  optional = true,
  limit = "game",
  condition = function(ctx, player) return in_combat(ctx, player) end,
  apply = function(ctx, player)
    local letnev = letnev_player(ctx)
    if letnev then
      ctx:set_counter(letnev, "trade_goods", math.max(0, ctx:counter(letnev, "trade_goods") - 2), "game")
    end
    ctx:set_flag(player, WAR_FUNDING, "round")
  end,
}

hook {
  id = "war_funding_reroll",
  window = "space_combat.after_roll",
  source = "promissory_note/war_funding",
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(player, WAR_FUNDING) end,
  apply = function(_, _, _, args) reroll_misses(args.pool) end,
}

-- War Funding Ω (Codex): once both sides have rolled in a space combat round, the holder may have
-- all the opponent's dice rolled again and may reroll as many of their own as they like; then the
-- note goes back to the Letnev player. Played at the start of a round (default: the first), it acts
-- on that round's two rolls, each right after it is made (the dice are independent, so rerolling
-- the first roll before the second is made changes nothing): the holder's dice that missed are
-- rerolled; the opponent's are all rerolled when they hit more than expected (the sum of each
-- die's chance to hit) [?: the card's moment is after both rolls; the decision is taken per roll].
local WAR_FUNDING_OMEGA = "war_funding_omega"

hook {
  id = "war_funding_omega",
  window = "space_combat.start_of_round",
  source = "promissory_note/war_funding_omega",
  optional = true,
  limit = "game",
  condition = function(ctx, player) return in_combat(ctx, player) end,
  apply = function(ctx, player) ctx:set_flag(player, WAR_FUNDING_OMEGA, "round") end,
}

local function expected_hits(pool)
  local e = 0
  for i = 1, pool:size() do
    if not pool:cancelled(i) then e = e + math.max(0, math.min(10, 11 - pool:threshold(i))) / 10 end
  end
  return e
end

hook {
  id = "war_funding_omega_reroll",
  window = "space_combat.after_roll",
  source = "promissory_note/war_funding_omega",
  condition = function(ctx, player, _, args)
    if not ctx:flag(player, WAR_FUNDING_OMEGA) then return false end
    if args.player == player then return true end
    return args.player == lib.opponent(ctx, player) and args.pool:hits() > expected_hits(args.pool)
  end,
  apply = function(_, player, _, args)
    local pool = args.pool
    if args.player == player then
      reroll_misses(pool)
    else
      for i = 1, pool:size() do
        if not pool:cancelled(i) then pool:reroll(i) end
      end
    end
  end,
}
