-- Default decision heuristics of the TI4 ruleset. Each gets (ctx, player, options, policy,
-- decision), where policy is the player's [side.policy] settings with defaults filled in by
-- setup.lua, and returns the chosen option and a reason for the trace.

local P = {}

local function opponent(ctx, player)
  local a, d = ctx:role("attacker"), ctx:role("defender")
  return player == a and d or a
end

-- retreat = "never" | "when_outnumbered" | N (announce once N rounds have been fought)
P["space_combat.announce_retreat"] = function(ctx, player, options, policy)
  local r = policy.retreat
  if r == "never" then return "no", "retreat: never" end
  local sys = ctx:role("active_system")
  if r == "when_outnumbered" then
    local mine, theirs = ctx:count(player, sys, "ship"), ctx:count(opponent(ctx, player), sys, "ship")
    if mine < theirs then return "yes", "outnumbered " .. mine .. " to " .. theirs end
    return "no", "not outnumbered (" .. mine .. " to " .. theirs .. ")"
  end
  local fought = ctx:counter(sys, "round") - 1
  if fought >= r then return "yes", "retreat after " .. r .. " rounds" end
  return "no", "retreat after " .. r .. " rounds; " .. fought .. " fought"
end

-- the first eligible system, unless the policy names one (retreat_to = "home")
P["space_combat.retreat_to"] = function(ctx, player, options, policy)
  if policy.retreat_to then
    for _, o in ipairs(options) do
      if o == policy.retreat_to then return o, "retreat_to " .. o end
    end
  end
  return options[1], "the first eligible system"
end

-- ground forces taken from planets: none unless retreat_ground_forces says how many
P["space_combat.retreat_ground_forces"] = function(ctx, player, options, policy)
  local want = math.min(policy.retreat_ground_forces or 0, #options - 1)
  return options[want + 1], "retreat_ground_forces " .. (policy.retreat_ground_forces or 0)
end

-- which unit to remove when over capacity: the type that comes last in transport_order
P["space_combat.remove_excess"] = function(ctx, player, options, policy)
  local order = policy.transport_order or {}
  local best, best_rank = options[1], -1
  for _, o in ipairs(options) do
    local rank = #order + 1
    for i, t in ipairs(order) do if t == o then rank = i end end
    if rank > best_rank then best, best_rank = o, rank end
  end
  return best, "the last type in transport_order"
end

-- optional abilities ("may"): used unless the policy says use = { name = "never" }
P.use = function(ctx, player, options, policy, decision)
  local id = decision:sub(5)
  local v = policy.use and policy.use[id]
  if v == false or v == "never" or v == "no" then return "no", "use." .. id .. " = never" end
  return "yes", "optional abilities are used when they can be"
end

return P
