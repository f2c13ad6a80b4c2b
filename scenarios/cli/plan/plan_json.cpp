// `commsim plan --json` / `--csv` and reading shard outputs back (plan_json.hpp).
#include "scenarios/cli/plan/plan_json.hpp"

#include <cmath>
#include <limits>

#include "scenarios/cli/plan/plan_report.hpp"
#include "scenarios/cli/sweep/sweep_rows.hpp"
#include "scenarios/load/input_file.hpp"

namespace scenarios {

namespace {

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

models::RankBreakdown breakdown_from(const Json& j) {
  models::RankBreakdown b;
  b.compute_s = j.value("compute_s", 0.0);
  b.interference_s = j.value("interference_s", 0.0);
  b.exposed_comm_s = j.value("exposed_comm_s", 0.0);
  b.host_s = j.value("host_s", 0.0);
  b.bubble_s = j.value("bubble_s", 0.0);
  b.barrier_wait_s = j.value("barrier_wait_s", 0.0);
  b.other_s = j.value("other_s", 0.0);
  return b;
}

Json space_json(const models::plan::PlanResult& r) {
  Json invalid = Json::object();
  for (const auto& [k, v] : r.invalid) invalid[k] = v;
  Json dropped = Json::object();
  for (const auto& [k, v] : r.space.dropped) dropped[k] = v;
  Json instances = Json::object();
  for (const auto& [name, t] : r.by_instance)
    instances[name] = {
        {"candidates", t.candidates},
        {"refused_by_layout", t.refused},
        {"over_memory_bound", t.over_memory},
        {"simulated", t.simulated},
        {"skipped_by_bound", t.skipped_by_bound},
        {"infeasible_by_bound", t.infeasible_by_bound},
        {"ranked", t.ranked},
        {"skipped_cost_bound_usd", t.skipped_cost_bound_usd > 0 ? Json(t.skipped_cost_bound_usd) : Json(nullptr)}};
  return {{"combinations", r.space.considered},
          {"dropped_by_arithmetic", dropped},
          {"candidates", r.candidates},
          {"refused_by_layout", invalid},
          {"over_memory_bound", r.over_memory},
          {"in_shard", r.in_shard},
          {"simulated", r.simulated},
          {"skipped_by_bound", r.skipped_by_bound},
          {"infeasible_by_bound", r.infeasible_by_bound},
          {"did_not_fit", r.did_not_fit},
          {"failed", r.failed},
          {"ranked", r.ranked.size()},
          {"instances", instances}};
}

}  // namespace

Json plan_row_json(const models::plan::Evaluated& e, size_t rank, bool pareto) {
  const models::plan::Candidate& c = e.candidate;
  Json j;
  j["rank"] = rank;
  j["layout"] = models::plan::layout_text(c);
  j["instance"] = c.instance;
  j["nodes"] = c.nodes;
  j["gpus"] = c.gpus();
  j["gpus_per_node"] = c.gpus_per_node;
  j["node_gpus"] = c.node_gpus > 0 ? c.node_gpus : c.gpus_per_node;
  j["pods_per_node"] = c.pods_per_node;
  j["strategy"] = c.strategy;
  j["offload"] = c.offload;
  j["tp"] = c.tp;
  j["pp"] = c.pp;
  j["cp"] = c.cp;
  j["ep"] = c.ep;
  j["etp"] = c.etp > 0 ? c.etp : c.tp;  // the expert tensor parallelism the row runs
  j["vp"] = c.vp;
  j["dp"] = c.dp();
  j["pipeline_schedule"] = c.schedule;
  j["micro_batch"] = c.micro_batch;
  j["recompute"] = c.recompute;
  j["sequence_parallel"] = c.sequence_parallel;
  j["distributed_optimizer"] = c.distributed_optimizer;
  j["step_time_s"] = e.step_s;
  j["step_bound_s"] = e.step_bound_s;
  // train_time_s and cost_usd keep their meaning (the failure-free steps); the rows are ranked by
  // the expected ones (null: the run is not expected to finish).
  auto finite = [](const std::optional<double>& v) { return v && std::isfinite(*v) ? Json(*v) : Json(nullptr); };
  j["train_time_s"] = e.work_s;
  j["expected_train_time_s"] = finite(e.train_s);
  j["goodput"] = e.goodput;
  j["usd_per_hour"] = opt(e.usd_per_hour);
  j["cost_usd"] = opt(e.work_cost_usd);
  j["expected_cost_usd"] = finite(e.cost_usd);
  j["pricing"] = e.cost_usd && !e.pricing.empty() ? Json(e.pricing) : Json(nullptr);
  j["tokens_per_s"] = e.tokens_per_s;
  j["mfu"] = e.mfu;
  j["memory_peak_bytes"] = integer_json(e.memory_peak_bytes);
  j["memory_capacity_bytes"] = integer_json(e.memory_capacity_bytes);
  j["memory_headroom_bytes"] = integer_json(e.memory_capacity_bytes - e.memory_peak_bytes);
  j["memory_tight"] = memory_tight(e);
  j["fits"] = e.fits;
  j["pareto"] = pareto;
  j["breakdown"] = breakdown_json(e.breakdown);
  j["caveats"] = e.caveats;
  return j;
}

std::string plan_json(const PlanOutput& p, const CommandInputs& inputs) {
  const auto& r = p.result;
  Json j = json_header("plan", inputs);
  j["scenario"] = p.scenario;
  j["objective"] = p.options.objective == models::plan::Objective::Cost ? "cost" : "time";
  j["budget_usd"] = opt(p.options.budget_usd);
  j["deadline_s"] = opt(p.options.deadline_s);
  j["shard"] = {{"index", p.options.shard_index}, {"count", p.options.shard_count}};
  j["front_exact"] = front_exact(p);
  j["exact_rows"] =
      ranks_exact(p) ? r.ranked.size() : std::min(r.ranked.size(), std::max<size_t>(1, p.options.exact_rows));
  j["within_model_error"] = ranks_within_model_error(p);
  j["target"] = {{"steps", r.steps}, {"tokens_per_step", r.tokens_per_step}, {"tokens", r.steps * r.tokens_per_step}};
  j["space"] = space_json(r);
  j["missing_prices"] = r.missing_prices;
  Json rows = Json::array();
  std::vector<bool> on_front(r.ranked.size(), false);
  for (size_t i : r.pareto) on_front[i] = true;
  for (size_t i = 0; i < r.ranked.size(); ++i) rows.push_back(plan_row_json(r.ranked[i], i + 1, on_front[i]));
  j["rows"] = std::move(rows);
  Json front = Json::array();
  for (size_t i : r.pareto) front.push_back(i + 1);
  j["pareto_ranks"] = std::move(front);
  // What was simulated and fit but missed the budget or the deadline (rank 0): a merge of shards
  // names the nearest of them when no shard ranked anything.
  Json rejected = Json::array();
  for (const auto& e : r.rejected) rejected.push_back(plan_row_json(e, 0, false));
  j["rejected"] = std::move(rejected);
  if (p.included) {
    Json inc = plan_row_json(*p.included, included_rank(p), false);
    inc["file"] = p.included_file;
    inc["error"] = p.included->error.empty() ? Json(nullptr) : Json(p.included->error);
    j["included"] = std::move(inc);
  } else {
    j["included"] = nullptr;
  }
  j["audit"] = {{"simulated", r.audited},
                {"beats_winner", r.audit_beats_winner.size()},
                {"bound_violations", r.audit_bound_violations.size()}};
  return dump_json(std::move(j));
}

std::string plan_csv(const PlanOutput& p) {
  const auto& r = p.result;
  std::vector<bool> on_front(r.ranked.size(), false);
  for (size_t i : r.pareto) on_front[i] = true;
  const bool exact = front_exact(p);
  std::string out;
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    Json row;
    // Beside `pareto`: whether the front it speaks of covers every candidate or the layouts simulated
    // only (the JSON's top-level front_exact), so that a reader of one row knows how far to trust it.
    const Json json_row = plan_row_json(r.ranked[i], i + 1, on_front[i]);
    for (const auto& item : json_row.items()) {
      row[item.key()] = item.value();
      if (item.key() == "pareto") row["front_exact"] = exact;
    }
    for (const auto& [k, v] : breakdown_terms(r.ranked[i].breakdown)) row[std::string("step_") + k] = v;
    row.erase("breakdown");
    std::string caveats;  // one text cell: "a | b"
    for (const auto& c : r.ranked[i].caveats) caveats += (caveats.empty() ? "" : " | ") + c;
    row["caveats"] = caveats;
    round_numbers(row);
    if (i == 0) {
      bool first = true;
      for (const auto& item : row.items()) {
        out += (first ? "" : ",") + csv_field(item.key());
        first = false;
      }
      out += "\n";
    }
    out += SweepRows::csv_line(row);
  }
  return out;
}

