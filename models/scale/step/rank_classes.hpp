#pragma once
// Rank classes: ranks that provably do the same thing are simulated once.
//
// Two ranks are in one class when they run the same program at the same compute speed and sit
// in the same communicators (the same group in every slot). By induction over events they then
// have the same state at every instant (models/scale/README.md, "Why a fold is exact"), so one
// representative per class is enough for the executor (arrivals count the class's size; launches
// and completions touch representatives only), and its accounts are every member's. The
// collectives themselves still launch over the full groups with all their flows (every group
// holds the representative of each of its members' classes), so the network sees exactly the
// flows of the full simulation: no link is folded and no guard is needed.
// Not applicable, every rank simulated (why_not says why): programs with point-to-point ops
// (per-pair transfers) or offload copies (per-rank flows on shared host links).
// Ranks given in `keep` (the timeline's) are simulated on their own.
#include <vector>

#include "models/scale/step_fold.hpp"
#include "models/workload/program.hpp"

namespace models::scale {

RankClasses rank_classes(const std::vector<workload::Program>& programs, const std::vector<workload::RankSetup>& ranks,
                         const std::vector<int>& keep);

}  // namespace models::scale
