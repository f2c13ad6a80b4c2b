#pragma once
// Up-front memory estimate of a run, so a question too big for the machine is refused with a
// suggestion before anything large is built (issue 7: 16,384 GPUs within 4 GB, or a clear "no").
//
// Model (fitted on this code, RSS measured with /usr/bin/time -v, see tests/scenarios/scale/):
//   bytes = base + ranks * per_rank + peak_flows * per_flow
// with base 32 MiB (program, catalogs, World), per_rank 8 KiB (World ranks and paths, executor
// state, result), per_flow 512 B (a FlowNetwork flow, its path and the collective's edge;
// measured 450 B from alltoall on 512 and 1,024 ranks: 151 MB and 504 MB). peak_flows: a bare
// alltoall opens every ordered pair at once, n(n-1); a ring or tree collective at most 4n; a
// training step at most 8n (a few collectives in flight per group, plus send/recv).
#include <cstdint>
#include <string>

#include "models/spec.hpp"

namespace models {

inline constexpr double kMemoryBudgetBytes = 4.0 * 1024 * 1024 * 1024;  // the 4 GB

struct MemoryEstimate {
  double bytes = 0;
  double peak_flows = 0;
};

MemoryEstimate estimate_memory(const ScenarioSpec& spec, int ranks);

// Throws SpecError (at the key to change) when the estimate exceeds kMemoryBudgetBytes, naming
// the estimate and what would fit.
void check_memory_budget(const ScenarioSpec& spec, int ranks);

}  // namespace models
