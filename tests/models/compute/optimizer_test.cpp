// AdamW by implementation (models/compute/optimizer.hpp) against the H200's adamw.jsonl.
#include <catch2/catch.hpp>

#include "models/compute/gpu_rates.hpp"
#include "models/compute/optimizer.hpp"

using namespace models::compute;

TEST_CASE("compute: AdamW moves 7 passes fused and 20 unfused over its states", "[models]") {
  CHECK(adamw_bytes_per_param(OptimizerImpl::Fused, 4) == 28);
  CHECK(adamw_bytes_per_param(OptimizerImpl::Fused, 2) == 14);
  CHECK(adamw_bytes_per_param(OptimizerImpl::Foreach, 4) == 80);
  CHECK(adamw_bytes_per_param(OptimizerImpl::ForLoop, 2) == 40);
  CHECK(parse_optimizer_impl("for_loop") == OptimizerImpl::ForLoop);
  CHECK_FALSE(parse_optimizer_impl("apex").has_value());
  CHECK(std::string(optimizer_impl_name(OptimizerImpl::Fused)) == "fused");
}

TEST_CASE("compute: AdamW per implementation and dtype takes the H200's measured time per parameter", "[models]") {
  const GpuRates r = make_gpu_rates(models::hw::find_gpu("H200"), Precision::Bf16, {});
  // adamw.jsonl, decoder set (2.208 G parameters in 59 tensors): ms per step.
  struct Row {
    OptimizerImpl impl;
    int state_bytes;
    double ms;
  };
  const Row rows[] = {{OptimizerImpl::Fused, 4, 17.80},   {OptimizerImpl::Foreach, 4, 48.12},
                      {OptimizerImpl::ForLoop, 4, 42.21}, {OptimizerImpl::Fused, 2, 11.36},
                      {OptimizerImpl::Foreach, 2, 28.75}, {OptimizerImpl::ForLoop, 2, 21.71}};
  for (const Row& row : rows) {
    INFO(optimizer_impl_name(row.impl) << " " << row.state_bytes << " B");
    CHECK(adamw_seconds(r.adamw, row.impl, 2208370688.0, row.state_bytes) * 1e3 == Approx(row.ms).epsilon(0.01));
  }
  // The old model's 20 passes at one fitted 4.03 TB/s made foreach fp32 9 % and bf16 24 % fast.
  CHECK(adamw_seconds(r.adamw, OptimizerImpl::Foreach, 1e9, 2) > 40e9 / 4.03e12 * 1.2);
}
