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
// One item of a comma list and its column: where its first character is in the option's value
// (1-based), so an error about it reads "--OPTION:1:COL" at that item, not at the list.
struct ListItem {
  std::string text;
  int col = 1;
};
// "a,b,c" -> items (spaces trimmed, empty items refused at their place, a repeat dropped).
std::vector<ListItem> parse_list_items(const std::string& text, const std::string& option);
// Items that must each be one of `known`: an unknown one is refused at its column as "unknown
// WHAT 'x' (did you mean y? expected ...)", the "did you mean" where a known name is within a
// typo of it (models::near_names).
std::vector<std::string> parse_name_list(const std::string& text, const std::string& option, const std::string& what,
                                         const std::vector<std::string>& known);
// Whole numbers from min to max, each refused at its own column otherwise.
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
