-- Articles of War (Prophecy of Kings law). In short: every mech keeps Sustain Damage and loses all
-- its other printed abilities. Windows: the first of each procedure, tactical_action.activation and
-- space_combat.start_of_combat. Every mech on the board (every player's) that stands for a
-- faction's mech record becomes the generic mech record (ctx:upgrade: its type name stays "mech"),
-- so hooks and modifiers whose source or `present` is the faction's mech record no longer see it
-- (Jol-Nar's Shield Paling, Sardakk N'orr's Valkyrie Exoskeleton ...); its ability attributes are
-- cleared (Anti-Fighter Barrage, Bombardment, Space Cannon, Planetary Shield, Production,
-- fighter capacity), and its printed values stay (cost, combat and dice: the Eidolon's two dice,
-- move, capacity). Sustain Damage stays. Not switched off: a mech's ability written as a hook of
-- the faction rather than of the mech (Letnev's deploy), and mechs placed after the law acted.
-- Test: tests/cards/articles_of_war.toml

local CLEARED = { "afb", "afb_dice", "bombardment", "bombardment_dice", "space_cannon", "space_cannon_dice",
  "space_cannon_range", "planetary_shield", "production", "fighter_capacity" }
local KEPT = { "cost", "combat", "dice", "move", "capacity" }

-- every mech on the board that still has a faction's record
local function faction_mechs(ctx)
  local out = {}
  for _, u in ipairs(ctx:units(nil, nil, "type:mech")) do
    local rec = ctx:record(ctx:record_id(u), "unit")
    if rec and rec.faction then out[#out + 1] = u end
  end
  return out
end

local function apply(ctx)
  for _, u in ipairs(faction_mechs(ctx)) do
    local kept = {}
    for _, a in ipairs(KEPT) do kept[a] = ctx:get(u, a) end
    local was = ctx:record_id(u)
    ctx:upgrade(u, "mech")
    for _, a in ipairs(KEPT) do ctx:set(u, a, kept[a]) end
    for _, a in ipairs(CLEARED) do ctx:set(u, a, 0) end
    if ctx:tracing() then
      ctx:event("articles_of_war:" .. ctx:name(ctx:owner(u)), ctx:name(ctx:owner(u)) .. "'s mech (" .. was .. ") loses its printed abilities but Sustain Damage (Articles of War)")
    end
  end
end

hook {
  id = "articles_of_war",
  window = "tactical_action.activation",
  source = "agenda/articles_of_war",
  condition = function(ctx) return #faction_mechs(ctx) > 0 end,
  apply = apply,
}

hook {
  id = "articles_of_war_combat",
  window = "space_combat.start_of_combat",
  source = "agenda/articles_of_war",
  condition = function(ctx) return #faction_mechs(ctx) > 0 end,
  apply = apply,
}
