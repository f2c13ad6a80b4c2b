#pragma once
// A scenario file rewritten with some keys removed and `--set`-style overrides applied, as TOML
// text that `commsim run` loads (comments of the original are not kept; `header` lines are
// written first as comments). Used by `commsim plan --emit`. Relative paths inside the file
// (cluster.profile, deepspeed_config, topo_file) are made absolute, so the new file runs from any
// folder. Throws UserError like load_scenario.
#include <string>
#include <vector>

namespace scenarios {

std::string rewrite_scenario(const std::string& path, const std::vector<std::string>& remove,
                             const std::vector<std::string>& overrides, const std::vector<std::string>& header);

}  // namespace scenarios