namespace {

// One row of plan --json back into what the search evaluated (the inverse of plan_row_json).
models::plan::Evaluated plan_row_from(const Json& row) {
  models::plan::Evaluated e;
  models::plan::Candidate& c = e.candidate;
  c.instance = row.at("instance").get<std::string>();
  c.nodes = row.at("nodes").get<int>();
  c.gpus_per_node = row.at("gpus_per_node").get<int>();
  c.node_gpus = row.value("node_gpus", c.gpus_per_node);
  c.pods_per_node = row.at("pods_per_node").get<int>();
  c.strategy = row.at("strategy").get<std::string>();
  c.offload = row.at("offload").get<bool>();
  c.tp = row.at("tp").get<int>();
  c.pp = row.at("pp").get<int>();
  c.cp = row.at("cp").get<int>();
  c.ep = row.at("ep").get<int>();
  c.etp = row.value("etp", c.tp) == c.tp ? 0 : row.at("etp").get<int>();  // 0: tp, as the search writes it
  c.vp = row.at("vp").get<int>();
  c.schedule = row.at("pipeline_schedule").get<std::string>();
  c.micro_batch = row.at("micro_batch").get<int>();
  c.recompute = row.at("recompute").get<std::string>();
  c.sequence_parallel = row.at("sequence_parallel").get<bool>();
  c.distributed_optimizer = row.at("distributed_optimizer").get<bool>();
  e.simulated = true;
  e.fits = row.at("fits").get<bool>();
  e.step_s = row.at("step_time_s").get<double>();
  e.step_bound_s = row.at("step_bound_s").get<double>();
  constexpr double kNever = std::numeric_limits<double>::infinity();
  e.work_s = row.at("train_time_s").get<double>();
  e.train_s = row.at("expected_train_time_s").is_null() ? kNever : row.at("expected_train_time_s").get<double>();
  e.goodput = row.at("goodput").get<double>();
  if (!row.at("usd_per_hour").is_null()) e.usd_per_hour = row.at("usd_per_hour").get<double>();
  if (!row.at("cost_usd").is_null()) {
    e.work_cost_usd = row.at("cost_usd").get<double>();
    e.cost_usd = row.at("expected_cost_usd").is_null() ? kNever : row.at("expected_cost_usd").get<double>();
  }
  if (!row.at("pricing").is_null()) e.pricing = row.at("pricing").get<std::string>();
  e.tokens_per_s = row.at("tokens_per_s").get<double>();
  e.mfu = row.at("mfu").get<double>();
  e.memory_peak_bytes = row.at("memory_peak_bytes").get<double>();
  e.memory_capacity_bytes = row.at("memory_capacity_bytes").get<double>();
  e.breakdown = breakdown_from(row.at("breakdown"));
  if (row.contains("caveats")) e.caveats = row.at("caveats").get<std::vector<std::string>>();
  return e;
}

}  // namespace

