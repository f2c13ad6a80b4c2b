#pragma once
// The per-rank step breakdown of a finished StepExecutor in seconds (RankBreakdown), and the
// mean over ranks; both add up to the step time (models/workload/step_breakdown.hpp).
#include <vector>

#include "models/result.hpp"
#include "models/workload/executor.hpp"

namespace models {

RankBreakdown rank_breakdown(const workload::StepExecutor& exec, int rank, sim::Time step_end);
RankBreakdown mean_breakdown(const std::vector<RankResult>& ranks);
// Every term and the sum divided by `k` (a bare collective's step is one of k iterations).
RankBreakdown scaled(const RankBreakdown& b, double k);

}  // namespace models
