// Step breakdown in seconds (see breakdown.hpp).
#include "models/run/breakdown.hpp"

#include "sim/check.hpp"

namespace models {

RankBreakdown rank_breakdown(const workload::StepExecutor& exec, int rank, sim::Time step_end) {
  const workload::StepBreakdown b = exec.breakdown(rank, step_end);
  SIM_CHECK(b.total() == step_end - exec.start(), "the step breakdown does not add up to the step");
  RankBreakdown out;
  out.compute_s = b.compute.seconds();
  out.interference_s = b.interference.seconds();
  out.exposed_comm_s = b.exposed.seconds();
  out.host_s = b.host.seconds();
  out.bubble_s = b.bubble.seconds();
  out.barrier_wait_s = b.barrier.seconds();
  out.other_s = b.other.seconds();
  return out;
}

RankBreakdown mean_breakdown(const std::vector<RankResult>& ranks) {
  RankBreakdown m;
  for (const auto& r : ranks) {
    m.compute_s += r.breakdown.compute_s;
    m.interference_s += r.breakdown.interference_s;
    m.exposed_comm_s += r.breakdown.exposed_comm_s;
    m.host_s += r.breakdown.host_s;
    m.bubble_s += r.breakdown.bubble_s;
    m.barrier_wait_s += r.breakdown.barrier_wait_s;
    m.other_s += r.breakdown.other_s;
  }
  return ranks.empty() ? m : scaled(m, double(ranks.size()));
}

RankBreakdown scaled(const RankBreakdown& b, double k) {
  return {b.compute_s / k, b.interference_s / k, b.exposed_comm_s / k, b.host_s / k,
          b.bubble_s / k,  b.barrier_wait_s / k, b.other_s / k};
}

}  // namespace models
