-- Duranium Armor (base technology). Two hooks: the first remembers, on the unit, that it used
-- Sustain Damage this round (a flag scoped to "round", cleared by the runtime when the round
-- ends); the second, right after hits are assigned (before_retreat is the next window the
-- procedure opens), repairs one damaged unit without that flag: the one the owner would lose
-- last (the end of their hit_order). Test: tests/cards/duranium_armor.toml

local SUSTAINED = "sustained_damage_this_round"

local function rank(order, type)
  for i, t in ipairs(order) do if t == type then return i end end
  return #order + 1
end

-- a damaged unit that did not sustain this round
local function may_repair(ctx, u) return not ctx:flag(u, SUSTAINED) end

-- damaged units in the active system that may be repaired, the most valuable first
local function repairable(ctx, player)
  local out = {}
  for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "damaged")) do
    if may_repair(ctx, u) then out[#out + 1] = u end
  end
  local order = ctx:policy(player).hit_order or {}
  table.sort(out, function(a, b)
    local ra, rb = rank(order, ctx:type(a)), rank(order, ctx:type(b))
    if ra ~= rb then return ra > rb end
    return a < b
  end)
  return out
end

hook {
  id = "duranium_armor_sustained",
  window = "space_combat.unit_sustained_damage",
  source = "technology/duranium_armor",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, _, _, args) ctx:set_flag(args.unit, SUSTAINED, "round") end,
}

hook {
  id = "duranium_armor",
  window = "space_combat.before_retreat",
  source = "technology/duranium_armor",
  condition = function(ctx, player)
    -- (no sort: the condition runs at every round's before_retreat)
    for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "damaged")) do
      if may_repair(ctx, u) then return true end
    end
    return false
  end,
  apply = function(ctx, player)
    local u = repairable(ctx, player)[1]
    ctx:set(u, "damaged", false)
    if ctx:tracing() then
      ctx:event("repaired:" .. ctx:name(player) .. ":" .. ctx:type(u), ctx:name(player) .. " repairs a " .. ctx:type(u) .. " (Duranium Armor)")
    end
  end,
}
