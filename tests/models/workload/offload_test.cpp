// ZeRO-3 offload physics: the host step's thread model and the checkpointed re-gather rule.
#include <catch2/catch.hpp>

#include "models/hw/gpu.hpp"
#include "models/params.hpp"
#include "models/workload/data_parallel.hpp"

using namespace models::workload;

namespace {
ModelShape llama8b() {
  models::ModelSpec s;
  s.preset = "llama-3-8b";
  return resolve_model(s);
}
ComputeRates p4d_rates() {
  // p4d.24xlarge host: 2 sockets x 6 channels DDR4-2933 = 281.6 GB/s (models/hw/instance.cpp).
  return make_rates(models::hw::find_gpu("A100-40GB"), models::compute::Precision::Bf16, 281.6e9, 0, {});
}
}  // namespace

TEST_CASE("workload: offloaded ZeRO-3 step is one thread per rank under torchrun, host-bound alone", "[workload]") {
  const ComputeRates r = p4d_rates();
  const double shard = 8030261248.0 / 4;
  // torchrun with 4 processes (OMP_NUM_THREADS=1): t = shard x 42 B / min(core, host/4)
  //   = 2.0e9 x 42 / 12e9 = 7.03 s (one core, 12 GB/s, is below 281.6 x 0.4 / 4 = 28.2 GB/s).
  CHECK(zero3_host_step_seconds(shard, 4, 4, r) == Approx(shard * 42 / 12e9).epsilon(1e-9));
  // One process per pod, 4 pods on the host: every core, the host's bandwidth shared by 4:
  //   t = shard x 42 / (281.6e9 x 0.4 / 4) = 2.99 s.
  CHECK(zero3_host_step_seconds(shard, 1, 4, r) == Approx(shard * 42 / (281.6e9 * 0.4 / 4)).epsilon(1e-9));
  // A lone rank on its host (ZeRO-Offload's setting): 8e9 x 42 / 112.6e9 = 3.0 s for 8B params.
  CHECK(zero3_host_step_seconds(8e9, 1, 1, r) == Approx(8e9 * 42 / (281.6e9 * 0.4)).epsilon(1e-9));
  // training.cpu_threads (OMP_NUM_THREADS set by the user) overrides torchrun's rule:
  // 1 thread in a single-process pod = the torchrun case; 2 threads per rank under torchrun
  // = min(2 x 12 GB/s, 28.2 GB/s) = 24 GB/s.
  CHECK(zero3_host_step_seconds(shard, 1, 4, r, 1) == Approx(shard * 42 / 12e9).epsilon(1e-9));
  CHECK(zero3_host_step_seconds(shard, 4, 4, r, 2) == Approx(shard * 42 / 24e9).epsilon(1e-9));
  CHECK(zero3_host_step_seconds(shard, 4, 4, r, 64) == Approx(shard * 42 / (281.6e9 * 0.4 / 4)).epsilon(1e-9));
}

TEST_CASE("workload: checkpointed blocks re-gather what stage3_max_reuse_distance releases", "[workload]") {
  const ModelShape m = llama8b();
  const ComputeRates r = p4d_rates();
  const int64_t h = m.hidden, ffn = m.ffn;
  // 1e8: module i is released after its recompute when 2 x (params after it) >= 1e8. Only
  // down_proj (nothing after it) stays: q + k + v + o + gate + up come back for the backward.
  auto u8 = decoder_units(m, 2048, r, true, 40960, 1, 1e8);
  CHECK(u8[1].regathered == 2 * h * h + 2 * h * m.kv_dim() + 2 * h * ffn);
  // DeepSpeed's default 1e9 keeps every module (2 x 201M < 1e9): no second gather.
  auto u9 = decoder_units(m, 2048, r, true, 40960, 1, 1e9);
  CHECK(u9[1].regathered == 0);
  // Without checkpointing there is no recompute, so nothing is released in between.
  auto un = decoder_units(m, 2048, r, false, 40960, 1, 1e8);
  CHECK(un[1].regathered == 0);
}
