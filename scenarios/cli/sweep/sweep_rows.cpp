// Sweep rows: CSV and JSON lines from one builder (see sweep_rows.hpp).
#include "scenarios/cli/sweep/sweep_rows.hpp"

#include <cmath>
#include <optional>
#include <variant>

#include "models/utf8.hpp"
#include "scenarios/cli/output/json_text.hpp"
#include "scenarios/cli/sweep/scaling_efficiency.hpp"
#include "scenarios/load/override_value.hpp"

namespace scenarios {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {
Json typed_value(const std::string& text) {
  return std::visit(
      [](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, RawText>)
          return v.text;
        else
          return v;
      },
      parse_override_value(text));
}

// Does it fit, how fast, after the columns of schema 1 so their positions do not move:
// fits, memory_peak_bytes, memory_capacity_bytes, tokens_per_s, samples_per_s,
// model_tflops_per_gpu, mfu, tokens_per_s_per_gpu (the rate of a sweep over nodes divided by
// that of its first point is the scaling efficiency). Null where not computed.
void add_fit_and_rate(Json& j, const models::RunResult* r) {
  const bool memory = r && r->memory.estimated, rate = r && r->throughput.estimated;
  j["fits"] = r ? Json(r->fits()) : Json(nullptr);
  j["memory_peak_bytes"] = memory ? integer_json(r->memory.peak_bytes) : Json(nullptr);
  j["memory_capacity_bytes"] = memory ? integer_json(r->memory.capacity_bytes) : Json(nullptr);
  const auto& t = r ? r->throughput : models::ThroughputResult{};
  j["tokens_per_s"] = rate ? Json(t.tokens_per_s) : Json(nullptr);
  j["samples_per_s"] = rate ? Json(t.samples_per_s) : Json(nullptr);
  j["model_tflops_per_gpu"] = rate ? Json(t.model_tflops_per_gpu) : Json(nullptr);
  j["mfu"] = rate ? Json(t.mfu) : Json(nullptr);
  j["tokens_per_s_per_gpu"] =
      rate && !r->ranks.empty() ? Json(t.tokens_per_s / double(r->ranks.size())) : Json(nullptr);
}

// At scale, after the columns above and the layout's: the step over --samples and the tokens/s at
// its mean (null without), and
// the run's interruptions, checkpoint interval, goodput, expected wall time and cost (null for a
// bare collective; cost null without a price).
void add_at_scale(Json& j, const models::RunResult* r) {
  const bool sampled = r && r->variability.sampled, est = r && r->goodput.estimated;
  j["step_mean_s"] = sampled ? Json(r->variability.mean_s) : Json(nullptr);
  j["step_median_s"] = sampled ? Json(r->variability.median_s) : Json(nullptr);
  // Each sample is its own allocation of GPUs: a 99th percentile only from 100 of them (below, the
  // nearest-rank p99 is the maximum, step_max_s).
  j["step_p99_s"] = sampled && r->variability.has_p99() ? Json(r->variability.p99_s) : Json(nullptr);
  j["step_max_s"] = sampled ? Json(r->variability.max_s) : Json(nullptr);
  // tokens_per_s at the sampled mean step: the rate the GPU speed spread leaves.
  const std::optional<double> sampled_rate = r ? sampled_tokens_per_s(*r) : std::nullopt;
  j["tokens_per_s_sampled"] = sampled_rate ? Json(*sampled_rate) : Json(nullptr);
  const auto& g = r ? r->goodput : models::GoodputResult{};
  j["interruptions_per_day"] = est ? Json(g.interruptions_per_day) : Json(nullptr);
  // Null where the run takes no checkpoint, and where it does not finish (an infinite wall time
  // and cost; goodput 0): run --json's goodput.checkpointing and goodput.finishes say which.
  j["checkpoint_interval_s"] = est && g.plan == models::CheckpointPlan::Interval ? Json(g.interval_s) : Json(nullptr);
  j["goodput"] = est ? Json(g.goodput) : Json(nullptr);
  j["expected_wall_s"] = est && g.finishes() ? Json(g.expected_wall_s) : Json(nullptr);
  j["expected_cost_usd"] = est && g.finishes() && g.price_per_gpu_hour > 0 ? Json(g.expected_cost) : Json(nullptr);
}

}  // namespace

std::string SweepRows::cell_text(const Json& v) {
  // null, and a number no JSON can hold (JSON writes an infinity as null): an empty cell.
  if (v.is_null() || (v.is_number_float() && !std::isfinite(v.get<double>()))) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {  // overrides: KEY=VALUE items joined by ';'
    std::string s;
    for (const auto& item : v) s += (s.empty() ? "" : ";") + cell_text(item);
    return s;
  }
  return json_text(v);
}

SweepRows::SweepRows(std::vector<VaryAxis> axes, std::string scenario_file, std::vector<std::string> overrides,
                     int samples, uint64_t seed)
    : axes_(std::move(axes)),
      file_(models::utf8_text(scenario_file)),
      overrides_(std::move(overrides)),
      samples_(samples),
      seed_(seed) {
  // Column names come from a row, so the header can never disagree with the rows.
  const SweepPoint any{0, std::vector<std::string>(axes_.size())};
  const Json sample = row(any, nullptr, "", "");
  for (const auto& item : sample.items()) columns_.push_back(item.key());
}

Json SweepRows::row(const SweepPoint& point, const models::RunResult* result, const std::string& error,
                    const std::string& digest, const models::RunResult* failed_layout) const {
  Json j;
  j["index"] = point.index;
  for (size_t a = 0; a < axes_.size(); ++a) j[axes_[a].key] = typed_value(point.values[a]);
  if (result)
    add_run_summary(j, *result);
  else
    add_null_run_summary(j);
  j["error"] = result ? Json(nullptr) : Json(error);
  j["file"] = file_;
  j["overrides"] = overrides_;
  j["commsim_version"] = commsim_version();
  j["schema_version"] = kSchemaVersion;
  add_fit_and_rate(j, result);
  add_layout(j, result ? result : failed_layout);  // gpus, nodes, pods, layout: one owner (result_schema.cpp)
  add_at_scale(j, result);
  if (result)  // last, so the columns before keep their positions
    add_cost_summary(j, *result);
  else
    add_null_cost_summary(j);
  // The draws the step_mean_s ... columns (and the goodput over the mean step) come from; the
  // seed changes nothing without samples.
  j["samples"] = samples_;
  j["seed"] = samples_ > 0 ? Json(seed_) : Json(nullptr);
  j["inputs_digest"] = digest;  // last: what the point read
  round_numbers(j);
  return j;
}

std::string SweepRows::csv_header() const {
  std::string s;
  for (size_t i = 0; i < columns_.size(); ++i) s += (i ? "," : "") + csv_field(columns_[i]);
  return s + "\n";
}

std::string SweepRows::csv_line(const Json& row) {
  std::string s;
  bool first = true;
  for (const auto& item : row.items()) {
    s += (first ? "" : ",") + csv_field(cell_text(item.value()));
    first = false;
  }
  return s + "\n";
}

std::string SweepRows::json_line(const Json& row) { return json_text(row) + "\n"; }

}  // namespace scenarios
