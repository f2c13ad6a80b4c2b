#pragma once
// A run --json output without what legitimately differs between the simulation modes (rank
// classes, replicas simulated once, closed forms, --full): the events count and the note on the
// mode. Two runs of one scenario in different modes must give the same rest, byte for byte.
#include <string>

#include <nlohmann/json.hpp>

inline std::string mode_free_json(nlohmann::json j) {
  j.erase("events");
  auto& notes = j["notes"];
  for (auto it = notes.begin(); it != notes.end();) {
    const auto text = it->get<std::string>();
    if (text.rfind("symmetry: ", 0) == 0 || text.rfind("full simulation (--full)", 0) == 0)
      it = notes.erase(it);
    else
      ++it;
  }
  return j.dump(1);
}
