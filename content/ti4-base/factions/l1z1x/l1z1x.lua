-- The L1Z1X Mindnet: the flagship's hit assignment and the 2RAM commander.
-- Tests: ../../tests/factions/l1z1x.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local FORCED = "l1z1x_forced_hits"  -- counter on the player: hits that must go to non-fighters
-- (the space combat's HITS narrowed to these types; the modifier l1z1x_flagship_hits_to in
-- l1z1x.toml does the same in the rounds the runtime runs in C++)
local NON_FIGHTERS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  sustain_first = "direct_hit_immune", types = { "destroyer", "cruiser", "carrier", "dreadnought", "war_sun", "flagship" },
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }

-- [0.0.1]: count the hits of its own dice and of the player's dreadnoughts in this roll
hook {
  id = "l1z1x_flagship_roll",
  window = "space_combat.after_roll",
  source = "unit/l1z1x_flagship",
  condition = function(ctx, player, source, args)
    return args.player == player and ctx:location(source) == ctx:role("active_system")
  end,
  apply = function(ctx, player, source, args)
    local pool, n = args.pool, 0
    for i = 1, pool:size() do
      local u = pool:unit(i)
      if u and pool:hit(i) and (u == source or ctx:type(u) == "dreadnought") then n = n + 1 end
    end
    ctx:set_counter(player, FORCED, n, "round")
  end,
}

-- the hits that must go to non-fighters are assigned first, by the opponent's hit order among
-- their non-fighter ships ("if able": no more than those ships can take)
hook {
  id = "l1z1x_flagship_hits",
  window = "space_combat.assign_hits",
  source = "unit/l1z1x_flagship",
  condition = function(ctx, player, _, args)
    return args.purpose == "space_combat.assign_hits" and ctx:counter(player, FORCED) > 0
  end,
  apply = function(ctx, player, _, args)
    local enemy, sys = lib.opponent(ctx, player), ctx:role("active_system")
    local room = 0
    for _, u in ipairs(ctx:units(enemy, sys, "ship")) do
      if not ctx:get(u, "fighter") then
        room = room + 1 + ((ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") and ctx:policy(enemy).sustain ~= "never") and 1 or 0)
      end
    end
    local n = math.min(ctx:counter(player, FORCED), args.hits[enemy], room)
    ctx:set_counter(player, FORCED, 0, "round")
    if n <= 0 then return end
    args.hits[enemy] = args.hits[enemy] - n
    ctx:assign_hits(enemy, sys, n, NON_FIGHTERS, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain)
  end,
}

-- 2RAM: Planetary Shield does not stop the player's bombardment
hook {
  id = "two_ram",
  window = "invasion.planetary_shield",
  source = "leader/two_ram",
  condition = function(_, player, _, args) return args.player == player and args.shielded end,
  apply = function(_, _, _, args) args.shielded = false end,
}

-- Harrow: at the end of each round of ground combat, the player's ships in the active system use
-- their Bombardment against the opponent's ground forces on the planet (a Bombardment: Planetary
-- Shield stops it, unless a war sun of the player is in the system or 2RAM is theirs). Rolls of
-- the kind "bombardment" (Plasma Scoring, not combat modifiers). After the last round too (the end
-- of ground combat shares its window; the seed's 2.2: the end-of-round effects still happen), when
-- the opponent still has ground forces there: the L1Z1X player's own may all have died.
local HARROW = { purpose = "bombardment", die = "d10", value = "bombardment", count = "bombardment_dice", eligible = "ship" }
local HARROW_HITS = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "invasion.assign_bombardment_hits", destroyed_window = "invasion.unit_destroyed" }
local GROUND_ORDER = { "infantry", "mech" }

local function harrow_target(ctx, player, args)
  local opponent = player == args.player and args.opponent or args.player
  if ctx:count(opponent, args.planet, "ground_force") == 0 then return nil end
  return opponent
end

local function shielded(ctx, player, opponent, planet, sys)
  if ctx:count(opponent, planet, "planetary_shield") == 0 then return false end
  if ctx:count(player, sys, "type:war_sun") > 0 then return false end
  return #ctx:entities { kind = "leader", owner = player, type = "two_ram" } == 0
end

hook {
  id = "harrow",
  window = "invasion.end_of_ground_round",
  source = "faction/l1z1x",
  optional = true,  -- a "may": the default policy uses it (it only harms the opponent)
  condition = function(ctx, player, _, args)
    if player ~= args.player and player ~= args.opponent then return false end
    local opponent = harrow_target(ctx, player, args)
    local sys = ctx:location(args.planet)
    return opponent ~= nil and ctx:count(player, sys, "bombardment") > 0 and not shielded(ctx, player, opponent, args.planet, sys)
  end,
  apply = function(ctx, player, _, args)
    local opponent = harrow_target(ctx, player, args)
    local sys = ctx:location(args.planet)
    -- (no script reads the dice: only their number of hits, die for die from the same stream; a
    -- trace rolls the pool to show its dice)
    if not ctx:tracing() then
      local hits = ctx:roll_hits(player, sys, HARROW)
      if hits > 0 then ctx:assign_hits(opponent, args.planet, hits, HARROW_HITS, GROUND_ORDER, ctx:policy(opponent).sustain) end
      return
    end
    local pool, hits = ctx:roll_units(player, sys, HARROW)
    if hits > 0 then ctx:assign_hits(opponent, args.planet, hits, HARROW_HITS, GROUND_ORDER, ctx:policy(opponent).sustain) end
    ctx:event("harrow:" .. ctx:name(player) .. ":" .. hits, ctx:name(player) .. " harrows: " .. pool:size() .. " dice, " .. hits .. " hits")
  end,
}

-- I48S (agent): after any activation, the agent may be exhausted to let the active player swap 1 of
-- their infantry in the active system for a mech from their reinforcements.
-- Default policy: in the L1Z1X player's own action, an infantry in the active system's space area,
-- else on one of its planets, while a mech is left in reinforcements.
local function i48s_infantry(ctx, player, sys)
  local u = ctx:units(player, sys, "type:infantry")[1]
  if u then return u end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    u = ctx:units(player, planet, "type:infantry")[1]
    if u then return u end
  end
  return nil
end

hook {
  id = "i48s",
  window = "tactical_action.activation",
  source = "leader/i48s",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    if args.player ~= player or not i48s_infantry(ctx, player, args.system) then return false end
    local rec = ctx:record("mech", "unit")
    return ctx:count(player, nil, "type:mech") < (rec and rec.reinforcements or 4)
  end,
  apply = function(ctx, player, _, args)
    local inf = i48s_infantry(ctx, player, args.system)
    local at = ctx:location(inf)
    ctx:move(inf, "reinforcements")
    local m = ctx:create { kind = "unit", type = "mech", owner = player, location = at }
    local record = lib.unit_records(ctx, player).mech
    if record then ctx:upgrade(m, record) end
    if ctx:tracing() then ctx:event("replaced:" .. ctx:name(player) .. ":infantry:" .. ctx:name(player) .. ":mech", ctx:name(player) .. " replaces an infantry in " .. ctx:name(at) .. " with a mech (I48S)") end
  end,
}