ShardFile read_plan_json(const std::string& path) {
  const std::string text = read_input_file(path, {"--merge", 1, 1}, "plan output", "the JSON of commsim plan --json");
  Json j;
  try {
    j = Json::parse(text);
  } catch (const std::exception& e) {
    throw UserError({path, 1, 1}, std::string("not JSON: ") + e.what() + " (expected the output of commsim plan --json)");
  }
  if (!j.is_object() || j.value("command", "") != "plan" || !j.contains("rows") || !j["rows"].is_array())
    throw UserError({path, 1, 1}, "not a plan output (expected the output of commsim plan --json)");
  ShardFile f;
  try {
    f.steps = j.at("target").at("steps").get<double>();
    f.tokens_per_step = j.at("target").at("tokens_per_step").get<double>();
    f.space = j.at("space");
    for (const auto& row : j["rows"]) f.rows.push_back(plan_row_from(row));
    if (j.contains("rejected"))
      for (const auto& row : j["rejected"]) f.rejected.push_back(plan_row_from(row));
    f.scenario = j.value("scenario", "");
    f.objective = j.value("objective", "time");
    f.shard_index = j.at("shard").at("index").get<size_t>();
    f.shard_count = j.at("shard").at("count").get<size_t>();
    f.front_exact = j.value("front_exact", false);
    if (j.contains("inputs") && j.at("inputs").contains("overrides"))
      f.overrides = j.at("inputs").at("overrides").get<std::vector<std::string>>();
    if (j.contains("budget_usd") && !j["budget_usd"].is_null()) f.budget_usd = j["budget_usd"].get<double>();
    if (j.contains("deadline_s") && !j["deadline_s"].is_null()) f.deadline_s = j["deadline_s"].get<double>();
  } catch (const Json::exception& e) {
    throw UserError({path, 1, 1}, std::string("a plan output with a missing or mistyped field: ") + e.what() +
                                      " (expected the output of commsim plan --json of this version)");
  }
  return f;
}

}  // namespace scenarios
