#pragma once
// A scenario that reproduces what an NCCL log shows: the instance (aws-ofi-nccl's platform line,
// or --instance), nodes and pods from nNodes/localRanks, the plugin failure, the NCCL variables
// set by the environment or a plugin, and the workload when the Hugging Face Trainer printed it
// (parameter count -> model preset, batch, accumulation, steps, DeepSpeed ZeRO-3).
#include <string>

#include "models/readers/nccl_log.hpp"

namespace scenarios {

struct LogScenarioOptions {
  std::string instance;  // catalog instance; overrides the log's platform line
};

// TOML text. Throws UserError (at the log file) when the instance is neither in the log nor given.
std::string scenario_from_nccl_log(const models::readers::NcclLogReport& report, const LogScenarioOptions& options);

// The catalog preset whose parameter count is within 0.5 % of `parameters`, or "".
std::string preset_for_parameters(long long parameters);

}  // namespace scenarios
