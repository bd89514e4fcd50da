// exact/fire_chain: rounds of simultaneous fire (ctx:exchange_fire) as a Markov chain, for the
// exact mode. In such rounds no hook runs and nothing is decided: each side rolls, then takes the
// other side's hits by its policy. A side's roll depends only on its own units, and hit
// assignment by policy leaves the same units after k hits whatever rounds they came in, so a
// state is (hits taken by a, hits taken by d, the round counter, whether a round has ended).
// The chain is solved in topological order; a round in which nothing changes and the counter
// stays (saturated) is a self-loop, divided out. Without a cap the counter grows each round:
// states below `epsilon` are dropped and their probability reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rb {

struct FireSide {
  // hits[k]: the probability of rolling 0, 1, 2 ... hits once the side has taken k hits, in the
  // rounds after the first (their round scope ended: a modifier "until the end of the round" is
  // gone); k runs to the hits after which nothing of the side can take another. first[k]: the
  // same in the exchange's first round.
  std::vector<std::vector<double>> hits, first;
  std::vector<char> fires;  // fires[k]: after k hits the side still has units that roll
  // A side that spends a counter on near misses (a declared modifier's spend and raise): its
  // rolls as ways (hits, near misses), near[k] and near_first[k] as hits and first above, and
  // the counter it starts with. Each round it spends min(near misses, what is left), each spent
  // one a hit more, and what it has spent is one more dimension of the chain's states. Empty:
  // it spends nothing (hits and first are its rolls).
  struct Way {
    int hits = 0, near = 0;
    double p = 0;
  };
  std::vector<std::vector<Way>> near, near_first;
  std::int64_t spendable = 0;
  // A side whose units that use Sustain Damage are repaired, `repair_cost` of the counter each,
  // while it lasts (a declared modifier's repair = "sustained" with pay; it spends nothing on near
  // misses then): takes[k][h][r] is the hits-taken index it is at after taking h hits in a round
  // from k and paying for r repairs, r from 0 to the repairs that round would make (the size less
  // one). What it has paid (in repairs) is one more dimension of the chain's states. Empty: no
  // repair (k + h, as a plain side).
  std::vector<std::vector<std::vector<int>>> takes;
  std::int64_t repair_cost = 0;
};

struct FireEnd {
  int ka = 0, kd = 0;                     // hits taken by each side
  std::int64_t counter = 0;               // the round counter at the end
  bool several = false;                   // more than one round was fought (a round scope ended)
  double p = 0;                           // probability of this end
  double rounds = 0;                      // expected rounds fought, given this end
  std::int64_t spent_a = 0, spent_d = 0;  // what each side spent (near misses, repairs)
};

struct FireChainOptions {
  std::int64_t counter = 0;  // the counter when the exchange starts
  std::int64_t cap = -1;     // the counter stops growing here (-1: never)
  double epsilon = 1e-18;    // states less likely than this are dropped
  // with a side that spends: no ends (an empty answer) past this many states a phase
  std::size_t max_cells = std::size_t{1} << 22;
};

// The ends of the exchange, with their probabilities; `unresolved` gets the probability of the
// states dropped. With a side that spends (FireSide::near), a state is also what each side has
// spent, and the ends are in the order of (ka, kd, counter, several, spent_a, spent_d).
std::vector<FireEnd> fire_chain(const FireSide& a, const FireSide& d, const FireChainOptions& o,
                                double& unresolved);

}  // namespace rb
