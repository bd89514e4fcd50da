-- Emergency Repairs (base action card). Its moment is either the start or the end of a combat
-- round: one hook on
-- each window; whichever is used first discards the card, so it is played once. A player in the
-- combat may play it when it repairs something; the default policy (helps) only while the combat
-- goes on (not in the last round's merged end window, where a repair changes nothing). Test: tests/cards/emergency_repairs.toml

local function damaged(ctx, player)
  return ctx:units(player, ctx:role("active_system"), "damaged")
end

local function combat_goes_on(ctx)
  local sys = ctx:role("active_system")
  return ctx:count(ctx:role("attacker"), sys, "ship") > 0 and ctx:count(ctx:role("defender"), sys, "ship") > 0
end

local function repair_all(ctx, player)
  for _, u in ipairs(damaged(ctx, player)) do
    ctx:set(u, "damaged", false)
    if ctx:tracing() then
      ctx:event("repaired:" .. ctx:name(player) .. ":" .. ctx:type(u), ctx:name(player) .. " repairs a " .. ctx:type(u))
    end
  end
end

for _, when in ipairs { "start", "end" } do
  hook {
    id = "emergency_repairs_at_" .. when,
    window = "space_combat." .. when .. "_of_round",
    source = "action_card/emergency_repairs",
    optional = true,
    discard = true,
    condition = function(ctx, player)
      return (player == ctx:role("attacker") or player == ctx:role("defender")) and #damaged(ctx, player) > 0
    end,
    helps = function(ctx) return combat_goes_on(ctx) end,
    apply = function(ctx, player) repair_all(ctx, player) end,
  }
end
