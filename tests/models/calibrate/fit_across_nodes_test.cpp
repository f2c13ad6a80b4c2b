// A file whose ring crosses two link classes (2 x p5.48xlarge, 16 ranks: NVLink inside each node,
// EFA between them) is fitted on the engine's tangent (models/calibrate/fit.cpp engine_samples):
// the binding class's parameters from the file, the other class held. Closed form first: a table
// the engine itself printed with known EFA parameters is fitted back to them.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/calibrate/fit.hpp"
#include "models/calibrate/fit_check.hpp"
#include "models/calibrate/nccl_tests.hpp"
#include "models/readers/nccl_tests_output.hpp"

using namespace models;

namespace {
ScenarioSpec two_p5_rings() {
  ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = 2;
  s.nccl_env["NCCL_ALGO"] = "Ring";  // every size on EFA's ring steps, so each protocol is identifiable
  return s;
}

// The engine's own all_reduce_perf table, 8 B - `max_bytes` (4 GiB), as a measured run.
readers::NcclTestsRun engine_table(const ScenarioSpec& spec, int64_t max_bytes = int64_t{4} << 30) {
  calibrate::NcclTestsOptions o;
  o.min_bytes = 8;
  o.max_bytes = max_bytes;
  readers::NcclTestsRun run;
  run.source = "engine.txt";
  run.op = "all_reduce";
  run.ranks = 16;
  run.processes = 16;
  for (const auto& r : calibrate::run_nccl_tests(spec, o).rows) {
    readers::NcclTestsRow row;
    row.size_bytes = r.size;
    row.oop.time_us = r.time_us;
    run.rows.push_back(row);
  }
  return run;
}
}  // namespace

TEST_CASE("calibrate across nodes: the engine's own table gives back the network's parameters", "[calibrate]") {
  const std::map<std::string, double> truth = {{"efa.hop_latency.ll", 20e-6},     {"efa.hop_latency.ll128", 25e-6},
                                               {"efa.hop_latency.simple", 45e-6}, {"efa.efficiency.ll", 0.35},
                                               {"efa.efficiency.ll128", 0.6},     {"efa.efficiency.simple", 0.7},
                                               {"nccl.launch_overhead", 25e-6},   {"nccl.launch_sharpness", 4}};
  ScenarioSpec measured = two_p5_rings();
  for (const auto& [k, v] : truth) measured.cluster.params[k] = v;
  const std::vector<calibrate::Measurement> ms = {{two_p5_rings(), engine_table(measured)}};
  calibrate::FitResult fit = calibrate::fit_link_params(ms);
  CHECK(fit.classes.at("engine.txt") == "efa");
  CHECK(fit.held.at("engine.txt") == "nvlink");
  // The network's own class only: NVLink's steps are held at their defaults, not written.
  CHECK_FALSE(fit.params.count("nvlink.hop_latency.simple"));
  for (const char* name : {"efa.hop_latency.ll", "efa.hop_latency.simple", "efa.efficiency.ll128",
                           "efa.efficiency.simple", "nccl.launch_overhead"}) {
    INFO(name << " fitted " << fit.params.at(name) << ", true " << truth.at(name));
    CHECK(fit.params.at(name) == Approx(truth.at(name)).epsilon(0.05));
  }
  calibrate::check_fit_with_engine(ms, fit);
  REQUIRE(fit.engine_median_abs_error);
  CHECK(*fit.engine_median_abs_error < 0.01);
  CHECK(*fit.engine_max_abs_error < 0.05);
}

TEST_CASE("calibrate: a parameter the files barely move is held at its default and marked", "[calibrate]") {
  // Ring/LL up to 1 KiB: the step latency is the time, LL's efficiency moves no point by 2 %.
  ScenarioSpec measured = two_p5_rings();
  measured.nccl_env["NCCL_PROTO"] = "LL";
  measured.cluster.params["efa.hop_latency.ll"] = 20e-6;
  ScenarioSpec fitted_on = two_p5_rings();
  fitted_on.nccl_env["NCCL_PROTO"] = "LL";
  const std::vector<calibrate::Measurement> ms = {{fitted_on, engine_table(measured, 1024)}};
  const calibrate::FitResult fit = calibrate::fit_link_params(ms);
  CHECK(fit.undetermined.count("efa.efficiency.ll") == 1);
  CHECK_FALSE(fit.undetermined.count("efa.hop_latency.ll"));
  CHECK(fit.params.at("efa.hop_latency.ll") == Approx(20e-6).epsilon(0.05));
  // Held at the default the same fit starts from: the fit of a table at the defaults agrees.
  const std::vector<calibrate::Measurement> at_defaults = {{fitted_on, engine_table(fitted_on, 1024)}};
  CHECK(fit.params.at("efa.efficiency.ll") == calibrate::fit_link_params(at_defaults).params.at("efa.efficiency.ll"));
}
