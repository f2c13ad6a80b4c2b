// commsim compare A.toml B.toml ... [--set K=V]... [--set N:K=V]... [--json] [--html FILE]
// Several scenarios side by side with ratios against the first. `--set K=V` changes every
// scenario, `--set N:K=V` only the N-th, so one file given twice with one knob changed is a
// what-if. Every scenario is loaded before any is run, so a typo in the last file costs no
// simulation time. Every output (text legend, JSON inputs, HTML) records files and overrides.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/hw/instance.hpp"
#include "models/hw/node_text.hpp"

#include "models/run/caveat_error.hpp"
#include "models/run/variability.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/goodput_format.hpp"
#include "scenarios/cli/output/report_inputs.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/cli/scenario_sets.hpp"
#include "viz/format.hpp"
#include "viz/viz.hpp"

namespace scenarios {
namespace {

std::string ratio_text(double value, double base) {
  if (base == 0) return value == 0 ? "x1.00" : "n/a";
  const double r = value / base;
  return r >= 0.01 ? fmt::format("x{:.2f}", r) : fmt::format("x{:.2g}", r);
}

// Whether two training runs train different tokens per step (another global batch).
bool batch_differs(const models::RunResult& a, const models::RunResult& b) {
  const double x = a.throughput.tokens_per_step, y = b.throughput.tokens_per_step;
  return a.throughput.estimated && b.throughput.estimated && x > 0 && y > 0 && std::abs(x - y) > 1e-9 * y;
}

std::string fit(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s;
}

// Why column `index`'s step is longer or shorter than [1]'s, beyond the model's error: the mean
// rank's step terms that moved most (each at least a tenth of the difference, three at most), and
// whether its NCCL transports differ. "" where the steps are alike, within the model's error or of
// other batches (a note says so).
std::string difference_text(const models::RunResult& base, const models::RunResult& r, size_t index) {
  if (base.step_time_s <= 0 || batch_differs(r, base) || !within_model_error_note(base, r, index).empty()) return "";
  const double diff = r.step_time_s - base.step_time_s;
  if (std::abs(diff) < 5e-4 * base.step_time_s) return "";
  const auto mine = breakdown_labels(r.step_breakdown), theirs = breakdown_labels(base.step_breakdown);
  std::vector<std::pair<const char*, double>> moved;
  for (size_t t = 0; t < mine.size(); ++t)
    if (std::abs(mine[t].second - theirs[t].second) >= 0.1 * std::abs(diff))
      moved.push_back({mine[t].first, mine[t].second - theirs[t].second});
  std::stable_sort(moved.begin(), moved.end(),
                   [](const auto& a, const auto& b) { return std::abs(a.second) > std::abs(b.second); });
  if (moved.size() > 3) moved.resize(3);
  std::string terms;
  for (const auto& [what, d] : moved)
    terms += fmt::format("{}{} {}{}", terms.empty() ? "" : ", ", what, d < 0 ? "-" : "+", format_seconds(std::abs(d)));
  std::string out = fmt::format("why [{}] is {} than [1]: step {} against {} ({})", index,
                                diff > 0 ? "slower" : "faster", format_seconds(r.step_time_s),
                                format_seconds(base.step_time_s), ratio_text(r.step_time_s, base.step_time_s));
  if (!terms.empty()) out += "; the mean rank's terms that moved most: " + terms;
  const auto labels = [](const models::RunResult& x) {
    std::vector<std::string> v;
    for (const auto& c : x.transports) v.push_back(c.label);
    return v;
  };
  if (labels(r) != labels(base)) out += fmt::format("; [{}]'s NCCL transports differ from [1]'s (the legend)", index);
  // Beyond the median error, but within what was measured where a column's caveats apply (ZeRO
  // offload's whole steps, an NVL72 network across racks): no ordering to read from it either.
  const double e1 = models::caveats_measured_error(base.caveats, base.nodes);
  const double e2 = models::caveats_measured_error(r.caveats, r.nodes);
  const double ratio = std::max(r.step_time_s, base.step_time_s) / std::min(r.step_time_s, base.step_time_s);
  if (ratio - 1 <= std::max(e1, e2))
    out += fmt::format("; but within the {:.0f} % measured where {} (the caveats), so the model does not order them",
                       100 * std::max(e1, e2),
                       e1 == e2 ? fmt::format("[1]'s and [{}]'s caveats apply", index)
                                : fmt::format("[{}]'s caveat applies", e1 > e2 ? size_t{1} : index));
  // Wrapped at 100 columns as the caveats are, continuation lines indented.
  std::string wrapped, line;
  for (size_t from = 0; from < out.size();) {
    const size_t to = std::min(out.find(' ', from), out.size());
    const std::string word = out.substr(from, to - from);
    if (!line.empty() && line.size() + 1 + word.size() > 100) {
      wrapped += line + "\n";
      line = " ";
    }
    line += (line.empty() ? "" : " ") + word;
    from = to + 1;
  }
  return wrapped + line + "\n";
}

}  // namespace

int cmd_compare(int argc, char** argv) {
  CLI::App app{"Several scenarios side by side, with ratios against the first.", "commsim compare"};
  std::vector<std::string> paths, sets;
  bool json = false, require_fit = false;
  std::string html, prices;
  app.add_option("scenarios", paths, "scenario files (TOML); the first is the baseline")
      ->required()
      ->expected(2, 1 << 20)
      ->type_name("SCENARIO.toml");
  app.add_option("--set", sets,
                 "override a key in every scenario (KEY=VALUE) or in the N-th only (N:KEY=VALUE, N from 1); "
                 "repeatable")
      ->type_name("[N:]KEY=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_prices_option(app, prices);
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the table");
  app.add_option("--html", html, "write an HTML page with the comparison")->type_name("FILE");
  int samples = 0;
  uint64_t seed = 1;
  const CLI::Option* seed_option = add_sample_options(app, samples, seed);
  add_require_fit_flag(app, require_fit);
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    const ScenarioSets per(sets, paths.size());
    std::vector<LoadedScenario> loaded;
    std::vector<CommandInputs> inputs;
    CommandInputs all{{}, sets};
    const auto price_table = read_prices_option(prices);
    for (size_t i = 0; i < paths.size(); ++i) {
      loaded.push_back(per.load(paths[i], i));
      set_prices(loaded.back(), price_table, prices);
      inputs.push_back(scenario_inputs(loaded.back(), per.of(i)));
      for (const auto& f : loaded.back().files)
        if (std::find(all.files.begin(), all.files.end(), f) == all.files.end()) all.files.push_back(f);
    }
    refuse_outputs_over_inputs({{"--html", html}}, all.files);  // before any run
    std::vector<models::RunResult> results;
    models::RunOptions options;
    options.timeline = !html.empty();
    options.samples = samples;
    options.seed = seed;
    options.seed_given = seed_option->count() > 0;
    for (const auto& s : loaded) results.push_back(run_loaded(s, options));

    struct Row {
      std::string label;
      double (*value)(const models::RunResult&);
    };
    const std::vector<Row> rows = {
        {"step time", [](const models::RunResult& r) { return r.step_time_s; }},
        {"run time", [](const models::RunResult& r) { return r.run_time_s; }},
        {"exposed comm (max rank)", [](const models::RunResult& r) { return rank_extremes(r).max_exposed_comm_s; }},
        {"barrier wait (max rank)", [](const models::RunResult& r) { return rank_extremes(r).max_barrier_wait_s; }},
        {"compute busy (max rank)", [](const models::RunResult& r) { return rank_extremes(r).max_compute_s; }},
    };
    // The mean rank's breakdown, one row per term (they add up to the step time).
    const size_t terms = breakdown_labels({}).size();

    std::string out;
    // What a reader must know before reading a ratio, in the text and the JSON alike.
    std::vector<std::string> notes;
    // variability.* or --seed without --samples change nothing (models/run/variability.hpp): one
    // note per text, naming the scenarios it is about ("[2] variability.gpu_speed_cv acts only ...").
    std::vector<std::pair<std::string, std::string>> unsampled;  // note, "[1] [2]"
    for (size_t i = 0; i < results.size(); ++i) {
      const std::string n = models::unsampled_variability_note(loaded[i].spec, options);
      if (n.empty()) continue;
      auto same = std::find_if(unsampled.begin(), unsampled.end(), [&](const auto& u) { return u.first == n; });
      if (same == unsampled.end()) same = unsampled.insert(unsampled.end(), {n, ""});
      same->second += fmt::format("{}[{}]", same->second.empty() ? "" : " ", i + 1);
    }
    for (const auto& [n, which] : unsampled) notes.push_back(which + " " + n);
    // A what-if whose override changed the GPU count says so before any ratio is read.
    // A scenario that derives its global batch from dp (no training.global_batch) trains another
    // batch on other GPUs: say that too, or a step of more work reads as a slower one.
    for (size_t i = 1; i < results.size(); ++i)
      if (results[i].gpus != results[0].gpus) {
        std::string note = fmt::format("[{}] runs on {} GPU{}, [1] on {}: its ratios compare different GPU counts",
                                       i + 1, results[i].gpus, results[i].gpus == 1 ? "" : "s", results[0].gpus);
        if (batch_differs(results[i], results[0]))
          note += fmt::format(" and batches: [{}] trains {:.0f} sequences per step, [1] {:.0f}", i + 1,
                              results[i].throughput.samples_per_step, results[0].throughput.samples_per_step);
        notes.push_back(std::move(note));
      }
    // Columns on different machines: what differs that the model prices, so a fabric what-if
    // that also changes NVLS or the plugin's settings says so before its ratio is read.
    for (size_t i = 1; i < results.size(); ++i) {
      const auto& c0 = loaded[0].spec.cluster;
      const auto& ci = loaded[i].spec.cluster;
      if (!c0.groups.empty() || !ci.groups.empty() || c0.instance.empty() || ci.instance.empty() ||
          c0.instance == ci.instance)
        continue;
      const auto differences =
          models::hw::node_differences(models::hw::find_instance(c0.instance), models::hw::find_instance(ci.instance));
      std::string list;
      for (const auto& d : differences) list += (list.empty() ? "" : "; ") + d;
      notes.push_back(
          differences.empty()
              ? fmt::format("[{}] {} is the same machine as [1] {} to the model", i + 1, ci.instance, c0.instance)
              : fmt::format("[{}] {} differs from [1] {} in: {}", i + 1, ci.instance, c0.instance, list));
    }
    // A what-if that changed the tokens a run trains (its global batch, or its steps) compares
    // different amounts of training in "run time" and "$ per run": say so, with the ratio. Runs
    // of one training.tokens target differ by their last step's rounding only (under 1 %).
    const auto run_tokens = [](const models::RunResult& r) {
      return r.throughput.estimated ? r.throughput.tokens_per_step * r.steps : 0.0;
    };
    for (size_t i = 1; i < results.size(); ++i) {
      const double mine = run_tokens(results[i]), base = run_tokens(results[0]);
      if (mine > 0 && base > 0 && std::abs(mine / base - 1) > 0.01)  // not a token target's last partial step
        notes.push_back(fmt::format(
            "[{}] trains {} the tokens of [1] ({:.0f} per step x {} steps, against {:.0f} x {}): its run time "
            "and $ "
            "per run are for {} training; tokens/s and $ per million tokens compare like for like (or set "
            "training.tokens)",
            i + 1, ratio_text(mine, base), results[i].throughput.tokens_per_step, results[i].steps,
            results[0].throughput.tokens_per_step, results[0].steps, mine > base ? "more" : "less"));
    }
    std::vector<std::string> tied(results.size());  // per column, for the page too
    for (size_t i = 1; i < results.size(); ++i)
      if (!(tied[i] = within_model_error_note(results[0], results[i], i + 1)).empty()) notes.push_back(tied[i]);
    if (json) {
      Json j = json_header("compare", all);
      j["baseline"] = 1;
      Json list = Json::array();
      const double base_step = results[0].step_time_s, base_run = results[0].run_time_s;
      for (size_t i = 0; i < results.size(); ++i) {
        const auto& r = results[i];
        Json o;
        o["index"] = i + 1;
        o["inputs"] = inputs_json(inputs[i]);
        add_run_summary(o, r);
        add_layout(o, &r);
        o["step_time_ratio"] = base_step > 0 ? Json(r.step_time_s / base_step) : Json(nullptr);
        o["run_time_ratio"] = base_run > 0 ? Json(r.run_time_s / base_run) : Json(nullptr);
        o["fits"] = r.fits();
        o["memory"] = memory_json(r.memory);
        o["throughput"] = throughput_json(r.throughput);
        o["variability"] = variability_json(r.variability);
        o["goodput"] = goodput_json(r.goodput);
        o["caveats"] = r.caveats;  // the text's caveats section, per column
        add_cost_summary(o, r);
        list.push_back(std::move(o));
      }
      j["results"] = std::move(list);
      j["notes"] = notes;
      out = dump_json(std::move(j));
    } else {
      // Columns are numbered; the legend above names them in full.
      constexpr size_t kCol = 26;
      out += fmt::format("commsim {} compare: ratios against [1]\n", commsim_version());
      // NCCL's transports, where the columns' differ: a what-if that only changes how pods reach
      // each other (placement.host_network, NCCL_P2P_DISABLE) has the same layout line.
      std::vector<std::string> transports;
      for (const auto& r : results) {
        std::string t;
        for (const auto& c : r.transports)
          t += fmt::format("{}{} ({} pair{})", t.empty() ? "" : ", ", c.label, c.pairs, c.pairs == 1 ? "" : "s");
        transports.push_back(t);
      }
      const bool transports_differ =
          std::any_of(transports.begin(), transports.end(), [&](const auto& t) { return t != transports[0]; });
      for (size_t i = 0; i < results.size(); ++i) {
        std::string source = paths[i];
        for (const auto& o : per.of(i)) source += " --set " + shell_word(o);
        out += fmt::format("[{}] {}  ({}){}\n", i + 1, results[i].scenario, source, i == 0 ? "  baseline" : "");
        if (!results[i].layout.empty()) out += fmt::format("    {}\n", results[i].layout);
        if (transports_differ)
          out += fmt::format("    NCCL transports: {}\n", transports[i].empty() ? "none (one rank)" : transports[i]);
      }
      for (const std::string& note : notes) out += "note: " + note + "\n";
      out += fmt::format("\n{:<24}", "");
      for (size_t i = 0; i < results.size(); ++i) out += fmt::format(" {:>{}}", fmt::format("[{}]", i + 1), kCol);
      out += "\n";
      for (const auto& row : rows) {
        out += fmt::format("{:<24}", row.label);
        const double base = row.value(results[0]);
        for (size_t i = 0; i < results.size(); ++i) {
          const double v = row.value(results[i]);
          const std::string cell = i == 0 ? format_seconds(v) : format_seconds(v) + " (" + ratio_text(v, base) + ")";
          out += fmt::format(" {:>{}}", cell, kCol);
        }
        out += "\n";
      }
      out += "where the step goes (mean rank)\n";
      for (size_t t = 0; t < terms; ++t) {
        out += fmt::format("  {:<22}", breakdown_labels({})[t].first);
        const double base = breakdown_labels(results[0].step_breakdown)[t].second;
        for (size_t i = 0; i < results.size(); ++i) {
          const double v = breakdown_labels(results[i].step_breakdown)[t].second;
          const std::string cell = i == 0 ? format_seconds(v) : format_seconds(v) + " (" + ratio_text(v, base) + ")";
          out += fmt::format(" {:>{}}", cell, kCol);
        }
        out += "\n";
      }
      out += fmt::format("{:<24}", "busiest link");
      for (const auto& r : results) {
        const std::string cell =
            r.links.empty() ? "-" : fmt::format("{} {:.0f}%", r.links[0].name, 100 * r.links[0].utilization);
        out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
      }
      out += "\n";
      out += fmt::format("{:<24}", "GPUs");
      for (const auto& r : results) out += fmt::format(" {:>{}}", r.ranks.size(), kCol);
      out += "\n";
      // Micro-batches per step, where the columns' differ: a what-if on tp or pp changes dp and so
      // the micro-batches a global batch leaves each pipeline (its bubble), which no other row shows.
      const bool micro_differ = std::any_of(results.begin(), results.end(), [&](const auto& r) {
        return r.micro_batches != results[0].micro_batches || r.micro_batch_size != results[0].micro_batch_size;
      });
      if (micro_differ) {
        out += fmt::format("{:<24}", "micro-batches x size");
        for (const auto& r : results)
          out += fmt::format(
              " {:>{}}",
              r.micro_batches > 0 ? fmt::format("{} x {}", r.micro_batches, r.micro_batch_size) : std::string("-"),
              kCol);
        out += "\n";
      }
      // Tokens per step, where the columns' differ: a what-if on the GPU count changes the global batch
      // a scenario derives from dp, and with it the work a step does.
      if (std::any_of(results.begin(), results.end(), [&](const auto& r) { return batch_differs(r, results[0]); })) {
        out += fmt::format("{:<24}", "tokens / step");
        for (const auto& r : results)
          out += fmt::format(" {:>{}}",
                             r.throughput.estimated ? fmt::format("{:.0f} ({:.0f} seq)", r.throughput.tokens_per_step,
                                                                  r.throughput.samples_per_step)
                                                    : std::string("-"),
                             kCol);
        out += "\n";
      }
      // What each column's $ rests on: a what-if onto another instance may change how it is sold
      // (a Capacity Block bills whole days), which none of the ratios below explains.
      if (std::any_of(results.begin(), results.end(), [](const auto& r) { return r.cost.known; })) {
        out += fmt::format("{:<24}", "price per hour");
        for (const auto& r : results) {
          const std::string cell = r.cost.known
                                       ? fmt::format("{}/h {}", format_usd(r.cost.usd_per_hour), r.cost.pricing)
                                       : std::string("no price");
          out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
        }
        out += "\n";
      }
      struct CostRow {
        const char* label;
        double (*value)(const models::CostResult&);
      };
      for (const CostRow& row : {CostRow{"$ per step", [](const models::CostResult& c) { return c.usd_per_step; }},
                                 CostRow{"$ per run", [](const models::CostResult& c) { return c.usd_per_run; }},
                                 CostRow{"$ per million tokens",
                                         [](const models::CostResult& c) { return c.usd_per_million_tokens; }}}) {
        out += fmt::format("{:<24}", row.label);
        const double base = row.value(results[0].cost);
        for (size_t i = 0; i < results.size(); ++i) {
          const models::CostResult& c = results[i].cost;
          const double v = row.value(c);
          std::string cell = !c.known || v <= 0 ? (c.known ? "-" : "no price") : format_usd(v);
          if (c.known && v > 0 && i > 0 && results[0].cost.known && base > 0) cell += " (" + ratio_text(v, base) + ")";
          out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
        }
        out += "\n";
      }
      for (size_t i = 0; i < results.size(); ++i)
        if (const std::string window = billed_window_text(results[i]); !window.empty())
          out += fmt::format(
              "([{}] is billed by the block: {}; its $ per step, per run and per million tokens pay the whole "
              "windows)\n",
              i + 1, window);
      if (std::any_of(results.begin(), results.end(), [](const auto& r) { return r.throughput.estimated; })) {
        const double base_tps = results[0].throughput.tokens_per_s;
        out += fmt::format("{:<24}", "tokens/s");
        for (size_t i = 0; i < results.size(); ++i) {
          const auto& t = results[i].throughput;
          std::string cell = !t.estimated ? "-" : fmt::format("{:.0f}", t.tokens_per_s);
          if (t.estimated && i > 0) cell += " (" + ratio_text(t.tokens_per_s, base_tps) + ")";
          out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
        }
        out += "\n";
        out += fmt::format("{:<24}", "TFLOP/s per GPU (MFU)");
        for (const auto& r : results) {
          const auto& t = r.throughput;
          const std::string cell =
              !t.estimated ? "-" : fmt::format("{:.0f} ({:.1f} %)", t.model_tflops_per_gpu, 100 * t.mfu);
          out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
        }
        out += "\n";
      }
      if (std::any_of(results.begin(), results.end(), [](const auto& r) { return r.memory.estimated; })) {
        out += fmt::format("{:<24}", "memory peak / GPU");
        for (const auto& r : results) {
          const std::string cell = !r.memory.estimated ? "-"
                                                       : fmt::format("{}{} / {}", r.memory.fits ? "" : "OOM ",
                                                                     format_bytes(r.memory.peak_bytes),
                                                                     format_bytes(r.memory.capacity_bytes));
          out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
        }
        out += "\n";
        out += fmt::format("{:<24}", "biggest memory term");
        for (const auto& r : results) {
          const std::string cell = r.memory.terms.empty() ? "-"
                                                          : fmt::format("{} {}", r.memory.terms[0].name,
                                                                        format_bytes(r.memory.terms[0].bytes));
          out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
        }
        out += "\n";
      }
      // At scale: the sampled step, failures, checkpoints, goodput, wall time and cost.
      auto text_row = [&](const char* label, auto cell) {
        out += fmt::format("{:<24}", label);
        for (const auto& r : results) out += fmt::format(" {:>{}}", fit(cell(r), kCol), kCol);
        out += "\n";
      };
      if (std::any_of(results.begin(), results.end(), [](const auto& r) { return r.variability.sampled; })) {
        text_row("step median / p99", [](const models::RunResult& r) {
          return r.variability.sampled ? format_seconds(r.variability.median_s) + " / " + format_seconds(r.variability.p99_s)
                                       : std::string("-");
        });
      }
      if (std::any_of(results.begin(), results.end(), [](const auto& r) { return r.goodput.estimated; })) {
        using G = models::GoodputResult;
        auto est = [](const models::RunResult& r, std::string (*f)(const G&)) {
          return r.goodput.estimated ? f(r.goodput) : std::string("-");
        };
        text_row("interruptions / day", [&](const models::RunResult& r) {
          return est(r, [](const G& g) {  // as run prints it: a small rate keeps two significant digits, not "0.00"
            return fmt::format("{} ({} GPU{})", viz::fmt::per_day(g.interruptions_per_day), g.gpus,
                               g.gpus == 1 ? "" : "s");
          });
        });
        text_row("checkpoint every", [&](const models::RunResult& r) {
          return est(r, [](const G& g) { return checkpoint_plan_text(g); });
        });
        text_row("goodput", [&](const models::RunResult& r) {
          return est(r, [](const G& g) { return fmt::format("{:.1f} %", 100 * g.goodput); });
        });
        text_row("expected wall time",
                 [&](const models::RunResult& r) { return est(r, [](const G& g) { return goodput_wall_text(g); }); });
        text_row("expected cost", [&](const models::RunResult& r) {
          return est(r, [](const G& g) {
            return g.price_per_gpu_hour <= 0 ? std::string("unknown")
                   : g.finishes()            ? goodput_usd(g.expected_cost)
                                             : std::string("none: does not finish");
          });
        });
        // With --samples the goodput rests on the sampled mean step, $ per run on the simulated one:
        // say so, or a cost that grew by the GPUs' variability reads as failures' cost.
        if (std::any_of(results.begin(), results.end(),
                        [](const models::RunResult& r) { return r.goodput.estimated && r.variability.sampled; }))
          out +=
              "(expected wall time and cost are at the sampled mean step, which holds the GPUs' variability; "
              "run time and $ per run at the simulated step)\n";
      }
      for (size_t i = 1; i < results.size(); ++i) out += difference_text(results[0], results[i], i + 1);
      // TCP sockets faster than EFA or InfiniBand surprises people: say why where it happens.
      auto uses = [](const models::RunResult& r, const char* prefix) {
        return std::any_of(r.transports.begin(), r.transports.end(),
                           [&](const auto& t) { return t.label.rfind(prefix, 0) == 0; });
      };
      for (size_t i = 0; i < results.size(); ++i)
        for (size_t j = 0; j < results.size(); ++j) {
          const auto &sock = results[i], &rdma = results[j];
          // Faster for the same work: per token where the steps train tokens (a smaller batch is a
          // shorter step, not a faster transport), else per step.
          auto per_unit = [](const models::RunResult& r) {
            return r.throughput.estimated && r.throughput.tokens_per_step > 0
                       ? r.step_time_s / r.throughput.tokens_per_step
                       : r.step_time_s;
          };
          if (!uses(sock, "NET/Socket") || uses(sock, "NET/Libfabric") || uses(sock, "NET/IB") ||
              !(uses(rdma, "NET/Libfabric") || uses(rdma, "NET/IB")) || !(per_unit(sock) < per_unit(rdma)))
            continue;
          out += fmt::format(
              "why [{}] (TCP sockets) beats [{}] ({}): its Socket traffic runs over {} (the busiest link),\n"
              "  each connection spread over NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD sockets; [{}] crosses\n"
              "  each rank's own NIC with NCCL's few channels at the fabric's measured efficiency\n",
              i + 1, j + 1, uses(rdma, "NET/IB") ? "InfiniBand" : "EFA", sock.links.empty() ? "-" : sock.links[0].name,
              j + 1);
          break;
        }
      LabelledCaveats columns;
      for (size_t i = 0; i < results.size(); ++i) columns.push_back({fmt::format("[{}]", i + 1), &results[i].caveats});
      if (const std::string lines = caveat_lines(columns, "every column"); !lines.empty())
        out += "caveats (where a column's machine, size or setup is known to differ from the model):\n" + lines;
      for (size_t i = 0; i < results.size(); ++i)
        if (results[i].partial) out += "note: " + paths[i] + " stopped early (partial result)\n";
      for (size_t i = 0; i < results.size(); ++i)
        if (!results[i].fits())
          out += "WARNING [" + std::to_string(i + 1) + "] " + memory_warning(results[i].memory) + "\n";
        else if (const std::string tight = memory_margin_note(results[i].memory); !tight.empty())
          out += "WARNING [" + std::to_string(i + 1) + "] " + tight + "\n";
    }
    if (!html.empty()) {
      // The same page as `commsim report A B --html`: summaries and bus-bandwidth curves too.
      std::vector<viz::ReportInputs> pages;
      for (size_t i = 0; i < results.size(); ++i)
        pages.push_back(report_inputs_for(loaded[i], results[i], inputs[i], {}));
      write_file_atomically(html, viz::compare_html(results, pages, tied));
    }
    std::fputs(out.c_str(), stdout);
    const bool all_fit = std::all_of(results.begin(), results.end(), [](const auto& r) { return r.fits(); });
    return require_fit && !all_fit ? kExitNotFits : 0;
  });
}

}  // namespace scenarios
