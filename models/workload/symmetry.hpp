#pragma once
// Rank classes: ranks that provably do the same thing are simulated once (issue 14,
// docs/scale-design.md section 2, first step).
//
// Two ranks are in one class when they run the same program at the same compute speed and sit
// in the same communicators (the same group in every slot). By induction over events they then
// have the same state at every instant: they start together, their compute ops take the same
// time, and every collective they wait for is one instance shared by both, which ends at one
// instant for all its members. So one representative per class is enough for the executor
// (arrivals count the class's size; launches and completions touch representatives only), and
// its accounts are every member's. The collectives themselves still launch over the full groups
// with all their flows (every group holds the representative of each of its members' classes),
// so the network sees exactly the flows of the full simulation.
// Not symmetric, every rank simulated (the reason goes to the run's notes): programs with
// point-to-point ops (per-pair transfers) or offload copies (per-rank flows on shared host links).
// Ranks given in `keep` (the timeline's) are simulated on their own.
#include <string>
#include <vector>

#include "models/workload/program.hpp"

namespace models::workload {

struct RankClasses {
  std::vector<int> rep;   // per rank: the rank simulated for it (itself if simulated)
  std::vector<int> size;  // per rank: how many ranks it stands for (0 if not simulated)
  int simulated = 0;      // ranks simulated
  std::string why_full;   // non-empty: every rank simulated, and why
};

RankClasses rank_classes(const std::vector<Program>& programs, const std::vector<RankSetup>& ranks,
                         const std::vector<int>& keep);

}  // namespace models::workload
