#pragma once
// The at-scale parts of a result as people and programs read them: the step over seeded GPU
// speeds (`variability`, run --samples) and the run's failures, checkpoints, expected wall time,
// goodput and cost (`goodput`); models/goodput/README.md and docs/goodput.md say what each is.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/result.hpp"

namespace scenarios {

// null when not sampled / not estimated.
nlohmann::ordered_json variability_json(const models::VariabilityResult& v);
nlohmann::ordered_json goodput_json(const models::GoodputResult& g);
// The summary's lines (no trailing newline each); empty when there is nothing to say.
std::vector<std::string> variability_lines(const models::VariabilityResult& v);
std::vector<std::string> goodput_lines(const models::GoodputResult& g);
// "3 d 04 h", "5 h 12 min", else format_seconds.
std::string goodput_duration(double s);
// "$1.23 M", "$45,600"-like short money; "" when the price is unknown (cost 0).
std::string goodput_usd(double usd);

}  // namespace scenarios
