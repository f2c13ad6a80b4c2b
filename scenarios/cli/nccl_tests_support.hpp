#pragma once
// Shared by `commsim nccl-tests` and `commsim calibrate`: nccl-tests' size syntax, and what a
// real nccl-tests output file tells about the run (single process, NCCL variables set).
#include <cstdint>
#include <map>
#include <string>

#include "models/readers/nccl_tests_output.hpp"
#include "models/spec.hpp"

namespace scenarios {

// nccl-tests sizes: "8", "128K", "1M", "1G" (binary multiples, as nccl-tests parses them).
bool parse_nccl_tests_size(const std::string& text, int64_t& bytes);

// NCCL variables that change transports or tuning, from "NCCL_X set by environment to Y" lines.
std::map<std::string, std::string> nccl_env_from_log(const std::string& text);

// Applies what the run shows to a scenario: one process driving every GPU (nccl-tests -g N),
// and the NCCL variables it ran with.
void apply_run_to_spec(const models::readers::NcclTestsRun& run, const std::map<std::string, std::string>& env,
                       models::ScenarioSpec& spec);

}  // namespace scenarios
