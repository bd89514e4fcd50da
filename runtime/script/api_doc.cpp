#include "script/api_doc.hpp"

namespace rb {

namespace {

constexpr ApiFunction kFunctions[] = {
    // entities
    {"ctx", "create",
     "spec: {kind: Kind, type: RecordRef?, owner: Entity?, location: Entity?, name: string?}",
     "Entity", "A new entity; `type` names a record whose attributes it copies."},
    {"ctx", "kind", "e: Entity", "Kind", "What kind of entity it is (unit, planet, player...)."},
    {"ctx", "type", "e: Entity", "string", "Its type: the short name of its record (cruiser)."},
    {"ctx", "name", "e: Entity", "string",
     "Its name, as the trace says it (a player's name, a planet's)."},
    {"ctx", "record_id", "e: Entity", "string?",
     "The full id of its record (my-pack:unit/cruiser), nil for none."},
    {"ctx", "owner", "e: Entity", "Entity?", "Its owner (a player), nil for none."},
    {"ctx", "set_owner", "e: Entity, player: Entity?", "", "Gives it to another player."},
    {"ctx", "location", "e: Entity", "Entity|\"reinforcements\"|nil",
     "Where it is; \"reinforcements\" is off the board."},
    {"ctx", "move", "e: Entity, location: Entity|\"reinforcements\"|nil", "",
     "Moves it (\"reinforcements\": off the board)."},
    {"ctx", "get", "e: Entity, attr: Attribute", "integer|boolean|string|nil",
     "An attribute's value (nil when not set)."},
    {"ctx", "set", "e: Entity, attr: Attribute, value: integer|boolean|string|nil", "",
     "Sets an attribute."},
    {"ctx", "set_type", "e: Entity, record: RecordRef", "",
     "It becomes another record of its kind (keeps owner, location, damage)."},
    {"ctx", "upgrade", "e: Entity, record: RecordRef", "",
     "It takes another record's attributes but keeps its type name (Cruiser II)."},
    {"ctx", "units",
     "owner: Entity?, location: Entity|\"reinforcements\"|nil, ...: Attribute|string", "Entity[]",
     "Units (nil owner: anyone; nil location: on the board); attributes: any must be set, or "
     "\"type:cruiser\"."},
    {"ctx", "count",
     "owner: Entity?, location: Entity|\"reinforcements\"|nil, ...: Attribute|string", "integer",
     "How many units ctx:units would return."},
    {"ctx", "sum",
     "owner: Entity?, location: Entity|\"reinforcements\"|nil, attr: Attribute, filter: "
     "Attribute|string|nil",
     "integer", "The sum of an integer attribute over the units ctx:count would count."},
    {"ctx", "entities",
     "query: {kind: Kind?, owner: Entity?, type: RecordRef?, location: "
     "Entity|\"reinforcements\"|nil}",
     "Entity[]", "Entities of any kind."},
    {"ctx", "role", "name: Role, ...: Role", "Entity?",
     "The entity of each role named (ctx:role(\"attacker\", \"defender\") returns both); nil if "
     "none."},
    {"ctx", "set_role", "name: Role, e: Entity?", "", "Gives a role to an entity (nil: nobody)."},
    {"ctx", "players", "", "Entity[]", "The players in turn order."},
    // counters, flags, scopes
    {"ctx", "counter", "e: Entity, key: string", "integer", "A counter (0 when never set)."},
    {"ctx", "add_counter", "e: Entity, key: string, delta: integer, scope: Scope?", "integer",
     "Adds to a counter; it is cleared when the scope ends."},
    {"ctx", "set_counter", "e: Entity, key: string, value: integer, scope: Scope?", "",
     "Sets a counter until the scope ends."},
    {"ctx", "flag", "e: Entity, key: string", "boolean", "Whether a flag is set."},
    {"ctx", "set_flag", "e: Entity, key: string, scope: Scope?", "",
     "Sets a flag until the scope ends."},
    {"ctx", "end_scope", "scope: Scope, ...: Scope", "",
     "The counters, flags and modifiers of each scope named end."},
    // adjacency
    {"ctx", "link", "a: Entity, b: Entity, kind: string?", "",
     "Makes two entities adjacent (a wormhole, a card)."},
    {"ctx", "linked", "a: Entity, b: Entity, kind: string?", "boolean",
     "Whether a link joins them (links only)."},
    {"ctx", "adjacent", "e: Entity, kind: string?", "Entity[]",
     "Hex neighbours on the board, then linked entities, each once."},
    {"ctx", "is_adjacent", "a: Entity, b: Entity, kind: string?", "boolean",
     "Whether b is among ctx:adjacent(a, kind)."},
    {"ctx", "link_kinds", "a: Entity, b: Entity", "string[]",
     "What makes b adjacent to a, each kind once: \"hex\", then each link's kind in link order "
     "(\"\" for a link made without one); {} when not adjacent."},
    // records, modifiers
    {"ctx", "activate", "modifier: string, player: Entity, scope: Scope", "",
     "Switches a declared `activated` modifier on until the scope ends."},
    {"ctx", "record", "ref: RecordRef, kind: Kind?", "table?",
     "A record's data: id, kind, name, its attributes and text fields; nil if unknown."},
    {"ctx", "records", "kind: Kind", "string[]",
     "The short names of the loaded records of a kind."},
    // scenario, policies
    {"ctx", "reject", "path: string, message: string", "",
     "(setup) A bad scenario value: an error with its line in the scenario."},
    {"ctx", "label", "metric: string, text: string", "",
     "(setup) What the report calls a metric: planet_1_controlled (Abyz)."},
    {"ctx", "policy", "player: Entity", "table",
     "The player's policy settings (read-only in a hook)."},
    {"ctx", "set_policy", "player: Entity, settings: table", "",
     "(setup) The player's policy settings."},
    {"ctx", "scenario", "", "table", "The scenario's table (read-only in a hook)."},
    // dice
    {"ctx", "roll",
     "player: Entity?, die: Die, n: integer, spec: {purpose: Purpose?, unit: Entity?, threshold: "
     "integer?, reroll_limit: integer?, by_face: boolean?, faces: (string|string[])[]?}?",
     "Pool",
     "Rolls n dice into a new pool. by_face: the script reads only how many dice show each face "
     "(pool:count): the dice lie in the pool in the order of the die's faces, and the roll is "
     "drawn as its counts per face (the step memo and the exact mode branch on the counts, "
     "C(n+k-1, k-1) ways for k faces, not on the k^n face sequences). faces (implies by_face): "
     "the faces the script reads, each a face or a list of faces it reads only together "
     "(pool:count(a, b)); the faces no entry names are one class more. The roll is drawn as the "
     "counts of these classes; a die of a class whose faces read differently shows one of them "
     "only when a script reads it (drawn then). Define the list once, at file level."},
    {"ctx", "roll_units",
     "player: Entity, location: Entity, spec: {purpose: Purpose, die: Die, value: Attribute, "
     "count: Attribute?, eligible: Attribute?}",
     "Pool, integer",
     "Every unit with `value` set rolls `count` dice against it (ascending by value), with the "
     "live modifiers; returns the pool and its hits."},
    {"ctx", "roll_hits",
     "player: Entity, location: Entity, spec: {purpose: Purpose, die: Die, value: Attribute, "
     "count: Attribute?, eligible: Attribute?}",
     "integer",
     "The roll ctx:roll_units makes, when no script reads its dice: only the number of hits."},
    {"ctx", "assign_hits",
     "player: Entity, location: Entity, hits: integer, spec: table, order: string[]?, sustain: "
     "\"first\"|\"last\"|\"never\"|nil, sustain_cancels: integer?",
     "integer, integer",
     "Casualties by scripted answer, best play or policy: returns how many units were destroyed "
     "and how many sustained damage. sustain_cancels (default 1): the hits each Sustain Damage "
     "cancels in this assignment. The units lost leave together, then the destroyed windows "
     "open."},
    {"ctx", "assign_hits_each",
     "location: Entity, assignments: {player: Entity, hits: integer, spec: table, order: "
     "string[]?, sustain: string?, sustain_cancels: integer?}[]",
     "integer, integer",
     "Hits assigned by several players at once: each chooses (as ctx:assign_hits) against the "
     "same board; then the sustained windows, every unit lost leaves together, and the destroyed "
     "windows open. Returns the totals destroyed and sustained."},
    {"ctx", "exchange_fire",
     "location: Entity, a: Entity, d: Entity, spec: table, order_a: string[]?, sustain_a: string?, "
     "order_d: string[]?, sustain_d: string?, cap: integer?, round_args: table?",
     "boolean|\"again\"|nil",
     "Rounds of simultaneous fire in C++ for as long as no hook of spec.windows can run; whether "
     "both sides still have units. With spec.again, a step the step memo records runs one round "
     "and returns \"again\" (the step returns it too). spec.start_of_round, spec.end_of_round: "
     "the windows the round opens (with round_args); the exact mode runs their hooks in C++."},
    {"ctx", "destroy", "e: Entity, window: Window?", "",
     "To reinforcements; opens the window with {unit=, player=, location=}."},
    // windows, decisions, the trace, results
    {"ctx", "open", "window: Window, ...: Window|table", "integer",
     "Opens windows as one timing window (a table last: the hooks' args); returns how many hooks "
     "ran."},
    {"ctx", "hooked", "window: Window, ...: Window", "boolean",
     "For each window, whether a hook there can run in this run."},
    {"ctx", "decide", "player: Entity, decision: Decision|string, options: any[]", "any",
     "Scripted answer, else policy, else a person, else the first option; returns the option "
     "chosen."},
    {"ctx", "by_policy", "player: Entity, decision: Decision|string", "boolean",
     "Whether that decision would now go to the policy (no scripted answer waits, no person is "
     "asked)."},
    {"ctx", "event",
     "key: string, text: string?, fields: {player: Entity?, unit: Entity?, path: Entity[]?}?", "",
     "A trace event of your own (key matched by rules tests, text for people); fields, for "
     "programs: player and unit by name, path as places with their hexes (a move)."},
    {"ctx", "tracing", "", "boolean", "Whether the run is traced: build event texts only then."},
    {"ctx", "result", "outcome: Outcome", "", "The run's outcome (one of the report's outcomes)."},
    {"ctx", "metric", "name: string, value: number", "", "A number the simulation summarises."},
    {"ctx", "add_metric", "name: string, delta: number", "",
     "Adds to a metric (0 when not yet written)."},
    {"ctx", "steps", "list: (fun(ctx: Ctx): \"again\"|nil)[]", "",
     "(procedure) Runs each step in order; the runtime may replay a step from the same state."},
    // the board
    {"ctx", "set_board",
     "spec: {orientation: \"flat\"|\"pointy\"|nil, spiral_start: string|integer|nil, winding: "
     "\"clockwise\"|\"counter_clockwise\"|nil}",
     "", "The board's orientation and spiral order."},
    {"ctx", "place", "e: Entity, hex: Hex?", "",
     "The entity sits at the hex (nil: off the board)."},
    {"ctx", "add_hex", "hex: Hex", "", "The hex exists on the board with nothing on it."},
    {"ctx", "on_board", "hex: Hex", "boolean",
     "Whether the hex exists (an entity: whether it has a hex)."},
    {"ctx", "at_hex", "hex: Hex", "Entity?", "The entity placed there, or nil."},
    {"ctx", "hex", "e: Entity", "HexCoord?", "Its hex, or nil."},
    {"ctx", "hexes", "", "HexCoord[]", "Every hex of the board, by r then q."},
    {"ctx", "hex_neighbours", "hex: Hex, on_board: boolean?", "HexCoord[]",
     "The six neighbours in direction order (true: only those on the board)."},
    {"ctx", "hex_neighbour", "hex: Hex, direction: integer|string", "HexCoord", "One neighbour."},
    {"ctx", "hex_distance", "a: Hex, b: Hex", "integer", "Steps between two hexes."},
    {"ctx", "hex_ring", "centre: Hex, radius: integer", "HexCoord[]",
     "The hexes at that distance, in spiral order."},
    {"ctx", "hex_spiral", "index: integer, centre: Hex?", "HexCoord",
     "The hex at a spiral index (0: the centre)."},
    {"ctx", "spiral_index", "hex: Hex, centre: Hex?", "integer", "A hex's index in spiral order."},
    {"ctx", "hex_line", "a: Hex, b: Hex", "HexCoord[], HexCoord[]",
     "Two lists of hexes from a to b, the line nudged one way and the other."},
    {"ctx", "hex_sight", "a: Hex, b: Hex, obstructs: fun(e: Entity?, ...): any, ...: any",
     "boolean, any, HexCoord?, any, HexCoord?",
     "Whether the exact segment between two hex centres is clear: obstructs(e, ...) names what "
     "the entity on a hex it meets obstructs as (nil: nothing; e nil: off the board); a hex "
     "passed through blocks, hexes only touched block with obstructions on both sides. false, "
     "what, hex (passed through) or false, what, hex, what2, hex2 (touched on each side)."},
    {"ctx", "offset_hex",
     "col: integer, row: integer, layout: \"odd_r\"|\"even_r\"|\"odd_q\"|\"even_q\"", "HexCoord",
     "A rectangular board's column and row to a hex."},
    {"ctx", "hex_offset", "hex: Hex, layout: \"odd_r\"|\"even_r\"|\"odd_q\"|\"even_q\"",
     "integer, integer", "A hex to column and row."},
    // pools
    {"pool", "size", "", "integer", "How many dice (also #pool)."},
    {"pool", "hits", "", "integer", "How many dice hit (not cancelled)."},
    {"pool", "count", "face: string, ...: string", "integer",
     "How many dice show one of the faces (faced dice)."},
    {"pool", "face", "i: integer", "string", "Die i's face label."},
    {"pool", "value", "i: integer", "integer",
     "Die i's value (numeric dice: the 0 face of a d10 reads 10)."},
    {"pool", "result", "i: integer", "integer", "Die i's value with its modifiers."},
    {"pool", "unit", "i: integer", "Entity?", "The unit that rolled die i."},
    {"pool", "player", "i: integer", "Entity?", "The player who rolled die i."},
    {"pool", "hit", "i: integer", "boolean", "Whether die i hits."},
    {"pool", "rerolls", "i: integer", "integer", "How often die i was rerolled."},
    {"pool", "cancelled", "i: integer", "boolean", "Whether die i was cancelled."},
    {"pool", "threshold", "i: integer", "integer", "What die i needs to hit."},
    {"pool", "reroll", "i: integer", "boolean",
     "Rerolls die i; false when it reached its reroll limit."},
    {"pool", "set", "i: integer, face: string|integer", "",
     "Sets die i's face (a face name, or a number for numeric dice)."},
    {"pool", "modify", "i: integer, delta: integer", "", "Adds to die i's result."},
    {"pool", "cancel", "i: integer", "", "Cancels die i."},
    {"pool", "add", "n: integer, like: integer|Die|nil", "",
     "Rolls n more dice like die `like` (default the first), or of a die type."},
    {"pool", "remove", "i: integer", "", "Takes die i out of the pool."},
    {"pool", "set_reroll_limit", "n: integer", "", "How often each die may be rerolled."},
    {"pool", "faces", "", "string[]", "Every die's face label."},
};

constexpr ApiField kHookFields[] = {
    {"id", "string", false, "The hook's id, unique in its pack (the trace and tests name it)."},
    {"window", "Window", false, "The window it runs in (`rulebench list windows`)."},
    {"source", "RecordRef", true,
     "Who may use it: the record whose holders it fires for (a card, technology, faction); none: a "
     "rule."},
    {"optional", "boolean", true, "A \"may\": the owner's policy decides (decision use:<id>)."},
    {"limit", "Scope", true, "Once per this scope, for each copy of the source."},
    {"priority", "integer", true, "Higher runs first among one player's hooks."},
    {"discard", "boolean", true, "The card leaves the game after use."},
    {"condition", "fun(ctx: Ctx, player: Entity?, source: Entity?, args: table?): boolean", true,
     "Whether the rules allow it now (legality only); asked before the policy."},
    {"helps", "fun(ctx: Ctx, player: Entity?, source: Entity?, args: table?): boolean", true,
     "An optional hook's \"does it help\": handed to the default policy, which declines when it "
     "is false unless the scenario says use = \"always\"."},
    {"apply", "fun(ctx: Ctx, player: Entity?, source: Entity?, args: table?)", false,
     "What it does."},
    {"covered", "fun(ctx: Ctx, player: Entity?, source: Entity?, args: table?): boolean", true,
     "For a hook a declared modifier replaces (replaces_hooks): whether that modifier does all "
     "of the hook's work here; asked with args {location} before the rounds ctx:exchange_fire "
     "runs itself, and false hands them back to the procedure (where the hook runs)."},
    {"requires", "{counter: string, at_least: integer?}", true,
     "A counter (or flag) its owner must have at least this much of (default 1), checked "
     "before the condition: while it is short the hook does not run, and rounds the runtime "
     "runs itself need not hand its window back."},
    {"text", "string", true, "What the card says, for people."},
};

}  // namespace

std::span<const ApiFunction> api_functions() {
  return kFunctions;
}
std::span<const ApiField> hook_fields() {
  return kHookFields;
}

}  // namespace rb
