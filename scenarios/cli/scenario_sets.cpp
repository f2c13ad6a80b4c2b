// --set K=V (all scenarios) and --set N:K=V (scenario N). See scenario_sets.hpp.
#include "scenarios/cli/scenario_sets.hpp"

#include <cctype>

namespace scenarios {

ScenarioSets::ScenarioSets(const std::vector<std::string>& sets, size_t n) : per_scenario_(n), origins_(n) {
  // Every scenario's --set K=V first, then its own --set N:K=V: the more specific one wins
  // whatever their order on the command line (a later override of one key replaces an earlier).
  std::vector<std::vector<std::string>> own(n);
  std::vector<std::vector<Origin>> own_origins(n);
  for (size_t k = 0; k < sets.size(); ++k) {
    const std::string& s = sets[k];
    const int ordinal = static_cast<int>(k) + 1;
    size_t digits = 0;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
    // A TOML key never holds ':', so "N:" before the key can only be an index.
    if (digits > 0 && digits < s.size() && s[digits] == ':') {
      const std::string number = s.substr(0, digits);
      const size_t index = digits > 6 ? 0 : std::stoul(number);
      if (index < 1 || index > n)
        throw UserError({"--set", ordinal, 1}, "scenario index " + number + " is out of range (expected 1 to " +
                                                   std::to_string(n) + ", the scenarios' order on the command line)");
      own[index - 1].push_back(s.substr(digits + 1));
      own_origins[index - 1].push_back({ordinal, static_cast<int>(digits) + 1});
    } else {
      for (size_t i = 0; i < n; ++i) {
        per_scenario_[i].push_back(s);
        origins_[i].push_back({ordinal, 0});
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    per_scenario_[i].insert(per_scenario_[i].end(), own[i].begin(), own[i].end());
    origins_[i].insert(origins_[i].end(), own_origins[i].begin(), own_origins[i].end());
  }
}

std::string name_with_overrides(const std::string& name, const std::vector<std::string>& overrides) {
  // The overrides that hold: one a later one of the same key replaced is not in the name.
  auto key_of = [](const std::string& o) {
    std::string k = o.substr(0, o.find('='));
    while (!k.empty() && std::isspace(static_cast<unsigned char>(k.back()))) k.pop_back();
    return k;
  };
  std::vector<std::string> held;
  for (size_t k = 0; k < overrides.size(); ++k) {
    bool replaced = false;
    for (size_t later = k + 1; later < overrides.size() && !replaced; ++later)
      replaced = key_of(overrides[later]) == key_of(overrides[k]);
    if (!replaced) held.push_back(overrides[k]);
  }
  if (held.empty()) return name;
  std::string out = name + " [";
  for (size_t k = 0; k < held.size(); ++k) out += (k ? ", " : "") + held[k];
  return out + "]";
}

LoadedScenario ScenarioSets::load(const std::string& path, size_t i) const {
  try {
    LoadedScenario s = load_scenario(path, per_scenario_[i]);
    s.spec.name = name_with_overrides(s.spec.name, per_scenario_[i]);
    return s;
  } catch (const UserError& e) {
    const SourcePos& p = e.pos();
    if (p.file != "--set" || p.line < 1 || static_cast<size_t>(p.line) > origins_[i].size()) throw;
    const Origin& o = origins_[i][static_cast<size_t>(p.line) - 1];
    throw UserError({"--set", o.ordinal, p.col + o.shift}, e.message());
  }
}

}  // namespace scenarios
