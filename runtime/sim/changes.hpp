// sim/changes: the scenario changes of --with and --without (simulate, compare, trace and the
// page of rulebench serve). A change adds or removes records (technologies, cards, laws), packs,
// or settings (policy.sustain=last), for one side or every side, by editing the scenario table
// before the session is built, so nothing here knows a game: which list of a side grants a record
// of a kind comes from the ruleset (`scenario_lists`), the sides from its report.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace rb {

// What a variant changes, as written on the command line. Each entry is one of:
//   [SIDE:]RECORD       a record added to (removed from) the side's list for its kind
//                       (attacker:cruiser_ii, morale_boost, technology/cruiser_ii); no SIDE:
//                       every side of the ruleset's report
//   PACK                a pack id or folder, loaded (not loaded)
//   [SIDE:]PATH=VALUE   a setting in the side's table (attacker:policy.sustain=last); no SIDE:
//                       every side; SIDE "scenario": the top-level table (scenario:system.anomaly=
//                       nebula). VALUE: true, false, a number, a,b,c (a list) or text. In
//                       `without`, [SIDE:]PATH removes the setting (back to the default).
struct Changes {
  std::vector<std::string> with, without;
  bool empty() const { return with.empty() && without.empty(); }
  std::string describe() const;  // "with attacker:cruiser_ii, without defender:policy.sustain"
};

// The session of `base` changed by `changes` (a new content load when packs change). Throws
// UsageError for a change that cannot apply, ContentError from loading.
Session apply_changes(const Session& base, const Changes& changes, const SessionOptions& options);

}  // namespace rb
