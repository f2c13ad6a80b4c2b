// How far off the model was measured where a run's caveats apply (caveat_error.hpp).
#include "models/run/caveat_error.hpp"

#include <algorithm>

#include "models/hw/instance.hpp"
#include "models/workload/steps/data_parallel.hpp"

namespace models {

double caveats_measured_error(const std::vector<std::string>& caveats, int nodes) {
  double out = 0;
  for (const auto& caveat : caveats) {
    if (caveat == workload::kOffloadCaveat) out = std::max(out, workload::kOffloadMeasuredError);
    // A network note is said as "INSTANCE: note": the catalog node whose note it is.
    for (const auto& name : hw::instance_names()) {
      const hw::NodeSpec& n = hw::find_instance(name);
      if (!n.network_note.empty() && caveat == n.network_caveat(nodes))
        out = std::max(out, n.network_caveat_error(nodes));
    }
  }
  return out;
}

}  // namespace models
