// commsim report SCENARIO.toml [MORE.toml...] --html FILE [--trace FILE.json] [--csv FILE]
//                [--measured NCCL_TESTS.txt]... [--set K=V]... [--no-busbw]
// With several scenarios the page is the side-by-side comparison (viz::compare_html), the first
// being the baseline; --trace and --csv then refuse, as they describe one run.
// Plots for a design review: one self-contained HTML page (viz::report_html), and files for
// other tools: a Chrome trace (Perfetto) and a CSV. Every output is built before any is written,
// and they commit together (output_files.hpp): an error leaves every existing output as it was.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/nccl_tests_support.hpp"
#include "scenarios/cli/report_inputs.hpp"
#include "viz/viz.hpp"

namespace scenarios {

int cmd_report(int argc, char** argv) {
  CLI::App app{
      "HTML report with plots (topology, per-rank step time, timeline, links, bus bandwidth), "
      "Chrome trace and CSV.",
      "commsim report"};
  std::string html, trace, csv;
  std::vector<std::string> paths, sets, measured;
  bool no_busbw = false;
  app.add_option("scenarios", paths, "scenario file (TOML); several make a comparison page, the first the baseline")
      ->required()
      ->expected(1, 1 << 20)
      ->type_name("SCENARIO.toml");
  app.add_option("--html", html, "write the HTML report here")->type_name("FILE");
  app.add_option("--trace", trace, "write a Chrome trace (Perfetto, chrome://tracing) here")->type_name("FILE.json");
  app.add_option("--csv", csv, "write per-rank and per-collective rows here")->type_name("FILE");
  app.add_option("--measured", measured, "nccl-tests output to overlay on the bus bandwidth chart (repeatable)")
      ->type_name("NCCL_TESTS.txt");
  app.add_flag("--no-busbw", no_busbw, "skip the bus bandwidth curves (they replay each size on the machine)");
  add_set_option(app, sets);
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
    std::vector<LoadedScenario> loaded;
    for (const auto& p : paths) loaded.push_back(load_scenario(p, sets));
    // Before any work: no output over an input, and every measured file readable and not empty.
    std::vector<std::string> inputs = measured;
    for (const auto& s : loaded) inputs.insert(inputs.end(), s.files.begin(), s.files.end());
    refuse_outputs_over_inputs({{"--html", html}, {"--trace", trace}, {"--csv", csv}}, inputs);
    for (const auto& m : measured) (void)read_nccl_tests_output(m, "--measured");
    models::RunOptions options;
    options.timeline = true;
    std::vector<models::RunResult> results;
    std::vector<viz::ReportInputs> pages;
    for (size_t i = 0; i < loaded.size(); ++i) {
      results.push_back(run_loaded(loaded[i], options));
      if (html.empty()) continue;
      pages.push_back(report_inputs_for(loaded[i], results.back(), paths[i], measured, !no_busbw));
    }

    std::vector<std::pair<std::string, size_t>> written;  // every output built first, then committed together
    OutputSet outputs;
    auto add = [&](const std::string& file, std::string content) {
      written.emplace_back(file, content.size());
      outputs.add(file, std::move(content));
    };
    if (!html.empty())
      add(html, results.size() == 1 ? viz::report_html(results[0], pages[0]) : viz::compare_html(results, pages));
    if (!trace.empty()) add(trace, viz::chrome_trace(results[0]));
    if (!csv.empty()) add(csv, viz::to_csv(results[0]));
    outputs.commit();
    for (const auto& [file, size] : written) std::printf("wrote %s (%zu bytes)\n", file.c_str(), size);
    return 0;
  });
}

}  // namespace scenarios
