// The host's issue cost in a back-to-back loop grows with the GPUs one thread launches on
// (models/comm_plan/link_params.hpp LinkParams::launch_cost):
//   L(g) = nccl.launch_overhead + (g - 1) x nccl.launch_per_gpu,   T = (L(g)^p + D^p)^(1/p)
// nccl-tests -g N (placement.single_process) has g = gpus per pod; one process per GPU g = 1.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/calibrate/nccl_tests.hpp"
#include "models/comm_plan/link_params.hpp"

using namespace models;

namespace {
ScenarioSpec h200x4(bool single_process, double per_gpu) {
  ScenarioSpec s;
  s.cluster.instance = "h200x4";
  s.cluster.nodes = 1;
  s.placement.pods_per_node = 1;
  s.placement.gpus_per_pod = 4;
  s.placement.single_process = single_process;
  s.cluster.params["nccl.launch_overhead"] = 19e-6;
  s.cluster.params["nccl.launch_per_gpu"] = per_gpu;
  return s;
}
}  // namespace

TEST_CASE("nccl-tests loop: the issue cost is a base plus a cost per further GPU of the thread", "[nccl]") {
  collectives::LinkParams p = collectives::LinkParams::defaults();
  p.launch_overhead_s = 19e-6;
  p.launch_per_gpu_s = 2e-6;
  p.launch_sharpness = 3;
  CHECK(p.launch_cost(1) == Approx(19e-6));
  CHECK(p.launch_cost(4) == Approx(25e-6));
  const double D = 10e-6;
  CHECK(p.loop_time(D, 4) == Approx(std::cbrt(std::pow(25e-6, 3) + std::pow(D, 3))));
  CHECK(p.loop_time(D) == Approx(std::cbrt(std::pow(19e-6, 3) + std::pow(D, 3))));
}

TEST_CASE("nccl-tests loop: -g 4 pays three more GPUs' issue cost than one process per GPU", "[nccl]") {
  calibrate::NcclTestsOptions o;
  o.min_bytes = o.max_bytes = 8;
  const double per_gpu = 3e-6;
  const auto g4 = calibrate::run_nccl_tests(h200x4(true, per_gpu), o);
  const auto g1 = calibrate::run_nccl_tests(h200x4(false, per_gpu), o);
  REQUIRE(g4.rows.size() == 1);
  REQUIRE(g1.rows.size() == 1);
  collectives::LinkParams p = collectives::LinkParams::defaults();
  p.apply(h200x4(true, per_gpu).cluster.params);
  CHECK(g4.rows[0].time_us == Approx(p.loop_time(g4.rows[0].device_us * 1e-6, 4) * 1e6).epsilon(1e-9));
  CHECK(g1.rows[0].time_us == Approx(p.loop_time(g1.rows[0].device_us * 1e-6, 1) * 1e6).epsilon(1e-9));
  CHECK(g4.rows[0].time_us > g1.rows[0].time_us + 0.5 * 3 * per_gpu * 1e6);
}
