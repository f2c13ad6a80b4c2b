// Validation of the workload model against real measurements, each with its source.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "models/run/run.hpp"
#include "scenarios/load/loader.hpp"

namespace {
double run_step_workload_validation(const std::string& rel) {
  const auto loaded = scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/" + rel);
  return models::run_scenario(loaded.spec).step_time_s;
}
double measured_mean(const std::string& json_rel) {
  std::ifstream in(std::string(COMMSIM_SOURCE_DIR) + "/" + json_rel);
  REQUIRE(in.good());
  return nlohmann::json::parse(in).at("mean_step_s").get<double>();
}
}  // namespace

// The two single-GPU calibration runs, out of sample since the compute model is built from
// microbenchmarks (models/compute/): the same steps measured on three H200 hosts, which differ by up
// to 6 % (power state): the calibration machine (h200x4/measured/torch/*.json), the single-GPU
// machine (h200x1/measured/step_profile.jsonl) and the 2 x H200 host (h200x2/steps_foreach.jsonl).
// Before the compute model by shape, the two-parameter fit reproduced the first pair by construction.
TEST_CASE("workload: z3_n1 and tp_n1 predict the single-GPU steps of three hosts within 5 %",
          "[validation][workload]") {
  const double z3 = run_step_workload_validation("scenarios/validation/h200x4/z3_n1.toml");  // 0.1531 s
  const double tp = run_step_workload_validation("scenarios/validation/h200x4/tp_n1.toml");  // 0.1132 s
  // Calibration machine: 0.1606 and 0.1166 s (-4.7 %, -2.9 %).
  CHECK(std::abs(z3 / measured_mean("scenarios/validation/h200x4/measured/torch/z3_n1.json") - 1) < 0.05);
  CHECK(std::abs(tp / measured_mean("scenarios/validation/h200x4/measured/torch/tp_n1.json") - 1) < 0.05);
  // h200x1 step_profile.jsonl: 0.1543 (fsdp) and 0.1172 s (plain) (-0.8 %, -3.4 %).
  std::map<std::string, double> h200x1, h200x2;
  {
    std::ifstream in(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured/step_profile.jsonl");
    REQUIRE(in.good());
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line);
      if (j.value("kind", "") == "profile") h200x1[j.at("mode")] = j.at("mean_step_s");
    }
  }
  CHECK(std::abs(z3 / h200x1.at("fsdp") - 1) < 0.05);
  CHECK(std::abs(tp / h200x1.at("plain") - 1) < 0.05);
  // h200x2 steps_foreach.jsonl: fsdp_n1 0.1511, tp_n1 0.1131 s (+1.3 %, +0.1 %).
  {
    std::ifstream in(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x2/steps_foreach.jsonl");
    REQUIRE(in.good());
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const auto j = nlohmann::json::parse(line);
      h200x2[j.at("tag")] = j.at("result").at("mean_step_s");
    }
  }
  CHECK(std::abs(z3 / h200x2.at("fsdp_n1") - 1) < 0.05);
  CHECK(std::abs(tp / h200x2.at("tp_n1") - 1) < 0.05);
}

// Predicted 2.12 (14.1 s vs 29.9 s per step against the measured 19.6 s vs 47.4 s): -12.1 %, inside
// the band with 2.9 points to spare. Both absolute times are under-predicted (README, seeds' study).
TEST_CASE("workload: seed 002 ratio of 4 pods x 1 GPU (EFA) to 1 pod x 4 GPUs within 15 % of 2.42",
          "[validation][workload]") {
  // scenarios/seeds/notes/002_*: 50 steps in 0:16:21 (1 pod, P2P) and 0:39:32 (4 pods, EFA GDRDMA).
  const double measured = (39 * 60 + 32) / double(16 * 60 + 21);
  const double one_pod = run_step_workload_validation("scenarios/seeds/p4d_1pod_4gpu.toml");
  const double four_pods = run_step_workload_validation("scenarios/seeds/p4d_4pod_1gpu_efa.toml");
  INFO("1 pod " << one_pod << " s/step, 4 pods " << four_pods << " s/step, measured ratio " << measured);
  CHECK(std::abs((four_pods / one_pod) / measured - 1) < 0.15);
}
