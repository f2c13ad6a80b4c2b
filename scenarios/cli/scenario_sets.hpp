#pragma once
// `--set` for commands that take several scenarios (compare, report): "KEY=VALUE" applies to
// every scenario, "N:KEY=VALUE" only to the N-th (1-based, in command-line order), so one file
// given twice with a knob changed in the second is the what-if people want:
//   commsim compare A.toml A.toml --set 2:placement.gpus_per_pod=1
#include <string>
#include <vector>

#include "scenarios/load/loader.hpp"

namespace scenarios {

// "NAME [K=V, K2=V2]": the name a scenario is shown under once overrides changed it; NAME when
// there are none.
std::string name_with_overrides(const std::string& name, const std::vector<std::string>& overrides);

class ScenarioSets {
 public:
  // Throws UserError ("--set:ORDINAL:1: ...") for an index out of 1..n_scenarios.
  ScenarioSets(const std::vector<std::string>& sets, size_t n_scenarios);
  // The overrides scenario `i` (0-based) gets, without their "N:" prefix: every K=V for all but those
  // its own N:K=V replace, then its own, in command-line order.
  const std::vector<std::string>& of(size_t i) const { return per_scenario_[i]; }
  // load_scenario(path, of(i)); a --set error points at the user's --set (ordinal and column).
  // The scenario's name gets its overrides appended (name_with_overrides), so two columns of one
  // file never show the same name over different numbers.
  LoadedScenario load(const std::string& path, size_t i) const;

 private:
  struct Origin {
    int ordinal = 0;  // position among all --set options, 1-based
    int shift = 0;    // characters of the "N:" prefix
  };
  std::vector<std::vector<std::string>> per_scenario_;
  std::vector<std::vector<Origin>> origins_;
};

}  // namespace scenarios
