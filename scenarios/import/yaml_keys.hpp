#pragma once
// Duplicate mapping keys in a user's YAML. yaml-cpp keeps both entries of `nvidia.com/gpu: 1`
// written twice (a lookup sees the first, iteration both: the importer summed them), while
// Kubernetes refuses the file (kubectl's YAML decoder: "mapping key ... already defined at line
// N"). Internal to scenarios/import/ (the only yaml-cpp user).
#include <string>

#include <yaml-cpp/yaml.h>

namespace scenarios {

// Throws UserError at the second of two equal scalar keys of one mapping, naming the first,
// anywhere in `node` (the import's guards bound its depth before it is loaded).
void check_unique_keys(const YAML::Node& node, const std::string& file_name);

}  // namespace scenarios
