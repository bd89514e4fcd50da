-- Thunder's Edge's relics (relics.toml). Tests: ../tests/relics.toml

-- Lightrail Ordnance: the holder's space docks gain Space Cannon 5 (x2) with the reach of PDS II
-- (adjacent systems too). Set on the docks when the system is activated, before any space cannon.
hook {
  id = "lightrail_ordnance",
  window = "tactical_action.activation",
  source = "relic/lightrail_ordnance",
  condition = function(ctx, player) return #ctx:entities { kind = "unit", owner = player, type = "space_dock" } > 0 end,
  apply = function(ctx, player)
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player, type = "space_dock" }) do
      ctx:set(u, "space_cannon", 5)
      ctx:set(u, "space_cannon_dice", 2)
      ctx:set(u, "space_cannon_range", 1)
    end
  end,
}

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Hits as the space combat assigns them (scripts/ti4/space_combat.lua): against ships, with
-- Sustain Damage; and the Anti-Fighter Barrage's, against fighters only.
local SHIP_HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }
local FIGHTER_HITS = { eligible = "fighter", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_afb_hits", destroyed_window = "space_combat.unit_destroyed" }
local BARRAGE_STEP = "space_combat.assign_afb_hits"  -- the assign_hits window's purpose in that step

-- Metali Void Armaments: in the Anti-Fighter Barrage step, a barrage of 3 dice at 6 whose hits go
-- against any of the opponent's ships. Rolled when the step's hits are about to be assigned (both
-- barrages rolled); the opponent then assigns the step's own barrage hits (fighters) first and
-- these after them, so they take what the barrage could not.
local ARMAMENTS_VALUE, ARMAMENTS_DICE = 6, 3
hook {
  id = "metali_void_armaments",
  window = "space_combat.assign_hits",
  source = "relic/metali_void_armaments",
  optional = true,
  condition = function(ctx, player, _, args)
    return args.purpose == BARRAGE_STEP and args.hits[player] ~= nil
      and ctx:count(lib.opponent(ctx, player), ctx:role("active_system"), "ship") > 0
  end,
  apply = function(ctx, player, _, args)
    local sys, enemy = ctx:role("active_system"), lib.opponent(ctx, player)
    if ctx:tracing() then
      ctx:event("metali_void_armaments:" .. ctx:name(player),
        ctx:name(player) .. " rolls Anti-Fighter Barrage 6 (x3) against any of " .. ctx:name(enemy) .. "'s ships (Metali Void Armaments)")
    end
    local pool = ctx:roll(player, "d10", ARMAMENTS_DICE, { purpose = "anti_fighter_barrage", threshold = ARMAMENTS_VALUE })
    local policy = ctx:policy(enemy)
    -- the step's own barrage hits first (to fighters, or to any ship under Waylay's flag)
    local barrage = math.max(0, args.hits[enemy] or 0)
    args.hits[enemy] = 0
    local own = ctx:flag(player, "barrage_hits_all_ships") and SHIP_HITS or FIGHTER_HITS
    if barrage > 0 then ctx:assign_hits(enemy, sys, barrage, own, policy.hit_order, "never") end
    if pool:hits() > 0 then ctx:assign_hits(enemy, sys, pool:hits(), SHIP_HITS, policy.hit_order, policy.sustain) end
  end,
}

-- Metali Void Shielding: whenever hits are produced against the holder's non-fighter ships, one of
-- them that has no Sustain Damage may use it anyway: it is damaged and 1 hit is cancelled. Here:
-- the hits of a space combat's combat rolls, and of Space Cannon Offense. The ship chosen is the
-- most costly one that can (hits are otherwise taken by hit_order, cheapest first).
local function shieldable(ctx, player, sys)
  return lib.most_costly(ctx, ctx:units(player, sys, "ship"), function(u)
    return not ctx:get(u, "fighter") and not ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged")
  end)
end

