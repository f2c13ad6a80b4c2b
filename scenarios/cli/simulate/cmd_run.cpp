// commsim run SCENARIO.toml [--set K=V]... [--json] [--out DIR] [--check] [--time-limit SECONDS] [--full]
//             [--explain-mode] [--samples N] [--seed S] [--progress]
// One simulated run: a readable summary, or one JSON object (--json); --out writes result.json
// and summary.txt together (output_files.hpp), only after the run succeeded: a failed run keeps
// the previous ones. A run stopped by --time-limit prints what it simulated ("simulated x % of
// one step", no step or run time) and exits 3; so does a run whose --samples the limit cut short
// (the statistics are over the samples that finished). A run that takes more than a second draws its
// progress on standard error when that is a terminal (--progress: always; run_progress.hpp).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/output/run_progress.hpp"
#include "scenarios/cli/scenario_sets.hpp"

namespace scenarios {

// Exit status of a run stopped by --time-limit: not a failure (2 is a user error), not a result.
constexpr int kExitPartial = 3;

int cmd_run(int argc, char** argv) {
  CLI::App app{"Simulate one scenario: step time, where it goes, per rank.", "commsim run"};
  std::string path;
  std::vector<std::string> sets;
  bool json = false, check = false, full = false, explain = false, require_fit = false, progress = false;
  std::string out_dir, prices;
  double time_limit = 0;
  app.add_option("scenario", path, "scenario file (TOML)")->required()->type_name("SCENARIO.toml");
  add_set_option(app, sets);
  add_require_fit_flag(app, require_fit);
  add_prices_option(app, prices);
  app.add_flag("--json", json, "print one JSON object instead of the summary");
  app.add_option("--out", out_dir, "also write result.json and summary.txt into DIR")->type_name("DIR");
  app.add_flag("--check", check, "audit mode: verify conservation and capacity invariants while running");
  app.add_flag("--full", full,
               "simulate every rank and every flow: no rank classes, no closed forms (same results, slower)");
  app.add_flag("--explain-mode", explain,
               "say which of the scale engine's mechanisms simulated the step and why each other did not "
               "(models/scale/README.md; JSON: scale_mode)");
  auto* limit =
      app.add_option("--time-limit", time_limit,
                     "stop after this many wall-clock seconds: prints what was simulated "
                     "(x % of one step, no step or run time; with --samples, the samples that finished) and exits 3")
          ->type_name("SECONDS")
          ->check(CLI::Validator(
              [](std::string& v) {
                char* end = nullptr;
                const double s = std::strtod(v.c_str(), &end);
                if (v.empty() || end != v.c_str() + v.size() || std::isnan(s))
                  return "'" + v + "' is not a number of seconds (expected SECONDS > 0, such as 60)";
                if (!(s > 0)) return "'" + v + "' is not above 0 (expected SECONDS > 0, such as 60)";
                // Far past any wall-clock limit a user means; the deadline stays a time point.
                if (!(s < 1e9))
                  return "'" + v + "' is 1e9 seconds (31 years) or more (expected SECONDS below 1e9, such as 60)";
                return std::string();
              },
              "SECONDS > 0"));
  app.add_flag("--progress", progress,
               "the run's progress on standard error even when it is not a terminal (one line per second)");
  int samples = 0;
  uint64_t seed = 1;
  const CLI::Option* seed_option = add_sample_options(app, samples, seed);
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    LoadedScenario scenario = load_scenario(path, sets);
    scenario.spec.name = name_with_overrides(scenario.spec.name, sets);
    set_prices(scenario, read_prices_option(prices), prices);
    if (!out_dir.empty())  // before the run: an --out over one of the inputs is refused at once
      refuse_outputs_over_inputs({{"--out", (std::filesystem::path(out_dir) / "result.json").string()},
                                  {"--out", (std::filesystem::path(out_dir) / "summary.txt").string()}},
                                 scenario.files);
    models::RunOptions options;
    options.audit = check;
    options.full = full;
    options.explain_mode = explain;
    if (limit->count() > 0) options.time_limit_s = time_limit;
    options.timeline = false;  // the summary and JSON do not show it; `commsim report` does
    options.samples = samples;
    options.seed = seed;
    options.seed_given = seed_option->count() > 0;
    const bool terminal = ::isatty(STDERR_FILENO);
    std::optional<RunProgressLine> line;
    if (terminal || progress) {
      line.emplace(stderr, terminal, "commsim run");
      options.progress = line->callback();
    }
    const models::RunResult result = run_loaded(scenario, options);
    if (line) line->finish();
    const CommandInputs inputs = scenario_inputs(scenario, sets);
    const std::string as_json = result_json(result, inputs);
    const std::string summary = result_summary(result, inputs);
    if (!out_dir.empty()) write_files_atomically(out_dir, {{"result.json", as_json}, {"summary.txt", summary}});
    std::fputs(json ? as_json.c_str() : summary.c_str(), stdout);
    // A step stopped, or --samples stopped before its N samples: both what --time-limit left.
    if (result.partial || result.variability.stopped()) return kExitPartial;
    return require_fit && !result.fits() ? kExitNotFits : 0;
  });
}

}  // namespace scenarios
