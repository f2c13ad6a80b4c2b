// commsim plan SCENARIO.toml [--instances A,B] [--gpus MIN..MAX | --max-gpus N] [--budget USD]
//              [--deadline TIME] [--objective time|cost] [--set K=V]... [--prices FILE] [--jobs N]
//              [--shard i/N] [--merge FILE...] [--include S.toml] [--top K] [--json | --csv FILE]
//              [--html FILE] [--emit DIR] [--audit] [--pareto-exact] [--progress]
// The best layout and instance for the scenario's model and training target: the space of
// layouts (models/plan/space.hpp) filtered by the layout checks and the memory lower bound,
// simulated best first with the normal engine until no candidate left can beat the best
// (models/plan/README.md), ranked with time to train, $, tokens/s, MFU and memory. Nothing ranked
// (an empty space, nothing fits, a budget or deadline nothing meets) is a user error: one sentence,
// exit 2, never an empty table. --shard runs every N-th candidate; --merge ranks the union of
// the shards' --json files as one run would. The search's progress goes to standard error when
// that is a terminal (--progress: always; plan/plan_progress.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>

#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "models/run/layout_line.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/plan/plan_advice.hpp"
#include "scenarios/cli/plan/plan_emit.hpp"
#include "scenarios/cli/plan/plan_json.hpp"
#include "scenarios/cli/plan/plan_options.hpp"
#include "scenarios/cli/plan/plan_progress.hpp"
#include "scenarios/cli/plan/plan_report.hpp"
#include "viz/viz.hpp"

