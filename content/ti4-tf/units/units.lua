-- Twilight's Fall's unit cards: the abilities that act in a space combat. Tests: ../tests/units.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Exotrireme: after a round of space combat, it may destroy itself to destroy up to 2 ships in its
-- system, as the Exotrireme II does (lib.sacrifice_for_two: the opponent's 2 most costly; the same
-- default policy; policy.use = { tf_exotrireme = "always" | "never" }).
hook(lib.sacrifice_for_two("tf_exotrireme", "unit/tf_exotrireme"))

-- Strike Wing Alpha: each of its Anti-Fighter Barrage results of 9 or 10 (the die as rolled) also
-- destroys 1 of the opponent's infantry in the active system's space area, as Strike Wing Alpha II
-- does (lib.barrage_kills_infantry).
hook(lib.barrage_kills_infantry("tf_strike_wing_alpha", "unit/tf_strike_wing_alpha"))

-- Linkship: when it retreats, its owner may destroy 1 ship in the active system that is damaged
-- or has no Sustain Damage, the most costly (lib.retreat_strike).
hook(lib.retreat_strike("tf_linkship", "unit/tf_linkship",
  function(ctx, u) return ctx:get(u, "damaged") or not ctx:get(u, "sustain_damage") end))

-- Justicer Rail: hits produced by these PDS (Space Cannon Offense: Space Cannon Defense hits
-- ground forces, where it changes nothing) go to non-fighter ships if able.
--   1. tactical_action.after_space_cannon_roll: the hits of the owner's Justicer Rails in each
--      pool are counted (counter on the card, scope action).
--   2. tactical_action.assign_space_cannon_hits: that many of the owner's hits go to the target's
--      non-fighter ships first, as far as those can take them (one each, one more for each
--      undamaged ship that may sustain under the target's policy); the target chooses which (its
--      hit_order). The rest go back to the procedure, which assigns them as usual. As Graviton
--      Laser System's hooks (ti4-base), for these units' hits only.
local JUSTICER = "ti4-tf:unit/tf_justicer_rail"
local JUSTICER_HITS = "tf_justicer_rail_hits"

hook {
  id = "tf_justicer_rail_roll",
  window = "tactical_action.after_space_cannon_roll",
  source = "technology/tf_justicer_rail",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, _, source, args)
    local n = 0
    for i = 1, args.pool:size() do
      if args.pool:hit(i) and ctx:record_id(args.pool:unit(i)) == JUSTICER then n = n + 1 end
    end
    if n > 0 then ctx:add_counter(source, JUSTICER_HITS, n, "action") end
  end,
}

hook {
  id = "tf_justicer_rail_hits",
  window = "tactical_action.assign_space_cannon_hits",
  source = "technology/tf_justicer_rail",
  condition = function(ctx, player, source, args)
    return args.player == player and ctx:counter(source, JUSTICER_HITS) > 0 and (args.hits[args.target] or 0) > 0
  end,
  apply = function(ctx, _, source, args)
    local target, sys = args.target, ctx:role("active_system")
    local policy = ctx:policy(target)
    local room, types, seen = 0, {}, {}
    for _, u in ipairs(ctx:units(target, sys, "ship")) do
      if not ctx:get(u, "fighter") then
        room = room + 1
        if policy.sustain ~= "never" and ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then room = room + 1 end
        local t = ctx:type(u)
        if not seen[t] then seen[t] = true; types[#types + 1] = t end
      end
    end
    local n = math.min(room, args.hits[target], ctx:counter(source, JUSTICER_HITS))
    ctx:set_counter(source, JUSTICER_HITS, 0, "action")
    if n <= 0 then return end
    ctx:assign_hits(target, sys, n, { eligible = "ship", types = types, can_sustain = "sustain_damage", damaged = "damaged",
      decision = "tactical_action.assign_space_cannon_hits", destroyed_window = "tactical_action.unit_destroyed" },
      policy.hit_order, policy.sustain)
    args.hits[target] = args.hits[target] - n
    -- the procedure checks capacity only after the hits it assigns itself
    if args.hits[target] == 0 then lib.check_capacity(ctx, target, sys) end
  end,
}
