// fp8 training steps measured on one H100 (bench/device/steps/fp8_step.py: the calibration decoder with
// Transformer Engine's current-scaling recipe rebuilt from torch ops, casts torch.compile'd;
// scenarios/validation/h100x1/measured/fp8_steps*.jsonl and README.md) against commsim, which prices
// fp8 GEMMs by the fp8 law and the quantizations as memory-bound Fp8Cast work
// (models/compute/kernels.hpp, models/workload/compute.cpp). The cast rate was measured on these
// steps (micro-batch 2); micro-batch 1 and 4 and the bf16 steps check it. Before the cast model the
// fp8 step at micro-batch 2 was predicted 18.3 % fast (70.6 vs 86.4 ms).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "tests/validation/jsonl_rows.hpp"
#include "models/run/run.hpp"
#include "scenarios/load/loader.hpp"

TEST_CASE("validation: bf16 and fp8 steps on one H100, fp8 casts priced", "[validation]") {
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h100x1/";
  std::map<std::pair<std::string, int>, std::pair<double, int>> measured;  // (precision, mb) -> sum, runs
  for (const char* file : {"fp8_steps.jsonl", "fp8_steps_mb.jsonl"})
    for (const auto& r : validation::jsonl_rows(dir + "measured/" + file, "step")) {
      const std::string p = r.at("precision");
      if (p == "fp8" && (r.value("quant", std::string()) != "compiled" || r.value("head_fp8", false))) continue;
      auto& m = measured[{p, r.at("micro_batch").get<int>()}];
      m.first += r.at("mean_step_s").get<double>();
      ++m.second;
    }
  REQUIRE(measured.size() == 6);  // bf16 and fp8 at micro-batch 1, 2 and 4
  for (const auto& [key, m] : measured) {
    const auto& [precision, mb] = key;
    const auto loaded = scenarios::load_scenario(dir + "fp8_step_" + precision + ".toml",
                                                 {"training.micro_batch=" + std::to_string(mb)});
    const double predicted = models::run_scenario(loaded.spec).step_time_s, seen = m.first / m.second;
    const double err = predicted / seen - 1;
    std::printf("h100x1 %s micro-batch %d: measured %.2f ms (%d runs), commsim %.2f ms, error %+.1f %%\n",
                precision.c_str(), mb, seen * 1e3, m.second, predicted * 1e3, 100 * err);
    INFO(precision << " micro-batch " << mb);
    if (precision == "bf16") CHECK(std::abs(err) < 0.02);
    // fp8: -1.6 % at micro-batch 2 (where the cast rate was measured), -5.2 % at 4; -9.1 % at 1, where
    // the script's Python issue (about 11 us per kernel) bounds the step, not the GPU.
    if (precision == "fp8") CHECK(std::abs(err) < (mb == 2 ? 0.03 : mb == 4 ? 0.07 : 0.11));
  }
}
