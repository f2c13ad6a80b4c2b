// commsim calibrate --scenario MACHINE.toml FILE[:VAR=VAL,...]... --out PROFILE.toml [--op OP] [--json]
// Fits the physical parameters of the transport each nccl-tests output exercised (hop latency
// and efficiency per protocol, launch overhead) and writes a profile scenarios can reference.
// The NCCL variables of a run are read from its INFO lines ("NCCL_P2P_DISABLE set by
// environment to 1") or given after the file name: ar_shm.txt:NCCL_P2P_DISABLE=1.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models/calibrate/fit.hpp"
#include "models/calibrate/fit_check.hpp"
#include "models/nccl/env_names.hpp"
#include "models/params.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "models/topology/resolve.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/nccl_tests_support.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {
namespace {

// A fitted parameter within 1e-6 (relative) of an end of its registered range (models/params.cpp):
// the data pushed it there, so its value says more about the model than about the machine.
bool at_bound(const std::string& name, double v) {
  const models::ParamSpec* p = models::find_param(name);
  if (!p) return false;
  const double tol = 1e-6 * std::max(1e-12, std::fabs(v));
  return std::fabs(v - p->range.min) <= tol || (std::isfinite(p->range.max) && std::fabs(v - p->range.max) <= tol);
}

// "<class>.<what>.<proto>" (nvlink.efficiency.ll) is exercised by a point of a file of that link
// class run with that protocol; other parameters (nccl.*) by any point.
bool exercised(const std::string& name, const models::calibrate::FitResult& fit) {
  const auto first = name.find('.'), last = name.rfind('.');
  if (first == std::string::npos || first == last) return !fit.points.empty();
  const std::string cls = name.substr(0, first), proto = name.substr(last + 1);
  if (cls == "nccl") return !fit.points.empty();
  for (const auto& p : fit.points) {
    const auto c = fit.classes.find(p.source);
    std::string pr = p.proto;
    std::transform(pr.begin(), pr.end(), pr.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (c != fit.classes.end() && c->second == cls && pr == proto) return true;
  }
  return false;
}

// The comment a carried parameter keeps: the one its line already has (`commsim profile` writes
// "# carried from the traced scenario"), else the file it was read from.
std::string carried_comment(const SourcePos& at) {
  if (at.file != "--set") {
    std::ifstream in(at.file);
    std::string line;
    for (int n = 1; n <= at.line && std::getline(in, line); ++n)
      if (n == at.line) {
        // The value is a number (no '#' in it): a '#' after it starts the line's comment.
        const auto hash = line.find('#', static_cast<std::size_t>(std::max(0, at.col - 1)));
        if (hash != std::string::npos) return line.substr(hash);
      }
  }
  return "# carried from " + std::filesystem::path(at.file).filename().string();
}

// A point slower than a larger size of its run: host noise, left out of the fit (fit.hpp).
constexpr const char* kNotFitted = "not fitted: below the envelope";

}  // namespace

int cmd_calibrate(int argc, char** argv) {
  CLI::App app{"Fit link parameters to nccl-tests output and write a calibration profile.", "commsim calibrate"};
  std::string scenario_path, out;
  std::vector<std::string> files, sets, fixes;
  bool json = false;
  app.add_option("files", files, "nccl-tests outputs, each optionally followed by :VAR=VAL,VAR=VAL")
      ->required()
      ->type_name("FILE[:VAR=VAL,...]");
  app.add_option("--scenario", scenario_path, "the machine the measurements ran on")
      ->required()
      ->type_name("MACHINE.toml");
  app.add_option("--out", out, "profile to write (TOML)")->required()->type_name("PROFILE.toml");
  app.add_option("--fix", fixes, "hold a parameter measured elsewhere fixed, e.g. nvlink.efficiency.ll=0.26")
      ->type_name("NAME=VALUE");
  add_set_option(app, sets);
  std::string op_name;
  app.add_option("--op", op_name,
                 "the collective (all_reduce, all_gather) of files without an nccl-tests header naming it; a "
                 "file whose header names another collective is refused")
      ->type_name("OP");
  app.add_flag("--json", json, "print the fit as one JSON object (docs/result.schema.json) instead of the table");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    models::nccl::CollOp given_op = models::nccl::CollOp::AllReduce;
    if (!op_name.empty() &&
        (!models::nccl::parse_coll_op(op_name, given_op) || !models::calibrate::fits_collective(given_op)))
      throw UserError({"--op", 1, 1}, "--op " + op_name + " is not a collective calibrate fits (expected " +
                                          std::string(models::calibrate::kFittedCollectives) + ")");
    LoadedScenario base = load_scenario(scenario_path, sets);
    // Every input is protected but the machine's own calibration profile: refitting it in place is
    // the documented workflow (scenarios/validation/h200x4/measured/README.md), the fit starts from
    // the defaults (below), and the new profile replaces the old one only once it is complete.
    std::vector<std::string> inputs;
    for (const auto& f : base.files)
      if (f != base.spec.cluster.profile) inputs.push_back(f);
    for (const std::string& arg : files) inputs.push_back(arg.substr(0, arg.find(':')));
    refuse_outputs_over_inputs({{"--out", out}}, inputs);
    // Every parameter the scenario (its profile included) sets is written into the new profile
    // unless the fit sets it: the profile replaces the old one (a scenario has one), so a trace's
    // compute.* and the link classes no file exercised must survive a refit.
    const std::map<std::string, double> scenario_params = base.spec.cluster.params;
    // The parameters the scenario's profile was fitted with held fixed ([fitted] fixed) are held
    // again at the profile's (or the scenario's) value, unless --fix gives another: a refit in
    // place must not drop a value measured elsewhere.
    std::vector<std::string> fixed_before;
    if (base.spec.cluster.profile_fit) fixed_before = base.spec.cluster.profile_fit->fixed;
    // Fit from the defaults, not from an earlier profile of the machine: drop the parameters
    // this fit owns (the World's raw bandwidths and the compute model's stay).
    std::erase_if(base.spec.cluster.params, [](const auto& kv) {
      const models::ParamSpec* p = models::find_param(kv.first);
      return p && p->owner == models::ParamOwner::Collectives;
    });
    std::map<std::string, double> pinned;
    for (std::size_t i = 0; i < fixes.size(); ++i) {
      const auto eq = fixes[i].find('=');
      double value = 0;
      try {
        std::size_t used = 0;
        if (eq == std::string::npos) throw std::invalid_argument("");
        value = std::stod(fixes[i].substr(eq + 1), &used);
        if (used != fixes[i].size() - eq - 1) throw std::invalid_argument("");
      } catch (const std::exception&) {
        throw UserError(
            {"--fix", static_cast<int>(i + 1), 1},
            "'" + fixes[i] + "' is not a parameter setting (expected NAME=NUMBER, such as nvlink.efficiency.ll=0.26)");
      }
      // Checked here, at the option: an unknown name at it, a value out of range at the value (the
      // registry's messages), not at whatever the scenario or its profile writes near the name.
      const std::string name = fixes[i].substr(0, eq);
      try {
        models::check_param(name, value);
      } catch (const models::SpecError& e) {
        throw UserError({"--fix", static_cast<int>(i + 1), models::find_param(name) ? static_cast<int>(eq) + 2 : 1},
                        e.what());
      }
      pinned[name] = value;
    }
    for (const std::string& name : fixed_before) {
      const auto value = scenario_params.find(name);
      if (pinned.count(name) || value == scenario_params.end()) continue;
      pinned[name] = value->second;
      std::fprintf(stderr,
                   "commsim calibrate: note: %s held at %g, as %s was fitted (its [fitted] fixed); --fix %s=VALUE "
                   "holds another value\n",
                   name.c_str(), value->second, base.spec.cluster.profile.c_str(), name.c_str());
    }
    // A pinned parameter of another model (a World bandwidth) is the machine's: the fit's World
    // uses it. The collective engine's are held in the fit itself (fit_link_params).
    for (const auto& [name, value] : pinned)
      if (const models::ParamSpec* p = models::find_param(name); p && p->owner != models::ParamOwner::Collectives)
        base.spec.cluster.params[name] = value;
    std::vector<models::calibrate::Measurement> measurements;
    std::vector<std::string> sources;
    // Each file's own collective and rank count are adopted below (adopt_run_ranks: the fit's ring
    // and bus-bandwidth factor are the file's); another GPU model in its "# Rank" lines is the
    // scenario's machine no longer: the fit would mix machines (a warning, as nccl-tests --compare
    // gives: the file may come from a similar machine on purpose).
    const std::string gpu = models::topology::resolve_node(base.spec.cluster).gpu.name;
    for (const std::string& arg : files) {
      const auto colon = arg.find(':');
      const std::string file = arg.substr(0, colon);
      NcclTestsFile measured = read_nccl_tests_output(file, "calibrate");
      for (const auto& run : measured.runs)
        for (const auto& model : run.gpus)
          if (!models::readers::gpu_product_matches(model, gpu))
            std::fprintf(stderr, "commsim calibrate: warning: %s ran on %s, the scenario's GPU is %s: the fit mixes machines\n",
                         file.c_str(), model.c_str(), gpu.c_str());
      // Where each variable was set: the file's INFO line, or the argument itself (ar.txt:NCCL_X=V,
      // read as a one-line input named by its text, at the value).
      std::map<std::string, SourcePos> env_at;
      std::map<std::string, std::string> env = nccl_env_from_log(measured.text, file, &env_at);
      if (colon != std::string::npos) {
        std::size_t from = colon + 1;
        while (from <= arg.size()) {
          const std::size_t end = std::min(arg.find(',', from), arg.size());
          const std::string kv = arg.substr(from, end - from);
          const auto eq = kv.find('=');
          if (eq == std::string::npos || !models::nccl::is_nccl_env_name(kv))
            throw UserError({arg, 1, static_cast<int>(from) + 1},
                            "'" + kv + "' after '" + file +
                                ":' is not a variable setting (expected NCCL_VAR=VALUE, such as " + file +
                                ":NCCL_P2P_DISABLE=1)");
          env[kv.substr(0, eq)] = kv.substr(eq + 1);
          env_at[kv.substr(0, eq)] = {arg, 1, static_cast<int>(from + eq) + 2};
          from = end + 1;
        }
      }
      std::string version_note;
      const int version = usable_nccl_version(measured, file, &version_note);
      if (!version_note.empty()) std::fprintf(stderr, "commsim calibrate: note: %s\n", version_note.c_str());
      for (auto& run : measured.runs) {
        // A table without nccl-tests' header does not say its collective, and all_gather's bus
        // bandwidth is another multiple of its time than all_reduce's: never guessed.
        if (run.op.empty() && op_name.empty())
          throw UserError({file, 1, 1},
                          "the file does not say which collective it measured (no nccl-tests header naming its "
                          "program, such as all_reduce_perf): give --op all_reduce or --op all_gather");
        if (run.op.empty()) run.op = models::nccl::coll_op_name(given_op);
        models::nccl::CollOp op = models::nccl::CollOp::AllReduce;
        if (models::nccl::parse_coll_op(run.op, op) && !models::calibrate::fits_collective(op))
          throw UserError(
              collective_line(measured.text, file),
              file + " is " + run.op + ", which calibrate does not fit " + models::calibrate::kFittedCollectives);
        if (!op_name.empty() && op != given_op)
          throw UserError(collective_line(measured.text, file),
                          file + " is " + run.op + ", not --op " + op_name + " (its header names its collective)");
        if (run.ranks == 1)
          throw UserError(nccl_tests_rank_line(measured.text, file),
                          file + " ran on 1 rank, which crosses no link (expected a run of at least 2 ranks)");
        if (run.ranks <= 0)
          std::fprintf(stderr,
                       "commsim calibrate: note: %s does not say how many ranks ran it (no \"# Rank\" lines, and "
                       "its header, if any, counts one process's GPUs): fitted on the scenario's layout\n",
                       file.c_str());
        models::calibrate::Measurement m{base.spec, std::move(run)};
        apply_run_to_spec(m.run, env, version, m.spec);
        check_run_nccl_env(m.spec.nccl_env, env_at);
        if (const std::string note = adopt_run_ranks(measured, m.run, file, m.spec); !note.empty())
          std::fprintf(stderr, "commsim calibrate: note: %s\n", note.c_str());
        measurements.push_back(std::move(m));
      }
      sources.push_back(file);
    }
    models::calibrate::FitResult fit;
    try {
      fit = models::calibrate::fit_link_params(measurements, pinned);
    } catch (const models::SpecError& e) {
      throw base.to_user_error(e);
    }
    // A file across nodes is fitted at its own node count, where the profile is right by
    // construction; measured elsewhere, such a profile did worse than the defaults.
    for (const auto& m : measurements)
      if (fit.held.count(m.run.source))
        std::fprintf(stderr,
                     "commsim calibrate: note: %s was fitted across %d nodes on %s's parameters, its %s steps held "
                     "at their defaults or --fix: the profile reproduces this file, and other node counts need "
                     "their own check (fitted so on 2 x p5.48xlarge, a profile did worse than the catalog's defaults "
                     "on public runs of 4-32 nodes: docs/measured-runs.md)\n",
                     m.run.source.c_str(), m.spec.cluster.nodes, fit.classes.at(m.run.source).c_str(),
                     fit.held.at(m.run.source).c_str());
    std::map<std::string, models::calibrate::CarriedParam> carried;
    for (const auto& [name, value] : scenario_params)
      if (!fit.params.count(name)) carried[name] = {value, carried_comment(base.position_of("cluster.params." + name))};
    // The error a scenario with this profile predicts: each point replayed by the engine with the
    // profile's parameters (fitted and carried).
    for (auto& m : measurements)
      for (const auto& [name, c] : carried) m.spec.cluster.params.emplace(name, c.value);
    try {
      models::calibrate::check_fit_with_engine(measurements, fit);
    } catch (const models::SpecError& e) {
      throw base.to_user_error(e);
    }
    models::calibrate::FittedOn on;
    on.instance = base.spec.cluster.instance;
    on.gpu = models::topology::resolve_node(base.spec.cluster).gpu.name;
    for (const auto& m : measurements)
      if (m.spec.cluster.nodes > 1 &&
          std::find(on.nodes.begin(), on.nodes.end(), m.spec.cluster.nodes) == on.nodes.end())
        on.nodes.push_back(m.spec.cluster.nodes);
    std::sort(on.nodes.begin(), on.nodes.end());
    const std::string profile = models::calibrate::profile_toml(fit, files, on, carried);
    write_file_atomically(out, profile);
    if (json) {
      CommandInputs inputs = scenario_inputs(base, sets);
      inputs.files.insert(inputs.files.end(), sources.begin(), sources.end());
      Json j = json_header("calibrate", inputs);
      j["profile"] = out;
      j["fixed"] = pinned;
      Json points = Json::array();
      for (const auto& p : fit.points) {
        Json point = {{"file", p.source},
                      {"size_bytes", p.size_bytes},
                      {"measured_us", p.measured_us},
                      {"predicted_us", p.predicted_us},
                      {"error", p.rel_error()},
                      {"engine_us", p.engine_us},
                      {"engine_error", p.engine_rel_error()},
                      {"fitted", p.fitted},
                      {"algo", p.algo},
                      {"proto", p.proto}};
        if (!p.fitted) point["note"] = kNotFitted;
        points.push_back(std::move(point));
      }
      j["points"] = std::move(points);
      j["median_abs_error"] = fit.median_abs_error;
      j["max_abs_error"] = fit.max_abs_error;
      j["engine_median_abs_error"] = fit.engine_median_abs_error.value_or(0);
      j["engine_max_abs_error"] = fit.engine_max_abs_error.value_or(0);
      j["params"] = fit.params;
      Json bounds = Json::array(), unused = Json::array();
      for (const auto& [name, value] : fit.params) {
        if (pinned.count(name)) continue;
        if (at_bound(name, value) || fit.at_bound.count(name)) bounds.push_back(name);
        if (!exercised(name, fit)) unused.push_back(name);
      }
      j["params_at_bounds"] = std::move(bounds);
      j["params_not_exercised"] = std::move(unused);
      j["params_undetermined"] = fit.undetermined;
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    // "fit": the fit's linear model; "engine": the collective engine with the written parameters.
    std::printf("%-40s %12s %10s %10s %8s %11s %8s  %s\n", "file", "size (B)", "meas (us)", "fit (us)", "error",
                "engine (us)", "error", "algo/proto");
    std::size_t left_out = 0;
    for (const auto& p : fit.points) {
      left_out += p.fitted ? 0 : 1;
      std::printf("%-40s %12lld %10.2f %10.2f %+7.1f%% %11.2f %+7.1f%%  %s/%s%s\n", p.source.c_str(),
                  static_cast<long long>(p.size_bytes), p.measured_us, p.predicted_us, p.rel_error() * 100, p.engine_us,
                  p.engine_rel_error() * 100, p.algo.c_str(), p.proto.c_str(),
                  p.fitted ? "" : ("  (" + std::string(kNotFitted) + ")").c_str());
    }
    std::printf("\nengine with the fitted parameters: median |error| %.1f %%, max |error| %.1f %% over %zu points\n",
                fit.engine_median_abs_error.value_or(0) * 100, fit.engine_max_abs_error.value_or(0) * 100,
                fit.points.size());
    std::printf("the fit's linear model: median |error| %.1f %%, max |error| %.1f %% over %zu points%s\n",
                fit.median_abs_error * 100, fit.max_abs_error * 100, fit.points.size(),
                left_out ? (" (" + std::to_string(left_out) + " not fitted: below the envelope)").c_str() : "");
    for (const auto& [name, value] : fit.params) {
      const char* mark = pinned.count(name)      ? "  (fixed by --fix)"
                         : !exercised(name, fit) ? "  (no file exercised it: kept near its default)"
                         : fit.undetermined.count(name)
                             ? "  (the files barely move it: held at its default, not fitted)"
                         : at_bound(name, value) || fit.at_bound.count(name)
                             ? "  (AT ITS BOUND: the data pushed it to the end of its range)"
                             : "";
      std::printf("  %-28s %.6g%s\n", name.c_str(), value, mark);
    }
    std::printf("wrote %s\n", out.c_str());
    return 0;
  });
}

}  // namespace scenarios
