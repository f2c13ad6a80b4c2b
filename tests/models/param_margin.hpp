#pragma once
// The physical bounds on parameter values (models/params.cpp) are far outside real values,
// not fits: a value a model really uses (a shipped profile's, a GPU's transferred compute rate)
// must sit well inside them. Empty when `value` is at least `factor` away from each finite,
// non-zero end of `name`'s range (times, bandwidths, FLOP rates, sizes); else why not.
#include <cmath>
#include <string>

#include "models/params.hpp"

namespace models_test {

inline std::string outside_margin(const std::string& name, double value, double factor = 10) {
  const models::ParamSpec* p = models::find_param(name);
  if (!p) return name + " is not registered";
  if (!p->range.contains(value)) return name + " = " + std::to_string(value) + " is out of range " + p->range.text();
  const auto u = p->unit;
  if (u != models::ParamUnit::Seconds && u != models::ParamUnit::BytesPerSecond &&
      u != models::ParamUnit::FlopsPerSecond && u != models::ParamUnit::Bytes)
    return "";  // fractions and factors: their bounds are the quantity's own, no margin to keep
  if (p->range.zero_too && value == 0) return "";
  if (p->range.min > 0 && value < p->range.min * factor)
    return name + " = " + std::to_string(value) + " is within x" + std::to_string(factor) + " of its minimum " +
           p->range.text();
  if (std::isfinite(p->range.max) && value > p->range.max / factor)
    return name + " = " + std::to_string(value) + " is within x" + std::to_string(factor) + " of its maximum " +
           p->range.text();
  return "";
}

}  // namespace models_test
