#pragma once
// [[stragglers]]: ranks or nodes whose GPUs compute more slowly. Each listed rank's compute ops
// take compute_slowdown times as long (the executor's RankSetup::compute_scale); a node entry
// slows every rank on that node. NIC factors are applied where the links are built (World).
// The ranks that wait for them show it as barrier wait (models/workload/executor.hpp).
#include <vector>

#include "models/spec.hpp"
#include "models/workload/program.hpp"
#include "models/world/world.hpp"

namespace models {

// Throws SpecError("stragglers.<i>.ranks" / ".node") for a rank or node the World lacks.
void apply_stragglers(const ScenarioSpec& spec, const World& world, std::vector<workload::RankSetup>& ranks);

}  // namespace models
