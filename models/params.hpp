#pragma once
// models::ParamSpec: the one registry of the physical parameters a scenario's [cluster.params] (or
// a calibration profile's [params]) may set. One row per name: unit, valid range, default, the
// model that owns it and the source of the default. Validation (an unknown name gets a "did you
// mean", a value out of range names the range), the models that read the values (World link
// capacities, the collective engine's latencies and efficiencies, the compute rates),
// `commsim calibrate` and `commsim params` all read this table; nothing else lists the names.
// (simgrid's config::Flag registers each model parameter once with a description and a
// validator; this is the same idea as one constant table, without global registration.)
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace models {

enum class ParamUnit { Seconds, BytesPerSecond, Fraction, Factor, FlopsPerSecond, Bytes, PerMillionHours, UsdPerHour };
// "s", "B/s", "1", "1", "FLOP/s", "B", "1/(1e6 h)", "$/h"
const char* param_unit_symbol(ParamUnit u);
// "time", "bandwidth", "fraction", "factor", "rate", "size", "failure rate", "price"
const char* param_unit_noun(ParamUnit u);

// [min, max], each end open where marked; an infinite max is always open. Values must be finite.
// zero_too: 0 is accepted as well (it means "off" or "unknown" for that parameter).
struct ParamRange {
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = true;
  bool zero_too = false;
  bool contains(double v) const;
  std::string text() const;  // "(0, 1]", "[0, 1]", "0 or [1e+06, 1e+15]"
};

// The model that reads the value (and the folder it lives in).
enum class ParamOwner { World, Collectives, Compute, Workload, Goodput };
// "models/world", "models/collectives", "models/compute", "models/workload", "models/goodput"
const char* param_owner_name(ParamOwner o);

struct ParamSpec {
  std::string_view name;  // as written in [cluster.params]: "nvlink.efficiency.simple"
  ParamUnit unit = ParamUnit::Seconds;
  ParamRange range;
  std::optional<double> default_value;  // empty: the owner computes it (default_note says how)
  std::string_view default_note;        // for computed defaults: "catalog", "by GPU generation"
  ParamOwner owner = ParamOwner::World;
  std::string_view source;  // what it is and where the default comes from
};

// Every parameter, grouped by owner; names are unique.
std::span<const ParamSpec> param_registry();
// nullptr when `name` is not registered.
const ParamSpec* find_param(std::string_view name);
// The registered default of a parameter that has one (an internal error otherwise).
double param_default(std::string_view name);

// Throws SpecError("cluster.params.<name>", ...) for the first name (in name order) that is not
// registered ("unknown parameter 'x' (did you mean ...?)") or whose value is out of its range
// ("parameter 'x' = 2 is out of range (expected a fraction in (0, 1])").
void check_params(const std::map<std::string, double>& params);
// One value: the same checks for one name.
void check_param(const std::string& name, double value);
// The value of registered parameter `name` from `params` (checked), or `fallback` when not set.
double param_or(const std::map<std::string, double>& params, std::string_view name, double fallback);

}  // namespace models
