// The experts of an MoE layer as grouped GEMMs (compute::grouped_gemm_seconds) against one H200's
// torch._grouped_mm over six models' expert shapes, L 2-128 experts of 32-2048 tokens, each product
// of gate+up and down (bench/device/compute/moe_grouped_gemm.py; scenarios/validation/h200x1/
// measured/moe_grouped_gemm.jsonl, README.md there). In sample: t_g and t_1 were fitted on these
// rows (a fit on three of the models predicts the other three within 8.5-15.2 % median, gemm.hpp).
// What it replaced, L products of the GEMM law each paying t0, misses the same rows by 24.7 % in the
// median, from 0.17 to 6.7 times the measured time: too fast where an expert of few tokens reads its whole weight,
// too slow where many small experts each paid a launch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/compute/gpu_rates.hpp"
#include "models/hw/gpu.hpp"
#include "tests/validation/jsonl_rows.hpp"

using validation::median;

TEST_CASE("h200x1 moe gemm: grouped expert products within 10 % median, L separate GEMM-law products 25 % off",
          "[validation]") {
  std::ifstream f(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured/moe_grouped_gemm.jsonl");
  REQUIRE(f);
  const auto rates =
      models::compute::make_gpu_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, {});
  std::vector<double> grouped, loop_law, loop_vs_loop;
  double worst = 0;
  std::string line;
  while (std::getline(f, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j.value("kind", "") != "moe_gemm") continue;
    const int L = j["L"].get<int>();
    const int64_t m = j["m"].get<int64_t>(), n = j["n"].get<int64_t>(), k = j["k"].get<int64_t>();
    const double measured = j["median_s"].get<double>();
    const std::string method = j["method"].get<std::string>();
    const double law_loop = L * models::compute::gemm_seconds(rates.gemm, m, n, k);
    if (method == "grouped") {
      const double e = models::compute::grouped_gemm_seconds(rates.gemm, rates.grouped, L, m, n, k) / measured - 1;
      grouped.push_back(std::abs(e));
      worst = std::max(worst, std::abs(e));
      loop_law.push_back(std::abs(law_loop / measured - 1));
    } else if (method == "loop") {
      loop_vs_loop.push_back(std::abs(law_loop / measured - 1));
    }
  }
  REQUIRE(grouped.size() == 384);
  CHECK(median(grouped) < 0.10);   // 9.1 %
  CHECK(worst < 0.62);             // +60 %: 8 of Qwen3-30B-A3B's experts of 128 tokens, model slow
  CHECK(median(loop_law) > 0.20);  // 24.7 %: the GEMM law per expert against the grouped kernel
  // L torch.mm in a row are what the GEMM law per expert describes better (16 % median): the
  // grouped kernel is another kernel, not the law's with one launch.
  CHECK(median(loop_vs_loop) < 0.17);
}
