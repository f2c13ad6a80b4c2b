#include "models/run/memory_estimate.hpp"

#include <cmath>
#include <cstdio>

#include "models/error.hpp"

namespace models {

namespace {
constexpr double kBaseBytes = 32.0 * 1024 * 1024;
constexpr double kPerRankBytes = 8.0 * 1024;
constexpr double kPerFlowBytes = 512;

bool is_alltoall(const ScenarioSpec& spec) {
  return spec.collective && (spec.collective->op == "alltoall" || spec.collective->op == "all_to_all");
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}
}  // namespace

MemoryEstimate estimate_memory(const ScenarioSpec& spec, int ranks) {
  const double n = ranks;
  MemoryEstimate e;
  if (spec.collective)
    e.peak_flows = is_alltoall(spec) ? n * (n - 1) : 4 * n;
  else
    e.peak_flows = 8 * n;
  e.bytes = kBaseBytes + n * kPerRankBytes + e.peak_flows * kPerFlowBytes;
  return e;
}

void check_memory_budget(const ScenarioSpec& spec, int ranks) {
  const MemoryEstimate e = estimate_memory(spec, ranks);
  if (e.bytes <= kMemoryBudgetBytes) return;
  const std::string head = std::to_string(ranks) + " ranks would need about " + gib(e.bytes) + " (" +
                           std::to_string(static_cast<long long>(e.peak_flows)) + " flows at once), over the " +
                           gib(kMemoryBudgetBytes) + " limit";
  if (is_alltoall(spec)) {
    // Largest n with base + n*per_rank + n(n-1)*per_flow <= budget.
    const double a = kPerFlowBytes, b = kPerRankBytes - kPerFlowBytes, c = kBaseBytes - kMemoryBudgetBytes;
    const int fit = static_cast<int>(std::floor((-b + std::sqrt(b * b - 4 * a * c)) / (2 * a)));
    throw SpecError("collective.op", head + ": alltoall opens a flow per ordered pair of ranks (try at most " +
                                         std::to_string(fit) + " ranks, e.g. fewer cluster.nodes, or all_gather)");
  }
  throw SpecError("cluster.nodes", head + " (try fewer cluster.nodes)");
}

}  // namespace models
