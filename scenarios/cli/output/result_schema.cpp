// The shared pieces of every --json output (see result_schema.hpp and docs/result.schema.json).
#include "scenarios/cli/output/result_schema.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "models/utf8.hpp"
#include "scenarios/cli/output/json_text.hpp"
#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

std::string commsim_version() { return COMMSIM_VERSION; }

CommandInputs scenario_inputs(const LoadedScenario& scenario, const std::vector<std::string>& overrides) {
  return {scenario.files, overrides};
}

double round_significant(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", kSignificantDigits, v);
  return std::strtod(buf, nullptr);
}

void round_numbers(Json& j) {
  if (j.is_number_float()) {
    j = round_significant(j.get<double>());
  } else if (j.is_structured()) {
    for (auto& v : j) round_numbers(v);
  }
}

Json integer_json(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) return Json(v);
  return Json(static_cast<int64_t>(std::llround(v)));
}

Json inputs_json(const CommandInputs& in) {
  // File names are bytes, not text: shown as UTF-8 (models/utf8.hpp) so the JSON stays valid.
  Json files = Json::array(), overrides = Json::array();
  for (const auto& f : in.files) files.push_back(models::utf8_text(f));
  for (const auto& o : in.overrides) overrides.push_back(models::utf8_text(o));
  return Json{{"files", std::move(files)}, {"overrides", std::move(overrides)}, {"commsim_version", commsim_version()}};
}

Json json_header(const std::string& command, const CommandInputs& inputs) {
  Json j;
  j["schema_version"] = kSchemaVersion;
  j["command"] = command;
  j["inputs"] = inputs_json(inputs);
  return j;
}

std::string dump_json(Json j) {
  round_numbers(j);
  return json_text(j, 2) + "\n";
}

void add_run_summary(Json& j, const models::RunResult& r) {
  const RankExtremes e = rank_extremes(r);
  j["scenario"] = r.scenario;
  // A run stopped by --time-limit has no step time: what it simulated is not one (nor an
  // extrapolation to one); result_json says how far it got.
  j["step_time_s"] = r.partial ? Json(nullptr) : Json(r.step_time_s);
  j["run_time_s"] = r.partial ? Json(nullptr) : Json(r.run_time_s);
  j["steps"] = r.steps;
  j["partial"] = r.partial;
  j["max_compute_s"] = e.max_compute_s;
  j["max_comm_s"] = e.max_comm_s;
  j["max_exposed_comm_s"] = e.max_exposed_comm_s;
  j["max_barrier_wait_s"] = e.max_barrier_wait_s;
  j["max_offload_s"] = e.max_offload_s;
  if (r.links.empty()) {
    for (const char* k : {"busiest_link", "busiest_link_kind", "busiest_link_bytes", "busiest_link_utilization"})
      j[k] = nullptr;
  } else {
    const auto& l = r.links.front();
    j["busiest_link"] = l.name;
    j["busiest_link_kind"] = l.kind;
    j["busiest_link_bytes"] = integer_json(l.bytes);
    j["busiest_link_utilization"] = l.utilization;
  }
  for (const auto& [k, v] : breakdown_terms(r.step_breakdown)) j[std::string("step_") + k] = v;
}

void add_cost_summary(Json& j, const models::RunResult& r) {
  const models::CostResult& c = r.cost;
  j["usd_per_hour"] = c.known ? Json(c.usd_per_hour) : Json(nullptr);
  j["cost_per_step_usd"] = c.known ? Json(c.usd_per_step) : Json(nullptr);
  j["cost_per_run_usd"] = c.known ? Json(c.usd_per_run) : Json(nullptr);
  j["cost_per_million_tokens_usd"] =
      c.known && c.usd_per_million_tokens > 0 ? Json(c.usd_per_million_tokens) : Json(nullptr);
  j["price_source"] = c.known ? Json(c.source) : Json(nullptr);
  j["pricing"] = c.known ? Json(c.pricing) : Json(nullptr);
  j["billed_s"] = c.known ? Json(c.billed_s) : Json(nullptr);
}

std::vector<std::pair<const char*, double>> breakdown_terms(const models::RankBreakdown& b) {
  return {{"compute_s", b.compute_s},
          {"interference_s", b.interference_s},
          {"exposed_comm_s", b.exposed_comm_s},
          {"host_s", b.host_s},
          {"bubble_s", b.bubble_s},
          {"barrier_wait_s", b.barrier_wait_s},
          {"other_s", b.other_s}};
}

Json link_json(const models::LinkResult& l) {
  return {{"name", l.name},
          {"kind", l.kind},
          {"bytes", integer_json(l.bytes)},
          {"busy_s", l.busy_s},
          {"utilization", l.utilization},
          {"capacity_bytes_per_s", integer_json(l.capacity_bytes_per_s)}};
}

Json breakdown_json(const models::RankBreakdown& b) {
  Json j = Json::object();
  for (const auto& [k, v] : breakdown_terms(b)) j[k] = v;
  return j;
}

void add_null_run_summary(Json& j) {
  for (const char* k : {"scenario", "step_time_s", "run_time_s", "steps", "partial", "max_compute_s", "max_comm_s",
                        "max_exposed_comm_s", "max_barrier_wait_s", "max_offload_s", "busiest_link",
                        "busiest_link_kind", "busiest_link_bytes", "busiest_link_utilization"})
    j[k] = nullptr;
  for (const auto& [k, v] : breakdown_terms({})) j[std::string("step_") + k] = nullptr;
}

void add_layout(Json& j, const models::RunResult* r) {
  const bool known = r && r->gpus > 0;
  j["gpus"] = known ? Json(r->gpus) : Json(nullptr);
  j["nodes"] = known ? Json(r->nodes) : Json(nullptr);
  j["pods"] = known ? Json(r->pods) : Json(nullptr);
  j["layout"] = known ? Json(r->layout) : Json(nullptr);
}

void add_null_cost_summary(Json& j) {
  for (const char* k : {"usd_per_hour", "cost_per_step_usd", "cost_per_run_usd", "cost_per_million_tokens_usd",
                        "price_source", "pricing", "billed_s"})
    j[k] = nullptr;
}

std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\n'\"\\$`*?[]{}();&|<>#~!") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string inputs_text(const CommandInputs& in) {
  std::string s;
  for (size_t i = 0; i < in.files.size(); ++i) s += (i ? ", " : "") + in.files[i];
  for (const auto& o : in.overrides) s += " --set " + shell_word(o);
  return s + "; commsim " + commsim_version();
}

}  // namespace scenarios