namespace scenarios {

namespace {

// The --include scenario described as a candidate (its layout line and GPUs).
models::plan::Candidate describe(const models::ScenarioSpec& s, int gpus_per_node) {
  models::plan::Candidate c;
  c.instance = s.cluster.instance.empty() ? std::string("[cluster.node]") : s.cluster.instance;
  c.nodes = s.cluster.nodes;
  c.gpus_per_node = gpus_per_node;
  c.pods_per_node = s.placement.pods_per_node;
  c.strategy = s.parallel.strategy;
  c.offload = s.zero.offload_optimizer == "cpu" && c.strategy == "zero3";
  c.offload_params = !s.zero.offload_param.empty() && s.zero.offload_param != "none" && c.strategy == "zero3";
  c.tp = s.parallel.tp, c.pp = s.parallel.pp, c.cp = s.parallel.cp, c.ep = s.parallel.ep, c.vp = s.parallel.vp;
  c.etp = s.parallel.etp == s.parallel.tp ? 0 : s.parallel.etp;
  if (c.strategy == "megatron" && c.pp > 1) {
    c.first_stage_layers = s.parallel.decoder_first_pipeline_num_layers;
    c.last_stage_layers = s.parallel.decoder_last_pipeline_num_layers;
  }
  c.schedule = s.parallel.pipeline_schedule;
  c.micro_batch = s.training.micro_batch;
  c.recompute = !s.training.recompute.empty() ? s.training.recompute : s.training.grad_checkpointing ? "full" : "none";
  c.sequence_parallel = s.parallel.sequence_parallel;
  c.distributed_optimizer = s.parallel.distributed_optimizer;
  return c;
}

// An --include layout is ranked against the plan's: it must train the same model on its target.
void refuse_other_model(const models::ScenarioSpec& base, const models::ScenarioSpec& mine, const std::string& file) {
  if (!mine.cluster.groups.empty())
    throw UserError({file, 1, 1},
                    "--include: [[cluster.groups]] mix instances, and each plan row runs one (expected "
                    "cluster.instance)");
  if (!mine.model || mine.collective)
    throw UserError({file, 1, 1}, "--include: not a training step (expected a [model] table)");
  const models::model::ModelShape a = models::model::resolve_model(*base.model);
  const models::model::ModelShape b = models::model::resolve_model(*mine.model);
  if (a.total_params() != b.total_params() || a.seq != b.seq || a.layers != b.layers || a.hidden != b.hidden)
    throw UserError({file, 1, 1},
                    fmt::format("--include trains {:.3g} B parameters at seq {}, the plan {:.3g} B at seq {} (expected "
                                "the plan's model: its rows would not compare)",
                                b.total_params() / 1e9, b.seq, a.total_params() / 1e9, a.seq));
}

viz::PlanReport html_report(const PlanOutput& p, const std::string& path) {
  viz::PlanReport page;
  page.title = p.scenario;
  page.source_file = path;
  page.summary.emplace_back("target", fmt::format("{:.4g} tokens ({:.0f} steps)", p.result.steps * p.result.tokens_per_step,
                                                  p.result.steps));
  page.summary.emplace_back("ranked", std::to_string(p.result.ranked.size()) + " layouts");
  // What each $ rests on, as under the table: one node-hour, paid whole.
  for (const auto& [instance, price] : p.result.node_prices)
    page.summary.emplace_back(
        "price " + instance,
        fmt::format("{} per node-hour, {} ({}); {}", format_usd(price.usd_per_hour), price.pricing,
                    price.unit_gpus > 0 ? fmt::format("sold per VM of {} GPUs: a row on part of the node "
                                                      "pays the VMs its GPUs need",
                                                      price.unit_gpus)
                                        : std::string("paid whole, also by a row on part of a node"),
                    price.source));
  if (std::any_of(p.result.ranked.begin(), p.result.ranked.end(),
                  [](const models::plan::Evaluated& e) { return memory_tight(e); }))
    page.summary.emplace_back("memory headroom",
                              "! under 5 % of the GPU's memory left: the caching allocator's fragmentation, not "
                              "estimated, may leave no room (commsim run says TIGHT)");
  std::vector<bool> front(p.result.ranked.size(), false);
  for (size_t i : p.result.pareto) front[i] = true;
  auto point = [&](const models::plan::Evaluated& e, int rank, bool pareto, bool yours) {
    viz::PlanPoint q;
    q.rank = rank;
    q.layout = models::plan::layout_text(e.candidate);
    q.hardware = fmt::format("{} x {}", e.candidate.nodes, e.candidate.instance);
    q.gpus = e.candidate.gpus();
    q.train_s = e.train_s;
    q.goodput = e.goodput;
    q.cost_usd = e.cost_usd.value_or(-1);
    q.tokens_per_s = e.tokens_per_s;
    q.mfu = e.mfu;
    q.pricing = e.cost_usd ? e.pricing : std::string();
    q.headroom = headroom_text(e);
    q.pareto = pareto;
    q.yours = yours;
    return q;
  };
  for (size_t i = 0; i < p.result.ranked.size(); ++i)
    page.points.push_back(point(p.result.ranked[i], int(i) + 1, front[i], false));
  if (p.included && p.included->error.empty()) page.points.push_back(point(*p.included, 0, false, true));
  // Every ranked row is on the page, so every row's caveats.
  page.caveats = group_caveats(plan_row_caveats(p, p.result.ranked.size()), "every ranked layout");
  // The text's words on the front, the winner and a near-tie, so the page is no surer than it.
  page.front = front_heading(p);
  page.front_exact = front_exact(p);
  const std::vector<std::string> remarks = front_remarks(p);
  for (size_t k = 0; k < remarks.size(); ++k)
    if (!remarks[k].empty()) page.front_notes.push_back(fmt::format("#{}: {}", p.result.pareto[k] + 1, remarks[k]));
  for (const std::string& line : not_searched_lines(p)) page.front_notes.push_back(line);
  const WhyFirstWins why = why_first_wins(p);
  page.why_heading = why.heading;
  for (const WhyRow& row : why.rows) page.why_rows.push_back({row.what, row.first, row.second, row.difference});
  page.near_tie = near_tie_text(p);
  return page;
}

}  // namespace

int cmd_plan(int argc, char** argv) {
  CLI::App app{"The best layout and instance for a scenario's model and training target, with its cost.",
               "commsim plan"};
  std::string path, prices, csv, html, emit, include;
  std::vector<std::string> sets, merge;
  PlanArgs a;
  a.jobs = std::max(1u, std::thread::hardware_concurrency());
  size_t top = 10, emit_count = 3;
  bool json = false;
  app.add_option("scenario", path, "base scenario (TOML): model, training target, cluster")
      ->required()
      ->type_name("SCENARIO.toml");
  app.add_option("--instances", a.instances, "catalog instances to try (default: the scenario's)")->type_name("A,B");
  app.add_option("--gpus", a.gpus, "GPU range (default: the scenario's node count on each instance)")
      ->type_name("MIN..MAX");
  app.add_option("--max-gpus", a.max_gpus, "at most N GPUs (from one node)")
      ->type_name("N")
      ->check(whole_number(1, 1 << 30));
  app.add_option("--strategies", a.strategies,
                 "strategies to try (default all: megatron, zero1, zero2, zero3, zero3+offload, fsdp, hsdp, ddp)")
      ->type_name("S,T");
  app.add_option("--micro-batches", a.micro_batches, "micro-batch sizes to try (default 1,2,4,8)")
      ->type_name("1,2,4,8");
  app.add_option("--recompute", a.recompute, "activation recompute modes to try (default none,full)")
      ->type_name("none,full");
  app.add_option("--pods-per-node", a.pods,
                 "pods per node to try (default 1, and the scenario's own pods where it has several)")
      ->type_name("1,8");
  app.add_option("--hosts-per-domain", a.domain_hosts,
                 "hosts of a multi-host NVLink domain (an NVL72 rack) to use, the rest idle but paid (default: all, "
                 "and the largest power of two below: 16,18 on NVL72)")
      ->type_name("16,18");
  app.add_option("--cp", a.cp, "context-parallel degrees to try (default 1,2)")->type_name("1,2");
  app.add_option("--max-pp", a.max_pp, "largest pipeline degree (default 32)")
      ->type_name("N")
      ->check(whole_number(1, 1 << 30));
  app.add_option("--max-vp", a.max_vp, "largest virtual pipeline degree (default 4)")
      ->type_name("N")
      ->check(whole_number(1, 1 << 30));
  app.add_option("--max-ep", a.max_ep, "largest expert-parallel degree (default: the model's experts)")
      ->type_name("N")
      ->check(whole_number(1, 1 << 30));
  app.add_option("--objective", a.objective, "rank by time to train (default) or cost")->type_name("time|cost");
  app.add_option("--budget", a.budget, "the run may cost at most this many dollars")->type_name("USD");
  app.add_option("--deadline", a.deadline, "the run must end within this time (s, min, h, d, w)")->type_name("TIME");
  add_set_option(app, sets);
  add_prices_option(app, prices);
  app.add_option("--jobs,-j", a.jobs, "threads simulating candidates at once (default: one per core)")
      ->check(whole_number(1, 1024))
      ->type_name("N");
  app.add_option("--shard", a.shard, "rank only every N-th candidate from the i-th (0 <= i < N); --merge the --json files")
      ->type_name("i/N");
  app.add_option("--merge", merge, "rank the union of the shards' plan --json files (no simulation)")
      ->type_name("FILE...")
      ->expected(1, 1 << 20);
  app.add_option("--include", include, "rank your own layout (a scenario) among the candidates")->type_name("S.toml");
  app.add_option("--top", top, "rows of the text table (default 10)")->type_name("K")->check(whole_number(1, 1 << 30));
  auto* json_opt = app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) with every ranked row");
  app.add_option("--csv", csv, "write every ranked row as CSV to FILE")->type_name("FILE")->excludes(json_opt);
  app.add_option("--html", html, "write an HTML page with the time/cost Pareto chart")->type_name("FILE");
  app.add_option("--emit", emit, "write the top layouts as scenario files rank-01.toml ... into DIR")->type_name("DIR");
  app.add_option("--emit-count", emit_count, "how many --emit writes (default 3)")
      ->type_name("K")
      ->check(whole_number(1, 1 << 30));
  app.add_flag("--audit", a.audit, "also simulate every skipped candidate: none may beat the winner");
  app.add_flag("--pareto-exact", a.pareto_exact,
               "skip only what a simulated layout beats in both time and cost (the whole front exact; slower)");
  bool progress = false;
  app.add_flag("--progress", progress,
               "the search's progress on standard error even when it is not a terminal (one line per second)");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    if (!merge.empty())  // the shards searched their space: options that shape one would be ignored
      for (const char* opt : {"--instances", "--gpus", "--max-gpus", "--strategies", "--micro-batches", "--recompute",
                              "--pods-per-node", "--hosts-per-domain", "--cp", "--max-pp", "--max-vp", "--max-ep",
                              "--shard", "--audit", "--pareto-exact", "--set"})
        if (app.count(opt) > 0)
          throw UserError({opt, 1, 1}, std::string(opt) +
                                           " does not apply to --merge: the shards' search set the space "
                                           "(expected it on the commands that wrote the shards)");
    LoadedScenario base = load_scenario(path, sets);
    const auto price_table = read_prices_option(prices);
    set_prices(base, price_table, prices);
    std::vector<std::string> inputs_files = base.files;
    inputs_files.insert(inputs_files.end(), merge.begin(), merge.end());
    if (!include.empty()) inputs_files.push_back(include);
    std::vector<OutputPath> outputs = {{"--csv", csv}, {"--html", html}};
    // --emit writes rank-01.toml ... rank-K.toml: none of them may be an input either.
    for (size_t i = 1; !emit.empty() && i <= emit_count && i <= 99; ++i)
      outputs.push_back({"--emit", (std::filesystem::path(emit) / emitted_name(i)).string()});
    refuse_outputs_over_inputs(outputs, inputs_files);
    PlanOutput out;
    // Without training.global_batch the plan keeps the batch the scenario's own layout trains
    // (dp x micro_batch x micro-batches): a scenario written for one layout plans as it is.
    if (merge.empty() && base.spec.model && base.spec.training.global_batch <= 0) {
      try {
        out.implied_batch =
            models::plan::implied_global_batch(base.spec, models::model::resolve_model(*base.spec.model));
      } catch (const models::SpecError& e) {
        throw base.to_user_error(e);
      }
      base.spec.training.global_batch = out.implied_batch->global_batch;
    }
    out.scenario = base.spec.name;
    out.default_precision = base.spec.training.param_dtype.empty() && base.spec.training.optimizer_dtype.empty();
    out.options = plan_options(a);
    out.top = top;
    // The rows shown and the scenarios written are exact: no skipped layout can beat them.
    out.options.exact_rows = std::max(top, emit.empty() ? size_t{1} : emit_count);
    if (!merge.empty()) {
      sets.clear();  // --set is refused with --merge: the shards' own (below) rank --include and --emit
      std::vector<models::plan::Evaluated> all;
      std::vector<std::string> shard_of;  // the file each shard index came from
      std::string first_shard;            // whose budget and deadline every other shard must have
      bool exact = true;
      for (const auto& f : merge) {
        ShardFile s = read_plan_json(f);
        // One search, split: the same scenario and objective, each shard once, none missing.
        if (s.scenario != base.spec.name)
          throw UserError({f, 1, 1}, "planned '" + s.scenario + "', not this scenario's '" + base.spec.name +
                                         "' (expected the shards of one plan of " + path + ")");
        const std::string objective = app.count("--objective") ? a.objective : s.objective;
        if (s.objective != objective ||
            (!shard_of.empty() &&
             objective != (out.options.objective == models::plan::Objective::Cost ? "cost" : "time")))
          throw UserError({f, 1, 1}, "searched for the " + std::string(s.objective == "cost" ? "cheapest" : "fastest") +
                                         " layout; a merge ranks what its shards searched for (expected --objective " +
                                         s.objective + " on every shard and here)");
        out.options.objective = objective == "cost" ? models::plan::Objective::Cost : models::plan::Objective::Time;
        if (shard_of.empty()) shard_of.assign(s.shard_count, "");
        if (s.shard_count != shard_of.size())
          throw UserError({f, 1, 1}, fmt::format("is shard {}/{}, the first file's shards were of {} (expected the "
                                                 "shards of one plan)",
                                                 s.shard_index, s.shard_count, shard_of.size()));
        if (!shard_of[s.shard_index].empty())
          throw UserError({f, 1, 1}, fmt::format("is shard {}/{} again ({} was; expected each shard once)",
                                                 s.shard_index, s.shard_count, shard_of[s.shard_index]));
        shard_of[s.shard_index] = f;
        exact = exact && s.front_exact;
        if (out.result.steps == 0) {
          out.result.steps = s.steps;
          out.result.tokens_per_step = s.tokens_per_step;
        }
        out.result.simulated += s.space.value("simulated", int64_t{0});
        out.result.skipped_by_bound += s.space.value("skipped_by_bound", int64_t{0});
        out.result.infeasible_by_bound += s.space.value("infeasible_by_bound", int64_t{0});
        out.result.did_not_fit += s.space.value("did_not_fit", int64_t{0});
        out.result.failed += s.space.value("failed", int64_t{0});
        out.result.in_shard += s.space.value("in_shard", int64_t{0});
        out.result.candidates = s.space.value("candidates", int64_t{0});
        out.result.over_memory = s.space.value("over_memory_bound", int64_t{0});
        out.result.space.considered = s.space.value("combinations", int64_t{0});
        // One budget and deadline for all: a shard's bound skipped layouts against its own
        // constraints (a looser one ranks layouts it never simulated; a tighter one may need
        // layouts it skipped as slower than its best), so they must be the search's, unchanged.
        auto constraint_text = [](const std::optional<double>& usd, const std::optional<double>& s) {
          return fmt::format("budget {}, deadline {}", usd ? format_usd(*usd) : "none",
                             s ? format_duration(*s) : "none");
        };
        if (first_shard.empty()) {
          first_shard = f;
          sets = s.overrides;
          if (!a.budget.empty() && out.options.budget_usd != s.budget_usd)
            throw UserError({"--budget", 1, 1},
                            fmt::format("the shards searched under {}; a merge ranks what they searched (expected "
                                        "no --budget here, or the shards run again with this one)",
                                        constraint_text(s.budget_usd, s.deadline_s)));
          if (!a.deadline.empty() && out.options.deadline_s != s.deadline_s)
            throw UserError({"--deadline", 1, 1},
                            fmt::format("the shards searched under {}; a merge ranks what they searched (expected "
                                        "no --deadline here, or the shards run again with this one)",
                                        constraint_text(s.budget_usd, s.deadline_s)));
          out.options.budget_usd = s.budget_usd;
          out.options.deadline_s = s.deadline_s;
        } else if (s.overrides != sets) {
          auto words = [](const std::vector<std::string>& v) {
            std::string t;
            for (const auto& w : v) t += (t.empty() ? "" : " ") + w;
            return t.empty() ? std::string("none") : t;
          };
          throw UserError({f, 1, 1}, fmt::format("ran with --set {}, {} with --set {} (expected the shards of one "
                                                 "plan: the same --set on every shard)",
                                                 words(s.overrides), first_shard, words(sets)));
        } else if (s.budget_usd != out.options.budget_usd || s.deadline_s != out.options.deadline_s) {
          throw UserError({f, 1, 1}, fmt::format("searched under {}, {} under {} (expected the shards of one plan: "
                                                 "the same --budget and --deadline on every shard)",
                                                 constraint_text(s.budget_usd, s.deadline_s), first_shard,
                                                 constraint_text(out.options.budget_usd, out.options.deadline_s)));
        }
        // Per instance: the space, refusals and memory bound are every shard's (taken before the
        // split), what was simulated or skipped is each shard's own (summed).
        if (s.space.contains("instances") && s.space["instances"].is_object())
          for (const auto& [name, t] : s.space["instances"].items()) {
            models::plan::InstanceTally& tally = out.result.by_instance[name];
            tally.candidates = t.value("candidates", int64_t{0});
            tally.refused = t.value("refused_by_layout", int64_t{0});
            tally.over_memory = t.value("over_memory_bound", int64_t{0});
            tally.simulated += t.value("simulated", int64_t{0});
            tally.skipped_by_bound += t.value("skipped_by_bound", int64_t{0});
            tally.infeasible_by_bound += t.value("infeasible_by_bound", int64_t{0});
            if (const auto c = t.find("skipped_cost_bound_usd"); c != t.end() && c->is_number()) {
              const double v = c->get<double>();
              if (v > 0 && (tally.skipped_cost_bound_usd == 0 || v < tally.skipped_cost_bound_usd))
                tally.skipped_cost_bound_usd = v;
            }
          }
        for (auto& e : s.rows) all.push_back(std::move(e));
        for (auto& e : s.rejected) all.push_back(std::move(e));
      }
      for (size_t i = 0; i < shard_of.size(); ++i)
        if (shard_of[i].empty())
          throw UserError({"--merge", 1, 1}, fmt::format("shard {}/{} is missing (expected all {} shards' plan --json "
                                                         "files: a merge without one ranks part of the space)",
                                                         i, shard_of.size(), shard_of.size()));
      out.options.shard_count = 1;
      out.options.pareto_exact = exact;
      models::plan::rank(std::move(all), out.options, out.result);
    } else {
      const bool terminal = ::isatty(STDERR_FILENO);
      std::optional<PlanProgressLine> line;
      if (terminal || progress) {
        line.emplace(stderr, terminal);
        out.options.progress = line->callback();
        line->start_ticking();  // the line moves during a long simulation too
      }
      try {
        out.result = models::plan::plan_layouts(base.spec, out.options);
        out.options.progress = nullptr;  // the line ends here; out.options is kept for the report
        if (line) line->finish();
      } catch (const models::SpecError& e) {
        if (e.key() == "plan.instances") {  // not the file's: at the --instances item it names
          int col = 1;
          for (const auto& item : parse_list_items(a.instances, "--instances"))
            if (std::string(e.what()).find("no price for " + item.text + ",") != std::string::npos) col = item.col;
          throw UserError({"--instances", 1, col}, e.what());
        }
        throw base.to_user_error(e);
      }
    }
    if (!include.empty()) {
      LoadedScenario mine = load_scenario(include, sets);
      set_prices(mine, price_table, prices);
      refuse_outputs_over_inputs(outputs, mine.files);
      models::plan::Candidate yours;
      try {
        refuse_other_model(base.spec, mine.spec, include);
        // The plan's training target in tokens: the include's own batch decides its steps.
        mine.spec.training.tokens = out.result.steps * out.result.tokens_per_step;
        // The GPUs its pods use per node (a layout may leave some idle), and the node's own.
        const models::LayoutSummary used = models::describe_layout(mine.spec);
        yours = describe(mine.spec, used.gpus / std::max(1, used.nodes));
        if (!mine.spec.cluster.instance.empty())
          yours.node_gpus = models::hw::find_instance(mine.spec.cluster.instance).gpus;
      } catch (const models::SpecError& e) {
        throw mine.to_user_error(e);
      }
      out.included = models::plan::evaluate_scenario(mine.spec, yours, std::nullopt);
      out.included_file = include;
    }
    const bool shard = out.options.shard_count > 1;
    if (out.result.ranked.empty() && !shard)  // no GPU count of the range fits a node: --gpus is at fault
      throw UserError(out.result.space.considered == 0 ? SourcePos{"--gpus", 1, 1} : SourcePos{path, 1, 1},
                      plan_empty_reason(out));
    const CommandInputs inputs{base.files, sets};
    const std::string as_json = plan_json(out, inputs);
    // Every output or none (output_files.hpp): a failed --html leaves an older --csv as it was.
    OutputSet files;
    if (!csv.empty()) files.add(csv, plan_csv(out));
    if (!html.empty()) files.add(html, viz::plan_html(html_report(out, path)));
    OutputDir emit_dir;
    if (!emit.empty()) {
      emit_dir = OutputDir(emit, "--emit");
      for (auto& [name, text] :
           emitted_scenarios(path, base.spec, out, emit_count, sets, price_table, prices, base.deepspeed_config))
        files.add((std::filesystem::path(emit) / name).string(), std::move(text));
    }
    files.commit();
    emit_dir.keep();
    if (!emit.empty()) remove_stale_emitted(emit, std::min(emit_count, out.result.ranked.size()));
    std::fputs(json ? as_json.c_str() : plan_text(out).c_str(), stdout);
    if (!out.result.audit_beats_winner.empty() || !out.result.audit_bound_violations.empty()) {
      std::fprintf(stderr, "plan: the audit found %zu skipped layout(s) better than the winner and %zu step(s) below "
                           "their bound: the search was not exact\n",
                   out.result.audit_beats_winner.size(), out.result.audit_bound_violations.size());
      return 1;
    }
    return 0;
  });
}

}  // namespace scenarios
