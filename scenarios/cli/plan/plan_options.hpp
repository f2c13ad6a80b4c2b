#pragma once
// `commsim plan`'s option values as typed, parsed into the search's options (models/plan). Each
// parser throws UserError at "--OPTION:1:COL" with what was expected.
#include <optional>
#include <string>
#include <vector>

#include "models/plan/search.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {

// "64..1024" (GPUs, either end may be empty: "..512", "64.."), or one count "256".
std::pair<int, int> parse_gpu_range(const std::string& text);
// "a,b,c" -> items (spaces trimmed, empty items refused).
std::vector<std::string> parse_list(const std::string& text, const std::string& option);
std::vector<int> parse_int_list(const std::string& text, const std::string& option, int min, int max);
// Dollars: "2000000", "2e6", "$2M", "1.5M", "750k".
double parse_usd(const std::string& text, const std::string& option);
// A duration: seconds ("3600"), or a number with s, min, h, d or w ("30d", "12 h").
double parse_duration(const std::string& text, const std::string& option);

struct PlanArgs {
  std::string instances, gpus, strategies, micro_batches, recompute, pods, domain_hosts, cp, objective = "time";
  std::string budget, deadline;
  int max_gpus = 0, max_pp = 32, max_vp = 4, max_ep = 0;
  unsigned jobs = 1;
  std::string shard;
  bool audit = false, pareto_exact = false, exhaustive = false;
};
// The search options from the arguments; contradictions ("--gpus 512..64", --max-gpus below the
// range, an unknown strategy) are UserErrors.
models::plan::PlanOptions plan_options(const PlanArgs& args);

}  // namespace scenarios
