#pragma once
// The closed list of physical parameter names a scenario may set in [cluster.params] (or a
// calibration profile may carry): the World's raw capacities (models/hw/params.hpp), the
// collective engine's latencies and efficiencies (models/collectives/link_params.hpp) and the compute
// model's rates (models/workload/compute.cpp). A name no model owns is a typo, not a no-op.
#include <string>
#include <vector>

#include "models/spec.hpp"

namespace models {

std::vector<std::string> known_param_names();
// Throws SpecError("cluster.params.<name>", "unknown parameter ... (did you mean ...?)").
void check_param_names(const ClusterSpec& cluster);

}  // namespace models