local function shield(ctx, player, sys, hits, window)
  local u = shieldable(ctx, player, sys)
  ctx:set(u, "damaged", true)
  hits[player] = hits[player] - 1
  if ctx:tracing() then
    ctx:event("metali_void_shielding:" .. ctx:name(player) .. ":" .. ctx:type(u),
      ctx:name(player) .. "'s " .. ctx:type(u) .. " uses Sustain Damage as if it had it (Metali Void Shielding): 1 hit cancelled")
  end
  ctx:open(window, { unit = u, player = player, location = sys })
end

local function wants_to_sustain(ctx, player) return ctx:policy(player).sustain ~= "never" end

hook {
  id = "metali_void_shielding",
  window = "space_combat.assign_hits",
  source = "relic/metali_void_shielding",
  optional = true,
  condition = function(ctx, player, _, args)
    return args.purpose ~= BARRAGE_STEP and (args.hits[player] or 0) > 0
      and shieldable(ctx, player, ctx:role("active_system")) ~= nil
  end,
  helps = wants_to_sustain,
  apply = function(ctx, player, _, args)
    shield(ctx, player, ctx:role("active_system"), args.hits, "space_combat.unit_sustained_damage")
  end,
}

hook {
  id = "metali_void_shielding_space_cannon",
  window = "tactical_action.assign_space_cannon_hits",
  source = "relic/metali_void_shielding",
  optional = true,
  condition = function(ctx, player, _, args)
    return args.target == player and (args.hits[player] or 0) > 0
      and shieldable(ctx, player, ctx:role("active_system")) ~= nil
  end,
  helps = wants_to_sustain,
  apply = function(ctx, player, _, args)
    shield(ctx, player, ctx:role("active_system"), args.hits, "tactical_action.unit_sustained_damage")
  end,
}

-- Heart of Ixth: once (exhausted; readied outside the tactical action), after a die is rolled, +1
-- or -1 to its result. Any die: its holder's own (a miss by 1 becomes a hit) or an opponent's (a
-- hit on the value exactly becomes a miss). `helps`: only when it changes a hit or a miss.
local function die_to_change(player, args)
  local pool = args.pool
  for i = 1, pool:size() do
    local t = pool:threshold(i)
    if t then
      if args.player == player and not pool:hit(i) and pool:result(i) == t - 1 then return i, 1 end
      if args.player ~= player and pool:hit(i) and pool:result(i) == t then return i, -1 end
    end
  end
  return nil
end

local ROLL_WINDOWS = { "space_combat.after_roll", "space_combat.after_anti_fighter_barrage_roll",
  "tactical_action.after_space_cannon_roll", "invasion.after_bombardment_roll",
  "invasion.after_space_cannon_defense_roll", "invasion.after_ground_roll" }
for _, window in ipairs(ROLL_WINDOWS) do
  hook {
    id = "heart_of_ixth_" .. window:gsub("^.-%.", ""),
    window = window,
    source = "relic/heart_of_ixth",
    optional = true,
    -- one card for all these windows: its flag "exhausted" (a hook's limit counts per hook)
    condition = function(ctx, _, source, args)
      return not ctx:flag(source, "exhausted") and args.pool ~= nil and args.pool:size() > 0
    end,
    helps = function(_, player, _, args) return die_to_change(player, args) ~= nil end,
    apply = function(ctx, player, source, args)
      local i, d = die_to_change(player, args)
      if not i then i, d = 1, args.player == player and 1 or -1 end
      args.pool:modify(i, d)
      ctx:set_flag(source, "exhausted", "game")
      if ctx:tracing() then
        ctx:event("heart_of_ixth:" .. ctx:name(player) .. ":" .. (d > 0 and "+1" or "-1"),
          ctx:name(player) .. " changes a die of " .. ctx:name(args.player) .. "'s roll by " .. d .. " (Heart of Ixth)")
      end
    end,
  }
end
