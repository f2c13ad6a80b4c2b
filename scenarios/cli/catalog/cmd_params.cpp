// commsim params: every physical parameter a scenario's [cluster.params] (or a calibration
// profile's [params]) may set, from the one registry (models/params.hpp): name, unit, default,
// valid range, the model that reads it and the source of its default. --json: the same as one
// object (docs/result.schema.json, command "params").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "models/params.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

namespace {
std::string default_text(const models::ParamSpec& p) {
  if (!p.default_value) return std::string(p.default_note);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", *p.default_value);
  return buf;
}

Json param_json(const models::ParamSpec& p) {
  const models::ParamRange& r = p.range;
  return {{"name", std::string(p.name)},
          {"unit", models::param_unit_symbol(p.unit)},
          {"kind", models::param_unit_noun(p.unit)},
          {"default", p.default_value ? Json(*p.default_value) : Json(nullptr)},
          {"default_note", p.default_value ? Json(nullptr) : Json(std::string(p.default_note))},
          {"range",
           {{"min", r.min},
            {"max", std::isinf(r.max) ? Json(nullptr) : Json(r.max)},
            {"min_open", r.min_open},
            {"max_open", r.max_open},
            {"text", r.text()}}},
          {"owner", models::param_owner_name(p.owner)},
          {"source", std::string(p.source)}};
}
}  // namespace

int cmd_params(int argc, char** argv) {
  CLI::App app{"List the physical parameters [cluster.params] may set: unit, default, range, owner, source.",
               "commsim params"};
  std::string owner;
  app.add_option("--owner", owner, "only the parameters of one model: world, collectives or workload")
      ->check(CLI::IsMember({"world", "collectives", "workload"}));
  bool json = false;
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the table");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return guarded([&] {
    std::vector<std::vector<std::string>> rows = {{"name", "unit", "default", "range", "owner", "source"}};
    Json list = Json::array();
    for (const models::ParamSpec& p : models::param_registry()) {
      const std::string who = models::param_owner_name(p.owner);
      if (!owner.empty() && who != "models/" + owner) continue;
      list.push_back(param_json(p));
      rows.push_back({std::string(p.name), models::param_unit_symbol(p.unit), default_text(p), p.range.text(), who,
                      std::string(p.source)});
    }
    if (json) {
      Json j = json_header("params", {});
      j["owner"] = owner.empty() ? Json(nullptr) : Json("models/" + owner);
      j["params"] = std::move(list);
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& r : rows)
      for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::printf(
        "Parameters of [cluster.params] (and of a calibration profile's [params]). Values take units in "
        "TOML (\"2 us\", \"25 GB/s\");\nunit 1 is a plain number. Default \"catalog\": from the node's catalog "
        "entry. An unknown name or a value out of range is an error.\n\n");
    for (const auto& r : rows) {
      std::string line;
      for (std::size_t c = 0; c < r.size(); ++c) {
        line += r[c];
        if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
      }
      std::printf("%s\n", line.c_str());
    }
    return 0;
  });
}

}  // namespace scenarios
