#pragma once
// The keys of [cluster.node] (a machine not in the instance catalog) with their defaults, for
// `commsim help node`, the foot of `commsim instances` and README.md. Each entry carries an
// example value that a test loads, so the list cannot name a key the loader refuses.
#include <string>
#include <vector>

namespace scenarios {

struct NodeKey {
  const char* name;
  const char* default_value;  // as the model fills it when the key is absent
  const char* example;        // a TOML value the loader accepts
  const char* what;
};
const std::vector<NodeKey>& node_keys();
// The table as `commsim help node` prints it.
std::string node_keys_text();

}  // namespace scenarios
