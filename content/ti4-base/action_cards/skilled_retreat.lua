-- Skilled Retreat (base action card). Window: start of a combat round. Not a retreat (no
-- announcement, no own units needed where it goes), but a move: a system is open when no other
-- player's ships are there, and the movement limits of anomalies still hold. Those are the
-- retreat_eligibility window's hooks (nebula, asteroid field, supernova), so the card asks that
-- window with eligible = "no other ships" and lets them say no.
--
-- Fleeing at the first chance is not what a player means, so the default policy (helps) plays it
-- only when the player's retreat policy (never, when_outnumbered, or a number of rounds) says it
-- is time to leave.
-- Ships with a move value go; fighters and ground forces in the space area go while their
-- capacity lasts (transport_order), the rest are removed (as in 7.2).
-- Test: tests/cards/skilled_retreat.toml

local lib = require "lib"  -- scripts/ti4/lib.lua
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua: adjacency as the player sees it (Void Tether)

local function open_systems(ctx, player)
  local out = {}
  for _, sys in ipairs(galaxy.adjacent(ctx, ctx:role("active_system"), player)) do
    local args = { player = player, system = sys, eligible = not lib.other_ships(ctx, player, sys), by_rule = false }
    ctx:open("space_combat.retreat_eligibility", args)
    if args.eligible then out[#out + 1] = sys end
  end
  return out
end

local function place_token(ctx, player, sys)
  if #ctx:entities { kind = "command_token", owner = player, location = sys } > 0 then return end
  if ctx:get(player, "reinforcement_tokens") <= 0 then return end
  ctx:set(player, "reinforcement_tokens", ctx:get(player, "reinforcement_tokens") - 1)
  ctx:create { kind = "command_token", owner = player, location = sys }
  if ctx:tracing() then
    ctx:event("command_token:" .. ctx:name(player) .. ":" .. ctx:name(sys) .. ":reinforcement_tokens",
      ctx:name(player) .. " places a command token in " .. ctx:name(sys) .. " from reinforcements")
  end
end

hook {
  id = "skilled_retreat",
  window = "space_combat.start_of_round",
  source = "action_card/skilled_retreat",
  optional = true,
  discard = true,
  condition = function(ctx, player)
    return ctx:count(player, ctx:role("active_system"), "ship") > 0 and #open_systems(ctx, player) > 0
  end,
  helps = function(ctx, player) return lib.time_to_retreat(ctx, player) end,
  apply = function(ctx, player)
    local here = ctx:role("active_system")
    local open = open_systems(ctx, player)
    local names = {}
    for i, s in ipairs(open) do names[i] = ctx:name(s) end
    local choice = ctx:decide(player, "space_combat.retreat_to", names)
    local dest = open[1]
    for i, n in ipairs(names) do if n == choice then dest = open[i] end end

    local movers, cargo, room = {}, {}, 0
    for _, u in ipairs(ctx:units(player, here)) do
      if ctx:get(u, "move") > 0 then
        movers[#movers + 1] = u
        room = room + ctx:get(u, "capacity")
      elseif ctx:get(u, "fighter") or ctx:get(u, "ground_force") then
        cargo[#cargo + 1] = u
      end
    end
    lib.sort_cargo(ctx, player, cargo)
    for _, u in ipairs(movers) do ctx:move(u, dest) end
    for i, u in ipairs(cargo) do
      if i <= room then ctx:move(u, dest) else ctx:move(u, "reinforcements") end
    end
    if ctx:tracing() then
      ctx:event("skilled_retreat:" .. ctx:name(player) .. ":" .. ctx:name(dest),
        ctx:name(player) .. " moves " .. #movers .. " ships to " .. ctx:name(dest) .. " (Skilled Retreat)")
    end
    if #movers > 0 then place_token(ctx, player, dest) end
  end,
}
