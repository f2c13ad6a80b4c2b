// Duplicate YAML mapping keys refused with both places (yaml_keys.hpp).
#include "scenarios/import/yaml_keys.hpp"

#include <map>

#include "scenarios/load/loader.hpp"

namespace scenarios {

void check_unique_keys(const YAML::Node& node, const std::string& file_name) {
  auto at = [&](const YAML::Node& n) {
    const YAML::Mark m = n.Mark();
    return m.line < 0 ? SourcePos{file_name, 1, 1} : SourcePos{file_name, m.line + 1, m.column + 1};
  };
  if (node.IsMap()) {
    std::map<std::string, SourcePos> seen;
    for (const auto& kv : node) {
      if (kv.first.IsScalar()) {
        const SourcePos here = at(kv.first);
        auto [it, inserted] = seen.emplace(kv.first.Scalar(), here);
        if (!inserted)
          throw UserError(here, "duplicate key '" + kv.first.Scalar() + "' in one mapping, first at " +
                                    it->second.str() +
                                    " (expected each key once: Kubernetes refuses a key defined twice)");
      }
      check_unique_keys(kv.second, file_name);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) check_unique_keys(item, file_name);
  }
}

}  // namespace scenarios
