// commsim profile TRACE.json --scenario TRACED.toml --out PROFILE.toml [--set K=V]... [--json]
// A measured step's compute as a profile: reads a PyTorch profiler (Kineto) trace, fits the
// registered compute.* parameters so that the compute laws give the trace's time per kernel class
// for the scenario that describes the traced run (models/measured/compute_fit.hpp), and writes them
// as a profile `[cluster] profile` reads (with the traced scenario's own [cluster.params], e.g. its
// link calibration, carried along). A scenario of the same model at another layout or scale then
// runs with measured compute and simulated communication (docs/measured-runs.md).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "models/measured/compute_fit.hpp"
#include "models/params.hpp"
#include "models/readers/kineto_trace.hpp"
#include "models/topology/resolve.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "models/run/layout_line.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/load/input_file.hpp"

namespace scenarios {
namespace {

std::string compute_profile_toml(const models::measured::ComputeFit& fit, const std::string& trace,
                                 const std::string& scenario, const std::map<std::string, double>& carried) {
  std::ostringstream o;
  o.precision(9);
  const auto& m = fit.measured;
  o << "# commsim compute profile, written by `commsim profile`.\n"
    << "# Trace: " << trace << " (" << (m.device.empty() ? "GPU not named" : m.device) << ", " << m.steps
    << " profiled step(s), mean per step"
    << (m.gpus > 1 ? ", and per GPU over its " + std::to_string(m.gpus) + " GPUs" : std::string()) << ")\n"
    << "# Traced run as described by: " << scenario << "\n"
    << "# Per kernel class: measured ms / the laws' ms -> factor (fixed times x factor, rates / factor)\n";
  auto line = [&](const char* name, double meas, double law, double k) {
    char b[160];
    std::snprintf(b, sizeof b, "#   %-12s %9.3f / %9.3f -> %.4f\n", name, meas * 1e3, law * 1e3, k);
    o << b;
  };
  line("gemm", m.gemm, fit.laws.gemm, fit.gemm);
  line("attention", m.attention, fit.laws.attention, fit.attention);
  line("elementwise", m.elementwise, fit.laws.elementwise, fit.elementwise);
  line("optimizer", m.optimizer, fit.laws.optimizer, fit.optimizer);
  if (fit.gaps_fitted)
    line("idle (gaps)", m.idle(), fit.laws.gaps, fit.gap);
  else if (!m.idle_measured())
    o << "#   idle (gaps): not fitted (the trace's kernels overlap: busy exceeds span, no idle time measured)\n";
  else
    o << "#   idle (gaps): not fitted (the trace holds communication kernels)\n";
  o << "# Valid for the traced model's shapes on this GPU, precision and software (docs/measured-runs.md).\n"
    << "[params]\n";
  for (const auto& [name, value] : carried)
    if (!fit.params.count(name)) o << "\"" << name << "\" = " << value << "   # carried from the traced scenario\n";
  for (const auto& [name, value] : fit.params) o << "\"" << name << "\" = " << value << "\n";
  return o.str();
}

}  // namespace

int cmd_profile(int argc, char** argv) {
  CLI::App app{"Fit the compute parameters to a measured PyTorch profiler trace and write a profile.",
               "commsim profile"};
  std::string trace_path, scenario_path, out;
  std::vector<std::string> sets;
  bool json = false;
  app.add_option("trace", trace_path, "PyTorch profiler (Kineto) Chrome trace of the measured steps")
      ->required()
      ->type_name("TRACE.json");
  app.add_option("--scenario", scenario_path, "the traced run: its machine, model, micro-batch and layout")
      ->required()
      ->type_name("TRACED.toml");
  app.add_option("--out", out, "profile to write (TOML), for [cluster] profile")->required()->type_name("PROFILE.toml");
  add_set_option(app, sets);
  app.add_flag("--json", json, "print the fit as one JSON object (docs/result.schema.json) instead of the table");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    const LoadedScenario scenario = load_scenario(scenario_path, sets);
    std::vector<std::string> inputs = scenario.files;
    inputs.push_back(trace_path);
    refuse_outputs_over_inputs({{"--out", out}}, inputs);
    const std::string text =
        read_input_file(trace_path, {trace_path, 1, 1}, "trace", "a PyTorch profiler trace (export_chrome_trace JSON)");
    const models::readers::KinetoTrace trace = models::readers::parse_kineto_trace(text, trace_path);
    // A profile carries kernel rates measured on one GPU (docs/measured-runs.md): on another
    // GPU's scenario it would set wrong ones. A warning, as calibrate's and --compare's: the user
    // may mean it.
    const std::string gpu = models::topology::resolve_node(scenario.spec.cluster).gpu.name;
    if (!trace.device.empty() && !models::readers::gpu_product_matches(trace.device, gpu))
      std::fprintf(stderr, "commsim profile: warning: %s ran on %s, the scenario's GPU is %s: the profile's rates "
                           "are that GPU's\n",
                   trace_path.c_str(), trace.device.c_str(), gpu.c_str());
    const models::measured::TraceCompute measured = models::measured::trace_compute(trace);
    for (const auto& n : models::measured::trace_notes(measured))
      std::fprintf(stderr, "commsim profile: note: %s: %s\n", trace_path.c_str(), n.c_str());
    models::measured::ComputeFit fit;
    models::ScenarioSpec fitted = scenario.spec;
    double laws_step = 0, fitted_step = 0;
    std::string layout;
    int gpus = 0;
    try {
      fit = models::measured::fit_compute(scenario.spec, measured);
      for (const auto& [k, v] : fit.params) fitted.cluster.params[k] = v;
      models::check_params(fitted.cluster.params);
      laws_step = models::run_scenario(scenario.spec).step_time_s;
      fitted_step = models::run_scenario(fitted).step_time_s;
      const models::LayoutSummary l = models::describe_layout(scenario.spec);
      layout = l.line, gpus = l.gpus;
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
    write_file_atomically(out, compute_profile_toml(fit, trace_path, scenario_path, scenario.spec.cluster.params));
    const double measured_step = measured.host > 0 ? measured.host : measured.span;
    if (json) {
      CommandInputs in = scenario_inputs(scenario, sets);
      in.files.push_back(trace_path);
      Json j = json_header("profile", in);
      j["profile"] = out;
      j["gpus"] = gpus;
      j["layout"] = layout;
      j["device"] = measured.device;
      j["steps"] = measured.steps;
      Json classes = Json::array();
      auto cls = [&](const char* name, double meas, double law, double k) {
        classes.push_back({{"class", name}, {"measured_s", meas}, {"laws_s", law}, {"factor", k}});
      };
      cls("gemm", measured.gemm, fit.laws.gemm, fit.gemm);
      cls("attention", measured.attention, fit.laws.attention, fit.attention);
      cls("elementwise", measured.elementwise, fit.laws.elementwise, fit.elementwise);
      cls("optimizer", measured.optimizer, fit.laws.optimizer, fit.optimizer);
      j["classes"] = std::move(classes);
      j["trace_gpus"] = measured.gpus;
      j["idle_s"] = measured.idle_measured() ? Json(measured.idle()) : Json(nullptr);
      j["laws_gaps_s"] = fit.laws.gaps;
      j["gaps_fitted"] = fit.gaps_fitted;
      j["measured_step_s"] = measured_step;
      j["laws_step_time_s"] = laws_step;
      j["step_time_s"] = fitted_step;
      j["params"] = fit.params;
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    std::printf("trace      %s (%s, %d step(s))\nscenario   %s\nlayout     %s\n\n", trace_path.c_str(),
                measured.device.empty() ? "GPU not named" : measured.device.c_str(), measured.steps,
                scenario_path.c_str(), layout.c_str());
    std::printf("%-22s %12s %12s %8s\n", "per step", "measured", "laws", "factor");
    auto row = [](const char* name, double meas, double law, const char* k) {
      std::printf("%-22s %12s %12s %8s\n", name, format_seconds(meas).c_str(), format_seconds(law).c_str(), k);
    };
    auto factor = [](double k) {
      char b[32];
      std::snprintf(b, sizeof b, "%.4f", k);
      return std::string(b);
    };
    row("gemm", measured.gemm, fit.laws.gemm, factor(fit.gemm).c_str());
    row("attention", measured.attention, fit.laws.attention, factor(fit.attention).c_str());
    row("elementwise", measured.elementwise, fit.laws.elementwise, factor(fit.elementwise).c_str());
    row("optimizer", measured.optimizer, fit.laws.optimizer, factor(fit.optimizer).c_str());
    if (measured.idle_measured())
      row("GPU idle / gaps", measured.idle(), fit.laws.gaps, fit.gaps_fitted ? factor(fit.gap).c_str() : "-");
    else  // kernels overlapping on several streams: no idle time is measured, none is printed
      std::printf("%-22s %12s %12s %8s\n", "GPU idle / gaps", "overlap", format_seconds(fit.laws.gaps).c_str(), "-");
    if (measured.communication > 0)
      std::printf("%-22s %12s %12s %8s\n", "communication", format_seconds(measured.communication).c_str(), "simulated", "-");
    std::printf("\nstep: measured %s (the trace's %s), laws %s (%+.1f %%), with this profile %s (%+.1f %%)\n",
                format_seconds(measured_step).c_str(), measured.host > 0 ? "ProfilerStep annotations" : "GPU span",
                format_seconds(laws_step).c_str(), (laws_step / measured_step - 1) * 100,
                format_seconds(fitted_step).c_str(), (fitted_step / measured_step - 1) * 100);
    std::printf("wrote %s (use it as [cluster] profile = \"%s\")\n", out.c_str(), out.c_str());
    return 0;
  });
}

}  // namespace scenarios
