// A fit written as a calibration profile (fit.hpp profile_toml): the header naming its sources
// and quality, [fitted] (where it was measured and what --fix held), [params].
#include <charconv>
#include <cstdio>
#include <map>
#include <string>

#include "models/calibrate/fit.hpp"

namespace models::calibrate {

std::string profile_toml(const FitResult& fit, const std::vector<std::string>& sources, const FittedOn& on,
                         const std::map<std::string, CarriedParam>& carried) {
  std::string out = "# commsim calibration profile, written by `commsim calibrate`.\n# Fitted from:\n";
  for (const auto& s : sources) {
    // A source is a file, or a file with the NCCL variables its run set ("ar.txt:NCCL_PROTO=LL").
    const std::string file = s.substr(0, s.find(':'));
    auto it = fit.classes.find(file);
    const auto held = fit.held.find(file);
    out +=
        "#   " + s +
        (it != fit.classes.end()
             ? "  (" + it->second +
                   (held != fit.held.end() ? "; its " + held->second + " steps held at their defaults or --fix" : "") +
                   ")"
             : "") +
        "\n";
  }
  char buf[200];
  std::snprintf(
      buf, sizeof buf,
      "# Fit quality (the fit's linear model): median |error| %.1f %%, max |error| %.1f %% over %zu points.\n",
      fit.median_abs_error * 100, fit.max_abs_error * 100, fit.points.size());
  out += buf;
  if (fit.engine_median_abs_error) {
    std::snprintf(buf, sizeof buf,
                  "# The engine with these parameters: median |error| %.1f %%, max |error| %.1f %% over %zu points.\n",
                  *fit.engine_median_abs_error * 100, *fit.engine_max_abs_error * 100, fit.points.size());
    out += buf;
  }
  for (const auto& [name, value] : fit.pinned) {
    std::snprintf(buf, sizeof buf, "# Held fixed (measured elsewhere, --fix): %s = %g\n", name.c_str(), value);
    out += buf;
  }
  out += "# Units: seconds for latencies and overheads, fractions of raw link bandwidth for efficiencies.\n";
  // Where it was measured: a scenario on another GPU, or at another node count where the files
  // crossed a network, says so (its fit holds where it was measured).
  out += "[fitted]\n";
  if (!on.instance.empty()) out += "instance = \"" + on.instance + "\"\n";
  if (!on.gpu.empty()) out += "gpu = \"" + on.gpu + "\"\n";
  out += "nodes = [";
  for (std::size_t i = 0; i < on.nodes.size(); ++i) out += (i ? ", " : "") + std::to_string(on.nodes[i]);
  out += "]\n";
  // The --fix values, by name: a refit of a scenario that reads this profile holds them again.
  if (!fit.pinned.empty()) {
    out += "fixed = [";
    bool first = true;
    for (const auto& [name, value] : fit.pinned) out += (first ? "\"" : ", \"") + name + "\"", first = false;
    out += "]\n";
  }
  out += "\n";
  out += "[params]\n";
  std::map<std::string, std::string> lines;  // by name: fitted and carried in one sorted table
  for (const auto& [name, value] : fit.params) {
    std::snprintf(buf, sizeof buf, "\"%s\" = %.6g\n", name.c_str(), value);
    lines[name] = buf;
  }
  for (const auto& [name, c] : carried) {
    if (lines.count(name)) continue;
    // The shortest text that reads back as the same double: a carried value is not rounded.
    char num[64];
    const auto res = std::to_chars(num, num + sizeof num, c.value);
    std::string text(num, res.ptr);
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // a TOML float, as it was read
    lines[name] = "\"" + name + "\" = " + text + (c.comment.empty() ? "" : "  " + c.comment) + "\n";
  }
  for (const auto& [name, line] : lines) out += line;
  return out;
}

}  // namespace models::calibrate
