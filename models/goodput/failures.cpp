// Per-component interruption rates of one job (failures.hpp).
#include "models/goodput/failures.hpp"

#include <limits>

#include "models/params.hpp"

namespace models::goodput {

double FailureModel::per_hour() const {
  double s = 0;
  for (const auto& c : components) s += c.per_hour;
  return s;
}

double FailureModel::mtbf_s() const {
  const double l = per_hour();
  return l > 0 ? 3600 / l : std::numeric_limits<double>::infinity();
}

FailureModel failure_model(const std::map<std::string, double>& params, int gpus, int nodes) {
  // Rates are written per million component-hours (failures.* in the registry).
  auto rate = [&](const char* name) { return param_or(params, name, param_default(name)) * 1e-6; };
  FailureModel m;
  for (const char* c : {"gpu", "hbm", "nic", "network", "software"})
    m.components.push_back({c, rate((std::string("failures.") + c).c_str()) * gpus});
  m.components.push_back({"host", rate("failures.host") * nodes});
  return m;
}

std::string failure_rates_source(const std::map<std::string, double>& params) {
  std::string set;
  int n = 0;
  for (const char* c : {"gpu", "hbm", "nic", "network", "software", "host"})
    if (params.count(std::string("failures.") + c)) set += (n++ ? ", failures." : "failures.") + std::string(c);
  if (n == 0) return kFailureRatesRecord;
  if (n == 6) return set + " set in [cluster.params]";
  return set + " set in [cluster.params]; the others " + kFailureRatesRecord;
}

}  // namespace models::goodput
