#pragma once
// viz: what people look at. Reads models::RunResult only; never runs the simulator itself.
#include <string>

#include "models/result.hpp"

namespace viz {
// CSV with one row per rank and one per collective, units in the header.
std::string to_csv(const models::RunResult& result);
}  // namespace viz
