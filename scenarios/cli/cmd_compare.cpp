// commsim compare A.toml B.toml ... [--set K=V]... [--json] [--html FILE]
// Several scenarios side by side with ratios against the first. Every scenario is loaded before
// any is run, so a typo in the last file costs no simulation time.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/report_inputs.hpp"
#include "scenarios/cli/result_format.hpp"
#include "viz/viz.hpp"

namespace scenarios {
namespace {

std::string ratio_text(double value, double base) {
  if (base == 0) return value == 0 ? "x1.00" : "n/a";
  const double r = value / base;
  return r >= 0.01 ? fmt::format("x{:.2f}", r) : fmt::format("x{:.2g}", r);
}

std::string fit(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s;
}

}  // namespace

int cmd_compare(int argc, char** argv) {
  CLI::App app{"Several scenarios side by side, with ratios against the first.", "commsim compare"};
  std::vector<std::string> paths, sets;
  bool json = false;
  std::string html;
  app.add_option("scenarios", paths, "scenario files (TOML); the first is the baseline")
      ->required()
      ->expected(2, 1 << 20)
      ->type_name("SCENARIO.toml");
  add_set_option(app, sets);
  app.add_flag("--json", json, "print one JSON object instead of the table");
  app.add_option("--html", html, "write an HTML page with the comparison")->type_name("FILE");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    std::vector<LoadedScenario> loaded;
    for (const auto& p : paths) loaded.push_back(load_scenario(p, sets));
    std::vector<std::string> inputs;
    for (const auto& s : loaded) inputs.insert(inputs.end(), s.files.begin(), s.files.end());
    refuse_outputs_over_inputs({{"--html", html}}, inputs);
    std::vector<models::RunResult> results;
    models::RunOptions options;
    options.timeline = !html.empty();
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
        {"compute (max rank)", [](const models::RunResult& r) { return rank_extremes(r).max_compute_s; }},
    };

    std::string out;
    if (json) {
      nlohmann::ordered_json j;
      j["baseline"] = paths[0];
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (size_t i = 0; i < results.size(); ++i) {
        const auto& r = results[i];
        const RankExtremes e = rank_extremes(r);
        nlohmann::ordered_json o{{"file", paths[i]},
                                 {"scenario", r.scenario},
                                 {"step_time_s", r.step_time_s},
                                 {"run_time_s", r.run_time_s},
                                 {"max_exposed_comm_s", e.max_exposed_comm_s},
                                 {"max_barrier_wait_s", e.max_barrier_wait_s},
                                 {"max_compute_s", e.max_compute_s}};
        if (!r.links.empty())
          o["busiest_link"] = {
              {"name", r.links[0].name}, {"kind", r.links[0].kind}, {"utilization", r.links[0].utilization}};
        const double base_step = results[0].step_time_s, base_run = results[0].run_time_s;
        o["step_time_ratio"] = base_step > 0 ? nlohmann::ordered_json(r.step_time_s / base_step) : nullptr;
        o["run_time_ratio"] = base_run > 0 ? nlohmann::ordered_json(r.run_time_s / base_run) : nullptr;
        o["partial"] = r.partial;
        list.push_back(std::move(o));
      }
      j["scenarios"] = std::move(list);
      out = j.dump(2) + "\n";
    } else {
      // Columns are numbered; the legend above names them in full.
      constexpr size_t kCol = 26;
      for (size_t i = 0; i < results.size(); ++i)
        out += fmt::format("[{}] {}  ({}){}\n", i + 1, results[i].scenario, paths[i], i == 0 ? "  baseline" : "");
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
      out += fmt::format("{:<24}", "busiest link");
      for (const auto& r : results) {
        const std::string cell =
            r.links.empty() ? "-" : fmt::format("{} {:.0f}%", r.links[0].name, 100 * r.links[0].utilization);
        out += fmt::format(" {:>{}}", fit(cell, kCol), kCol);
      }
      out += "\n";
      for (size_t i = 0; i < results.size(); ++i)
        if (results[i].partial) out += "note: " + paths[i] + " stopped early (partial result)\n";
    }
    if (!html.empty()) {
      // The same page as `commsim report A B --html`: summaries and bus-bandwidth curves too.
      std::vector<viz::ReportInputs> inputs;
      for (size_t i = 0; i < results.size(); ++i)
        inputs.push_back(report_inputs_for(loaded[i], results[i], paths[i], {}));
      write_file_atomically(html, viz::compare_html(results, inputs));
    }
    std::fputs(out.c_str(), stdout);
    return 0;
  });
}

}  // namespace scenarios
