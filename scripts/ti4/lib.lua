-- Helpers shared by the TI4 procedure, its policies and any pack (a pack's `require "lib"`
-- finds this file when the pack has no lib.lua of its own). Functions only: no state.

local lib = {}

-- The other side of the combat.
function lib.opponent(ctx, player)
  local a, d = ctx:role("attacker"), ctx:role("defender")
  return player == a and d or a
end

function lib.has_ships(ctx, player, sys)
  return ctx:count(player, sys, "ship") > 0
end

-- Whether a player other than `player` has ships in `sys` (7.3, movement).
function lib.other_ships(ctx, player, sys)
  for _, other in ipairs(ctx:players()) do
    if other ~= player and ctx:count(other, sys, "ship") > 0 then return true end
  end
  return false
end

-- Whether `player` owns the technology `tech`.
function lib.owns(ctx, player, tech)
  return #ctx:entities { kind = "technology", owner = player, type = tech } > 0
end

-- Sorts fighters and ground forces by the player's transport_order (types it does not name go
-- last), then by entity order: the first ones are carried while capacity lasts.
function lib.sort_cargo(ctx, player, cargo)
  local order = ctx:policy(player).transport_order or {}
  local function rank(u)
    local t = ctx:type(u)
    for i, name in ipairs(order) do if name == t then return i end end
    return #order + 1
  end
  table.sort(cargo, function(a, b)
    local ra, rb = rank(a), rank(b)
    if ra ~= rb then return ra < rb end
    return a < b
  end)
end

-- Whether the player's retreat policy says to leave now: "never", "when_outnumbered" (fewer
-- ships than the opponent here) or N (once N rounds have been fought). Also says why.
function lib.time_to_retreat(ctx, player)
  local r = ctx:policy(player).retreat
  local sys = ctx:role("active_system")
  if r == "when_outnumbered" then
    local mine, theirs = ctx:count(player, sys, "ship"), ctx:count(lib.opponent(ctx, player), sys, "ship")
    if mine < theirs then return true, "outnumbered " .. mine .. " to " .. theirs end
    return false, "not outnumbered (" .. mine .. " to " .. theirs .. ")"
  end
  if math.type(r) == "integer" then
    local fought = ctx:counter(sys, "round") - 1
    if fought >= r then return true, "retreat after " .. r .. " rounds" end
    return false, "retreat after " .. r .. " rounds; " .. fought .. " fought"
  end
  return false, "retreat: never"
end

return lib
