#pragma once
// A guard to call before YAML::LoadAll on a user's text: yaml-cpp 0.7 (Debian's) loops forever,
// allocating a null document per turn, when a block line starts with a flow indicator such as
// ',' (upstream jbeder/yaml-cpp#1040, fixed by #1318/#1319 in 0.8.x). Found by fuzz_k8s_job
// (tests/fuzz/regressions/k8s_job/). The guard replays the parser's events and stops where a
// document starts at the same place as the one before (no token consumed: the loop), throwing
// a UserError there instead.
#include <string>

#include "scenarios/load/loader.hpp"

namespace scenarios {

// Throws UserError at FILE:LINE:COL when yaml-cpp would not terminate on `text`; returns
// otherwise (syntax errors are left to the real load, which reports them).
void check_yaml_terminates(const std::string& text, const std::string& file_name);

}  // namespace scenarios
