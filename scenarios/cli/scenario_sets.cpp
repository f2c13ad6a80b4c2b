// --set K=V (all scenarios) and --set N:K=V (scenario N). See scenario_sets.hpp.
#include "scenarios/cli/scenario_sets.hpp"

#include <cctype>
#include <utility>

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
  // A key twice for all, or twice for one scenario, is refused here, where the --set ordinals are
  // the user's (the loader refuses it too, but counts the overrides one scenario gets).
  auto refuse_twice = [](const std::vector<std::string>& list, const std::vector<Origin>& origins) {
    for (size_t later = 1; later < list.size(); ++later)
      for (size_t first = 0; first < later; ++first)
        if (override_key(list[first]) == override_key(list[later]))
          throw UserError({"--set", origins[later].ordinal, origins[later].shift + 1},
                          "'" + override_key(list[later]) + "' is set twice, first at --set:" +
                              std::to_string(origins[first].ordinal) + ":" + std::to_string(origins[first].shift + 1) +
                              " (expected each key once, as in a scenario file)");
  };
  if (n > 0) refuse_twice(per_scenario_[0], origins_[0]);
  for (size_t i = 0; i < n; ++i) refuse_twice(own[i], own_origins[i]);
  for (size_t i = 0; i < n; ++i) {
    // A scenario's own N:K=V replaces the K=V for all: that one is not passed (the loader refuses a
    // key given twice, as a file does; one the user typed twice, for all or for one, is still refused).
    std::vector<std::string> held;
    std::vector<Origin> held_origins;
    for (size_t k = 0; k < per_scenario_[i].size(); ++k) {
      bool replaced = false;
      for (const auto& o : own[i]) replaced = replaced || override_key(o) == override_key(per_scenario_[i][k]);
      if (replaced) continue;
      held.push_back(per_scenario_[i][k]);
      held_origins.push_back(origins_[i][k]);
    }
    held.insert(held.end(), own[i].begin(), own[i].end());
    held_origins.insert(held_origins.end(), own_origins[i].begin(), own_origins[i].end());
    per_scenario_[i] = std::move(held);
    origins_[i] = std::move(held_origins);
  }
}

std::string name_with_overrides(const std::string& name, const std::vector<std::string>& overrides) {
  if (overrides.empty()) return name;
  std::string out = name + " [";
  for (size_t k = 0; k < overrides.size(); ++k) out += (k ? ", " : "") + overrides[k];
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
