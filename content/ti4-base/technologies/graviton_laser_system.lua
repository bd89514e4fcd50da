-- Graviton Laser System (base technology). In short: exhausted before the owner's units fire Space
-- Cannon, it makes their hits go to non-fighter ships "if able". Space cannon that hits ships is
-- Space Cannon Offense (Space Cannon Defense hits ground forces, where it changes nothing).
--   1. tactical_action.before_space_cannon (opened once, before the first roll): the owner may
--      exhaust it (flag "exhausted" on the card, scope game) when they will fire at a player; the
--      default policy uses it when that player has both fighters and other ships there.
--   2. tactical_action.assign_space_cannon_hits, args {player, target, hits = {[target] = n}}:
--      the owner's hits go to the target's non-fighter ships first, as far as those can take
--      them (one each, plus one more for each undamaged ship that may use Sustain Damage under
--      the target's sustain policy); the target still chooses which (their hit_order). What is
--      left is handed back to the procedure, which assigns it as usual (to fighters). When
--      nothing is left, the procedure assigns nothing and so checks no capacity: the hook does
--      (the fighters a destroyed carrier held are lost).
-- Test: tests/cards/graviton_laser_system.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local EXHAUSTED = "exhausted"

local offense_target = lib.space_cannon_target  -- scripts/ti4/lib.lua: the procedure's own rule

local function non_fighter_ships(ctx, player)
  local out = {}
  for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "ship")) do
    if not ctx:get(u, "fighter") then out[#out + 1] = u end
  end
  return out
end

local check_capacity = lib.check_capacity  -- scripts/ti4/lib.lua

hook {
  id = "graviton_laser_system",
  window = "tactical_action.before_space_cannon",
  source = "technology/graviton_laser_system",
  optional = true,
  condition = function(ctx, player, source)
    if ctx:flag(source, EXHAUSTED) then return false end
    return offense_target(ctx, player) ~= nil
  end,
  helps = function(ctx, player)
    local target = offense_target(ctx, player)
    return ctx:count(target, ctx:role("active_system"), "fighter") > 0 and #non_fighter_ships(ctx, target) > 0
  end,
  apply = function(ctx, player, source)
    ctx:set_flag(source, EXHAUSTED, "game")
    ctx:set_flag(source, "graviton_laser_system_used", "action")
  end,
}

hook {
  id = "graviton_laser_system_hits",
  window = "tactical_action.assign_space_cannon_hits",
  source = "technology/graviton_laser_system",
  condition = function(ctx, player, source, args)
    return args.player == player and ctx:flag(source, "graviton_laser_system_used") and (args.hits[args.target] or 0) > 0
  end,
  apply = function(ctx, _, _, args)
    local target, sys = args.target, ctx:role("active_system")
    local policy = ctx:policy(target)
    local ships, room, types, seen = non_fighter_ships(ctx, target), 0, {}, {}
    for _, u in ipairs(ships) do
      room = room + 1
      if policy.sustain ~= "never" and ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then room = room + 1 end
      local t = ctx:type(u)
      if not seen[t] then seen[t] = true; types[#types + 1] = t end
    end
    local n = math.min(room, args.hits[target])
    if n <= 0 then return end
    ctx:assign_hits(target, sys, n, { eligible = "ship", types = types, can_sustain = "sustain_damage", damaged = "damaged",
      decision = "tactical_action.assign_space_cannon_hits", destroyed_window = "tactical_action.unit_destroyed" },
      policy.hit_order, policy.sustain)
    args.hits[target] = args.hits[target] - n
    -- the procedure checks capacity only after the hits it assigns itself
    if args.hits[target] == 0 then check_capacity(ctx, target, sys) end
  end,
}
