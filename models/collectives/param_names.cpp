#include "models/collectives/param_names.hpp"

#include <algorithm>

#include "models/collectives/link_params.hpp"
#include "models/error.hpp"
#include "models/hw/params.hpp"
#include "models/hw/suggest.hpp"

namespace models {

std::vector<std::string> known_param_names() {
  std::vector<std::string> names = collectives::LinkParams::names();
  for (std::string_view w : hw::kWorldParams) names.emplace_back(w);
  // models/workload/compute.cpp
  for (const char* w : {"compute.efficiency", "compute.hbm_efficiency", "host.adam_efficiency", "host.core_bytes_per_s",
                        "compute.overlap_slowdown"})
    names.emplace_back(w);
  std::sort(names.begin(), names.end());
  return names;
}

void check_param_names(const ClusterSpec& cluster) {
  const std::vector<std::string> known = known_param_names();
  for (const auto& [name, value] : cluster.params)
    if (!std::binary_search(known.begin(), known.end(), name))
      throw SpecError("cluster.params." + name, hw::unknown_name_message("parameter", name, known));
}

}  // namespace models
