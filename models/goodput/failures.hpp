#pragma once
// Interruptions of a synchronous training job: every component failure stops every rank (one GPU
// lost stops the collectives), so the job's failure rate is the sum over its components,
//   lambda = sum_c rate_c x units_c   (units: GPUs, or nodes for host failures),
// failures independent and memoryless (exponential inter-arrival times, the assumption of Young
// 1974 and Daly 2006). MTBF = 1 / lambda. Rates per component come from the parameter registry
// (failures.*, models/params_goodput.hpp), whose defaults are Llama 3's 54-day record on 16,384
// H100 (Dubey et al. 2024, Table 5: 419 unexpected interruptions).
#include <map>
#include <string>
#include <vector>

namespace models::goodput {

struct ComponentFailures {
  std::string name;      // "gpu", "hbm", "nic", "network", "software", "host"
  double per_hour = 0;   // this job's interruptions per hour from this component
};

struct FailureModel {
  std::vector<ComponentFailures> components;
  double per_hour() const;
  double mtbf_s() const;  // infinity when nothing can fail
};

// A job of `gpus` GPUs on `nodes` hosts, rates from [cluster.params] (checked) or their defaults.
FailureModel failure_model(const std::map<std::string, double>& params, int gpus, int nodes);

// Where the rates come from, in words, for outputs to quote: Llama 3's record (the defaults), the
// failures.* keys [cluster.params] sets, or both.
inline constexpr const char* kFailureRatesRecord =
    "Llama 3 paper (Dubey et al. 2024) Table 5: 419 interruptions in 54 days on 16,384 H100";
std::string failure_rates_source(const std::map<std::string, double>& params);

}  // namespace models::goodput
