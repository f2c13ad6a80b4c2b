// commsim report SCENARIO.toml --html FILE [--trace FILE.json] [--csv FILE] [--measured NCCL_TESTS.txt]...
//                [--set K=V]...
// Plots for a design review: one self-contained HTML page (viz::report_html), and files for
// other tools: a Chrome trace (Perfetto) and a CSV. Every output is built before any is written,
// and each is written through a temporary file and a rename, so an error leaves nothing half done.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/cli_support.hpp"
#include "scenarios/command.hpp"
#include "scenarios/report_inputs.hpp"
#include "viz/viz.hpp"

namespace scenarios {

int cmd_report(int argc, char** argv) {
  CLI::App app{"HTML report with plots (topology, per-rank step time, timeline, links, bus bandwidth), "
               "Chrome trace and CSV.",
               "commsim report"};
  std::string path, html, trace, csv;
  std::vector<std::string> sets, measured;
  bool no_busbw = false;
  app.add_option("scenario", path, "scenario file (TOML)")->required()->type_name("SCENARIO.toml");
  app.add_option("--html", html, "write the HTML report here")->type_name("FILE");
  app.add_option("--trace", trace, "write a Chrome trace (Perfetto, chrome://tracing) here")->type_name("FILE.json");
  app.add_option("--csv", csv, "write per-rank and per-collective rows here")->type_name("FILE");
  app.add_option("--measured", measured, "nccl-tests output to overlay on the bus bandwidth chart (repeatable)")
      ->type_name("NCCL_TESTS.txt");
  app.add_flag("--no-busbw", no_busbw, "skip the bus bandwidth curves (they replay each size on the machine)");
  add_set_option(app, sets);
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  if (html.empty() && trace.empty() && csv.empty()) {
    std::fprintf(stderr, "commsim report: nothing to write (give --html FILE, --trace FILE or --csv FILE)\n");
    return 2;
  }

  return guarded([&] {
    const LoadedScenario scenario = load_scenario(path, sets);
    models::RunOptions options;
    options.timeline = true;
    const models::RunResult result = run_loaded(scenario, options);

    std::vector<std::pair<std::string, std::string>> files;  // (path, content)
    if (!html.empty()) {
      viz::ReportInputs in;
      in.title = result.scenario;
      in.source_file = path;
      in.summary = scenario_summary(scenario.spec);
      if (!no_busbw) {
        try {
          in.busbw = busbw_curves(scenario.spec, result, measured);
        } catch (const models::SpecError& e) {
          throw scenario.to_user_error(e);
        }
      }
      files.emplace_back(html, viz::report_html(result, in));
    }
    if (!trace.empty()) files.emplace_back(trace, viz::chrome_trace(result));
    if (!csv.empty()) files.emplace_back(csv, viz::to_csv(result));
    for (const auto& [file, content] : files) write_file_atomically(file, content);
    for (const auto& [file, content] : files) std::printf("wrote %s (%zu bytes)\n", file.c_str(), content.size());
    return 0;
  });
}

}  // namespace scenarios
