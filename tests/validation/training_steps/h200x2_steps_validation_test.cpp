// Training steps on hardware the calibration never saw: 2 H200 GPUs (NV18) of another host, one
// process per GPU (torchrun), measured with bench/device/runs/run_steps.sh on 2026-11-22
// (scenarios/validation/h200x2/steps_foreach.jsonl: FSDP2 full sharding, Megatron-style TP 2 and
// a 1F1B pipeline of 2 stages x 8 micro-batches of the calibration decoder; default P2P,
// NCCL_P2P_DISABLE=1 (SHM), and Socket). Predictions are
// the step_*_n2.toml scenarios beside them: 2 GPUs of the 4xH200 calibration machine with its
// profile. That host computes ~3-6 % faster (one GPU: FSDP2 0.151 s vs 0.161 s, TP 0.113 s vs
// 0.117 s), which is left in the error, not corrected.
// Measured truth (docs/accuracy.md): FSDP2 p2p +0.1 %, shm -11.2 %, sock +5.5 %; TP p2p -2.7 %, shm +4.4 %,
// sock +21.5 % (2-rank TCP over loopback runs faster on that host than the 4-rank fit predicts);
// PP p2p +2.9 %, shm +4.1 %, sock +2.1 %; 2 pods x 1 GPU (NCCL_HOSTID, Socket over eth0) -8.9 %;
// FSDP2 P2P with NCCL_MAX_NCHANNELS=4 +4.2 %.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "models/run/run.hpp"
#include "scenarios/load/loader.hpp"

TEST_CASE("validation: 2 x H200 training steps out of sample (FSDP2, TP 2, PP 2, P2P, SHM, Socket)",
          "[validation][workload]") {
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x2/";
  std::ifstream in(dir + "steps_foreach.jsonl");
  REQUIRE(in.good());
  std::map<std::string, double> measured;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    measured[j.at("tag").get<std::string>()] = j.at("result").at("mean_step_s").get<double>();
  }
  std::vector<double> errs;
  for (const char* kind : {"z3", "tp", "pp"}) {
    for (const char* transport : {"p2p", "shm", "sock"}) {
      const std::string tag = std::string(kind == std::string("z3") ? "fsdp" : kind) + "_" + transport + "_n2";
      REQUIRE(measured.count(tag));
      const auto loaded = scenarios::load_scenario(dir + "step_" + kind + "_" + transport + "_n2.toml");
      const double predicted = models::run_scenario(loaded.spec).step_time_s;
      const double err = predicted / measured[tag] - 1;
      INFO(tag << ": predicted " << predicted << " s, measured " << measured[tag] << " s, error " << err * 100 << " %");
      CHECK(std::fabs(err) < 0.25);
      errs.push_back(std::fabs(err));
    }
  }
  // Pods: NCCL_HOSTID per process, NET/Socket over eth0 (steps varied 1.78-2.61 s).
  {
    const auto loaded = scenarios::load_scenario(dir + "step_z3_pod1_n2.toml");
    const double predicted = models::run_scenario(loaded.spec).step_time_s;
    const double err = predicted / measured.at("fsdp_pod1_n2") - 1;
    INFO("fsdp_pod1_n2: predicted " << predicted << " s, measured " << measured.at("fsdp_pod1_n2") << " s");
    CHECK(std::fabs(err) < 0.25);
    errs.push_back(std::fabs(err));
  }
  // Interference with fewer channels: NCCL_MAX_NCHANNELS=4 (the GEMMs still lose 10.4 ms per
  // step beside 116 ms of NCCL kernels on 4 SMs, profile_fsdp_n2_ch4.txt; the model's constant
  // slowdown while comm is in flight over-charges this case).
  {
    const auto loaded = scenarios::load_scenario(dir + "step_z3_p2p_n2.toml", {"nccl.env.NCCL_MAX_NCHANNELS=\"4\""});
    const double predicted = models::run_scenario(loaded.spec).step_time_s;
    const double err = predicted / measured.at("fsdp_p2p_n2_ch4") - 1;
    INFO("fsdp_p2p_n2_ch4: predicted " << predicted << " s, measured " << measured.at("fsdp_p2p_n2_ch4") << " s");
    CHECK(std::fabs(err) < 0.10);
    errs.push_back(std::fabs(err));
  }
  std::sort(errs.begin(), errs.end());
  REQUIRE(errs.size() == 11);
  CHECK(errs[5] < 0.10);  // median of 11
}
