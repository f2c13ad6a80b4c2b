// commsim report SCENARIO.toml [MORE.toml...] --html FILE [--trace FILE.json] [--csv FILE]
//                [--measured NCCL_TESTS.txt]... [--prices FILE] [--set [N:]K=V]... [--no-busbw] [--json]
// With several scenarios the page is the side-by-side comparison (viz::compare_html), the first
// being the baseline; --trace and --csv then refuse, as they describe one run.
// Plots for a design review: one self-contained HTML page (viz::report_html), and files for
// other tools: a Chrome trace (Perfetto) and a CSV. Every output is built before any is written,
// and they commit together (output_files.hpp): an error leaves every existing output as it was.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/nccl_tests_support.hpp"
#include "scenarios/cli/output/report_inputs.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/cli/scenario_sets.hpp"
#include "scenarios/cli/sweep/sweep_rows.hpp"
#include "viz/viz.hpp"

namespace scenarios {
namespace {

// The CSV's inputs as rows of kind "input" after the header, the value in the name column
// ("file: S.toml", "override: K=V", "commsim: 0.1.0"): the file stays one rectangular table.
std::string csv_with_inputs(const std::string& csv, const CommandInputs& in) {
  const size_t header_end = csv.find("\r\n") + 2;
  const size_t columns = static_cast<size_t>(std::count(csv.begin(), csv.begin() + header_end, ',')) + 1;
  std::string rows;
  auto row = [&](const std::string& text) {
    std::vector<std::string> fields(columns);
    fields[0] = "input";
    fields[11] = csv_field(text);  // the "name" column
    for (size_t i = 0; i < columns; ++i) rows += (i ? "," : "") + fields[i];
    rows += "\r\n";
  };
  for (const auto& f : in.files) row("file: " + f);
  for (const auto& o : in.overrides) row("override: " + o);
  row("commsim: " + commsim_version());
  return csv.substr(0, header_end) + rows + csv.substr(header_end);
}

// The Chrome trace's top-level "metadata" (kept by Perfetto and chrome://tracing) holds the
// inputs: spliced before the object's closing brace, so a large trace is not parsed again.
std::string trace_with_inputs(const std::string& trace, const CommandInputs& in) {
  const size_t close = trace.rfind('}');
  const Json meta = inputs_json(in);
  return trace.substr(0, close) +
         ",\"metadata\":{\"commsim\":" + meta.dump(-1, ' ', false, Json::error_handler_t::replace) + "}" +
         trace.substr(close);
}

// A --measured file's run as nccl-tests --compare replays it: its NCCL variables, release and
// process layout over the scenario's.
models::ScenarioSpec measured_as_ran(const models::ScenarioSpec& spec, const models::readers::NcclTestsRun& run) {
  models::ScenarioSpec ran = spec;
  const NcclTestsFile file = read_nccl_tests_output(run.source, "--measured");
  apply_run_to_spec(run, nccl_env_from_log(file.text, run.source), usable_nccl_version(file, run.source, nullptr), ran);
  return ran;
}

}  // namespace

int cmd_report(int argc, char** argv) {
  CLI::App app{
      "HTML report with plots (topology, per-rank step time, timeline, links, bus bandwidth), "
      "Chrome trace and CSV.",
      "commsim report"};
  std::string html, trace, csv, prices;
  std::vector<std::string> paths, sets, measured;
  bool no_busbw = false, json = false;
  app.add_option("scenarios", paths, "scenario file (TOML); several make a comparison page, the first the baseline")
      ->required()
      ->expected(1, 1 << 20)
      ->type_name("SCENARIO.toml");
  app.add_option("--html", html, "write the HTML report here")->type_name("FILE");
  app.add_option("--trace", trace, "write a Chrome trace (Perfetto, chrome://tracing) here")->type_name("FILE.json");
  app.add_option("--csv", csv, "write per-rank and per-collective rows here")->type_name("FILE");
  app.add_option("--measured", measured, "nccl-tests output to overlay on the bus bandwidth chart (repeatable)")
      ->type_name("NCCL_TESTS.txt");
  add_prices_option(app, prices);
  app.add_flag("--no-busbw", no_busbw, "skip the bus bandwidth curves (they replay each size on the machine)");
  app.add_flag("--json", json, "list the files written as one JSON object (docs/result.schema.json)");
  app.add_option("--set", sets,
                 "override a key in every scenario (KEY=VALUE) or in the N-th only (N:KEY=VALUE, N from 1); "
                 "repeatable")
      ->type_name("[N:]KEY=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  if (html.empty() && trace.empty() && csv.empty()) {
    std::fprintf(stderr, "commsim report: nothing to write (expected --html FILE, --trace FILE or --csv FILE)\n");
    return 2;
  }
  if (paths.size() > 1 && (!trace.empty() || !csv.empty())) {
    std::fprintf(stderr, "commsim report: --trace and --csv describe one run (expected one scenario with them)\n");
    return 2;
  }

  return guarded([&] {
    // Load everything before running anything: a typo in the last file costs no simulation.
    const ScenarioSets per(sets, paths.size());
    std::vector<LoadedScenario> loaded;
    const auto price_table = read_prices_option(prices);  // as run and compare: the page's $ use it
    for (size_t i = 0; i < paths.size(); ++i) {
      loaded.push_back(per.load(paths[i], i));
      set_prices(loaded.back(), price_table, prices);
    }
    CommandInputs all{{}, sets};
    for (size_t i = 0; i < loaded.size(); ++i)
      for (const auto& f : loaded[i].files)
        if (std::find(all.files.begin(), all.files.end(), f) == all.files.end()) all.files.push_back(f);
    all.files.insert(all.files.end(), measured.begin(), measured.end());
    // Before any work: no output over an input, and every measured file readable and not empty.
    refuse_outputs_over_inputs({{"--html", html}, {"--trace", trace}, {"--csv", csv}}, all.files);
    // Every measured file names its collective: the chart overlays it on that collective's curve.
    std::vector<std::pair<std::string, int>> measured_ranks;  // file, ranks it states (0: none)
    for (const auto& m : measured)
      for (const auto& run : read_nccl_tests_output(m, "--measured").runs) {
        if (run.op.empty())
          throw UserError({m, 1, 1},
                          "the file does not say which collective it measured (no nccl-tests header naming its "
                          "program, such as all_reduce_perf), so the chart has no curve to put it on: compare it "
                          "with `commsim nccl-tests SCENARIO --op OP --compare " +
                              m + "`");
        measured_ranks.emplace_back(m, run.ranks);
      }
    models::RunOptions options;
    options.timeline = true;
    std::vector<models::RunResult> results;
    std::vector<viz::ReportInputs> inputs;
    for (size_t i = 0; i < loaded.size(); ++i) {
      results.push_back(run_loaded(loaded[i], options));
      // The chart puts a file's points on a curve over the scenario's GPUs, whatever it ran on.
      for (size_t k = 0; k < measured_ranks.size() && !html.empty(); ++k)
        if (const auto& [file, ranks] = measured_ranks[k]; ranks > 0 && ranks != results.back().gpus)
          std::fprintf(stderr,
                       "commsim report: warning: %s ran on %d ranks, %s has %d: its points sit on a curve of %d "
                       "GPUs, and times differ\n",
                       file.c_str(), ranks, paths[i].c_str(), results.back().gpus, results.back().gpus);
      if (html.empty()) continue;
      inputs.push_back(report_inputs_for(loaded[i], results.back(), scenario_inputs(loaded[i], per.of(i)), measured,
                                         !no_busbw, measured_as_ran));
    }

    std::vector<std::pair<std::string, size_t>> written;  // every output built first, then committed together
    OutputSet outputs;
    auto add = [&](const std::string& file, std::string content) {
      written.emplace_back(file, content.size());
      outputs.add(file, std::move(content));
    };
    if (!html.empty()) {
      std::vector<std::string> tied(results.size());  // as compare's notes say it
      for (size_t i = 1; i < results.size(); ++i) tied[i] = within_model_error_note(results[0], results[i], i + 1);
      add(html,
          results.size() == 1 ? viz::report_html(results[0], inputs[0]) : viz::compare_html(results, inputs, tied));
    }
    if (!trace.empty()) add(trace, trace_with_inputs(viz::chrome_trace(results[0]), all));
    if (!csv.empty()) add(csv, csv_with_inputs(viz::to_csv(results[0]), all));
    outputs.commit();
    if (json) {
      Json j = json_header("report", all);
      Json files = Json::array();
      for (const auto& [file, size] : written) files.push_back({{"file", file}, {"bytes", size}});
      j["written"] = std::move(files);
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    for (const auto& [file, size] : written) std::printf("wrote %s (%zu bytes)\n", file.c_str(), size);
    return 0;
  });
}

}  // namespace scenarios
