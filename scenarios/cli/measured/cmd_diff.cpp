// commsim diff MEASURED... SCENARIO.toml [--step-time S] [--set K=V]... [--json] [--html FILE]
// A measured run lined up with the simulated one (models/measured/measured_diff.hpp): the step
// time, the compute per kernel class and the GPU's idle time (from a PyTorch profiler trace), and
// collectives (nccl-tests output, text or -J JSON, and NCCL Inspector JSON lines), each measured
// against the same thing simulated on SCENARIO, with the parameter that would explain the
// difference. MEASURED files are told apart by their content. --html writes the same rows as a
// page (a bar per row, simulated / measured - 1, and the table: viz::diff_html).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>

#include "models/calibrate/nccl_tests.hpp"
#include "models/calibrate/param_effects.hpp"
#include "models/measured/measured_diff.hpp"
#include "models/nccl/ops.hpp"
#include "models/readers/kineto_trace.hpp"
#include "models/readers/nccl_inspector.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/nccl_tests_support.hpp"
#include "scenarios/cli/output/output_files.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/load/input_file.hpp"
#include "viz/viz.hpp"

namespace scenarios {
namespace {

// One measured collective: op in nccl-tests' naming, bytes by nccl-tests' convention.
struct MeasuredCollective {
  std::string op;
  long long bytes = 0;
  int ranks = 0;
  double seconds = 0;
  std::string source;
  // The scenario as the measured run ran it (nccl-tests: its NCCL variables and -g N, applied by
  // apply_run_to_spec as calibrate does), the run's entry of the specs beside; null: the scenario.
  const models::ScenarioSpec* spec = nullptr;
};

// The simulated rows of the measured collectives on the scenario's machine (nccl-tests' emulation:
// a back-to-back loop, over every rank of the scenario), each with what moves it
// (calibrate::parameter_effects): one sweep per collective and measured run for all its sizes. A
// collective of another rank count than the scenario's is listed in d.skipped; a table that does
// not say its rank count (0) is taken to be of the scenario's.
void diff_simulate_collectives(const LoadedScenario& scenario, const std::vector<MeasuredCollective>& collectives,
                               models::measured::MeasuredDiff& d) {
  std::map<std::pair<const models::ScenarioSpec*, std::string>, std::vector<const MeasuredCollective*>> groups;
  for (const auto& c : collectives) {
    const int ranks = c.ranks > 0 ? c.ranks : d.gpus;
    if (ranks != d.gpus) {
      d.skipped.push_back(c.op + " " + std::to_string(c.bytes) + " B on " + std::to_string(c.ranks) + " ranks (" +
                          c.source + "): the scenario has " + std::to_string(d.gpus) + " GPUs");
      continue;
    }
    models::nccl::CollOp op;
    if (c.op.empty())
      throw UserError({c.source, 1, 1},
                      "the file does not say which collective it measured (no nccl-tests header naming its "
                      "program, such as all_reduce_perf): give --op all_reduce (or the collective it ran)");
    if (!models::nccl::parse_coll_op(c.op, op))
      throw UserError({c.source, 1, 1}, "collective '" + c.op + "' is not one commsim simulates");
    groups[{c.spec ? c.spec : &scenario.spec, c.op}].push_back(&c);
  }
  for (const auto& [key, members] : groups) {
    models::nccl::CollOp op;
    models::nccl::parse_coll_op(key.second, op);
    std::vector<int64_t> sizes;
    for (const MeasuredCollective* c : members) sizes.push_back(std::max<long long>(c->bytes, 4));
    std::vector<models::calibrate::RowEffects> rows;
    try {
      rows = models::calibrate::parameter_effects(*key.first, op, sizes, d.gpus);
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
    for (std::size_t k = 0; k < members.size(); ++k) {
      const MeasuredCollective& c = *members[k];
      const auto& row = rows[k].row;
      d.rows.push_back(models::measured::collective_row(c.op, c.bytes, d.gpus, c.seconds,
                                                        row.compared_time_us(d.gpus) * 1e-6, row.algo, row.proto,
                                                        rows[k].effects, rows[k].alternatives));
    }
  }
}

std::string diff_signed_seconds(double s) { return (s < 0 ? "-" : "+") + format_seconds(std::fabs(s)); }

}  // namespace

int cmd_diff(int argc, char** argv) {
  CLI::App app{"Line up a measured run (profiler trace, nccl-tests output, NCCL Inspector log) with the simulated one.",
               "commsim diff"};
  std::vector<std::string> files, sets;
  double step_time = 0;
  bool json = false;
  std::string html;
  app.add_option("files", files, "measured files, then the scenario (TOML) that describes the run")
      ->required()
      ->expected(2, 1 << 20)
      ->type_name("MEASURED... SCENARIO.toml");
  app.add_option("--step-time", step_time, "the measured step time in seconds (from a training log)")
      ->check(above_zero());
  add_set_option(app, sets);
  std::string op_name;
  app.add_option("--op", op_name,
                 "the collective of nccl-tests tables without nccl-tests' header (rows copied from a page); a "
                 "table whose header names another collective is refused")
      ->type_name("OP");
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the table");
  app.add_option("--html", html, "also write the rows as an HTML page: a bar per row and the table")->type_name("FILE");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    const std::string scenario_path = files.back();
    files.pop_back();
    const LoadedScenario scenario = load_scenario(scenario_path, sets);
    if (!html.empty()) {  // before any work: a page over one of the inputs is refused
      std::vector<std::string> inputs = scenario.files;
      inputs.insert(inputs.end(), files.begin(), files.end());
      refuse_outputs_over_inputs({{"--html", html}}, inputs);
    }
    std::optional<models::measured::TraceCompute> trace;
    std::vector<MeasuredCollective> collectives;
    std::deque<models::ScenarioSpec> run_specs;  // one per nccl-tests run; a deque keeps their addresses
    for (const std::string& f : files) {
      const std::string text = read_input_file(f, {f, 1, 1}, "measured file",
                                               "a profiler trace, nccl-tests output or NCCL Inspector JSON lines");
      if (models::readers::looks_like_kineto_trace(text)) {
        if (trace) throw UserError({f, 1, 1}, "a second profiler trace (expected one trace per diff)");
        trace = models::measured::trace_compute(models::readers::parse_kineto_trace(text, f));
        for (const auto& n : models::measured::trace_notes(*trace))
          std::fprintf(stderr, "commsim diff: note: %s: %s\n", f.c_str(), n.c_str());
      } else if (models::readers::looks_like_nccl_inspector(text)) {
        // Inspector: one operation per line; the mean per (collective, size, ranks), the size by
        // nccl-tests' convention (InspectorRow::total_bytes: per rank x ranks for AllGather and
        // ReduceScatter).
        std::map<std::tuple<std::string, long long, int>, std::pair<double, int>> groups;
        for (const auto& r : models::readers::parse_nccl_inspector(text, f)) {
          const std::string op = r.p2p ? "sendrecv" : models::readers::inspector_op_name(r.op);
          if (op.empty()) continue;
          auto& g = groups[{op, r.total_bytes, r.n_ranks}];
          g.first += r.exec_s, g.second += 1;
        }
        for (const auto& [key, g] : groups)
          collectives.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), g.first / g.second, f});
      } else {
        const NcclTestsFile measured = read_nccl_tests_output(f, "diff");
        std::map<std::string, SourcePos> env_at;  // a refused value is the file's error, at its line
        const std::map<std::string, std::string> env = nccl_env_from_log(measured.text, f, &env_at);
        std::string version_note;
        const int version = usable_nccl_version(measured, f, &version_note);
        if (!version_note.empty()) std::fprintf(stderr, "commsim diff: note: %s\n", version_note.c_str());
        for (auto run : measured.runs) {
          if (!op_name.empty()) {
            models::nccl::CollOp given, named;
            if (!models::nccl::parse_coll_op(op_name, given))
              throw UserError({"--op", 1, 1}, "--op " + op_name + " is not a collective commsim simulates");
            if (run.op.empty())
              run.op = models::nccl::coll_op_name(given);
            else if (models::nccl::parse_coll_op(run.op, named) && named != given)
              throw UserError(collective_line(measured.text, f),
                              f + " is " + run.op + ", not --op " + op_name + " (its header names its collective)");
          }
          apply_run_to_spec(run, env, version, run_specs.emplace_back(scenario.spec));
          check_run_nccl_env(run_specs.back().nccl_env, env_at);
          for (const auto& row : run.rows) {
            collectives.push_back(
                {run.op, row.size_bytes, run.ranks, row.compared_time_us(run.ranks) * 1e-6, f, &run_specs.back()});
          }
        }
      }
    }
    models::measured::MeasuredDiff d;
    try {
      const models::RunResult result = models::run_scenario(scenario.spec);
      d = models::measured::diff_step(scenario.spec, result, trace ? &*trace : nullptr, step_time);
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
    diff_simulate_collectives(scenario, collectives, d);
    // A diff that compares nothing (every measured collective on another rank count, no step) is
    // an error, not an empty table.
    if (d.rows.empty())
      throw UserError({files.front(), 1, 1},
                      "nothing compared: " +
                          (d.skipped.empty() ? std::string("the measured files hold no collective and no step")
                                             : std::to_string(d.skipped.size()) +
                                                   " measured collectives ran on another rank count than the "
                                                   "scenario's " +
                                                   std::to_string(d.gpus) + " GPUs") +
                          " (expected a measurement of the scenario's job)");
    models::measured::order_rows(d.rows);
    if (!html.empty()) {
      viz::DiffReport page;
      page.title = scenario.spec.name.empty() ? scenario_path : scenario.spec.name;
      page.summary = {{"scenario", scenario_path}, {"GPUs", std::to_string(d.gpus)}, {"layout", d.layout}};
      std::string measured_files;
      for (std::size_t i = 0; i < files.size(); ++i) measured_files += (i ? ", " : "") + files[i];
      page.summary.emplace_back("measured", measured_files);
      for (const auto& r : d.rows)
        page.points.push_back({r.kind, r.name, r.measured_s, r.simulated_s, r.parameter, r.explain});
      page.skipped = d.skipped;
      write_file_atomically(html, viz::diff_html(page));
    }

    if (json) {
      CommandInputs in = scenario_inputs(scenario, sets);
      in.files.insert(in.files.end(), files.begin(), files.end());
      Json j = json_header("diff", in);
      j["gpus"] = d.gpus;
      j["nodes"] = d.nodes;
      j["pods"] = d.pods;
      j["layout"] = d.layout;
      Json rows = Json::array();
      for (const auto& r : d.rows) {
        rows.push_back({{"kind", r.kind},
                        {"name", r.name},
                        {"measured_s", r.measured_s},
                        {"simulated_s", r.simulated_s},
                        {"difference_s", r.diff_s()},
                        {"relative", r.relative()},
                        {"parameter", r.parameter},
                        {"explain", r.explain}});
        if (!r.effects.empty()) {
          Json effects = Json::array();
          for (const auto& e : r.effects) effects.push_back(Json{{"parameter", e.name}, {"effect", e.effect}});
          rows.back()["effects"] = std::move(effects);
        }
        if (!r.alternatives.empty()) {
          Json alternatives = Json::array();
          for (const auto& a : r.alternatives)
            alternatives.push_back(Json{{"algo", a.algo},
                                        {"proto", a.proto},
                                        {"simulated_s", a.time_us * 1e-6},
                                        {"picked_nearby", a.picked_nearby},
                                        {"relative", r.measured_s > 0 ? a.time_us * 1e-6 / r.measured_s - 1 : 0.0}});
          rows.back()["alternatives"] = std::move(alternatives);
        }
      }
      j["rows"] = std::move(rows);
      j["skipped"] = d.skipped;
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    std::printf("scenario   %s\nlayout     %s\nmeasured   ", scenario_path.c_str(), d.layout.c_str());
    for (std::size_t i = 0; i < files.size(); ++i) std::printf("%s%s", i ? ", " : "", files[i].c_str());
    std::printf("\n\n%-10s %-40s %11s %11s %11s %8s  %s\n", "kind", "what", "measured", "simulated", "sim - meas",
                "rel", "parameter");
    for (const auto& r : d.rows)
      std::printf("%-10s %-40s %11s %11s %11s %+7.1f%%  %s\n", r.kind.c_str(), r.name.c_str(),
                  format_seconds(r.measured_s).c_str(), format_seconds(r.simulated_s).c_str(),
                  diff_signed_seconds(r.diff_s()).c_str(), r.relative() * 100, r.parameter.c_str());
    // The largest differences, in words (step rows aside: the others explain them): up to three of
    // each kind, in the table's order (a compute row is a step's seconds, a collective row one
    // operation, so they are not ranked against each other).
    std::map<std::string, int> listed;
    std::vector<const models::measured::DiffRow*> big;
    for (const auto& r : d.rows)
      if (r.kind != "step" && listed[r.kind]++ < 3) big.push_back(&r);
    if (!d.skipped.empty()) std::printf("\nnot compared (another rank count than the scenario's):\n");
    for (const auto& s : d.skipped) std::printf("  %s\n", s.c_str());
    if (!big.empty()) std::printf("\nlargest differences:\n");
    for (std::size_t i = 0; i < big.size(); ++i)
      std::printf("  %zu. %s %s: %s (%s)\n", i + 1, big[i]->kind.c_str(), big[i]->name.c_str(),
                  diff_signed_seconds(big[i]->diff_s()).c_str(), big[i]->explain.c_str());
    return 0;
  });
}

}  // namespace scenarios
