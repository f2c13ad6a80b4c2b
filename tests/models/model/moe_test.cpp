// Mixture-of-experts closed forms (models/model/moe.hpp).
#include "models/model/moe.hpp"
#include "models/model/presets.hpp"

#include <catch2/catch.hpp>

using namespace models::model;

TEST_CASE("moe: layer selection by first dense layers and stride", "[workload]") {
  models::model::MoeSpec m;
  m.experts = 8;
  CHECK(models::model::moe_layer_count(m, 32) == 32);  // every layer (Mixtral)
  m.stride = 2;
  CHECK(models::model::is_moe_layer(m, 0));
  CHECK_FALSE(models::model::is_moe_layer(m, 1));
  CHECK(models::model::moe_layer_count(m, 32) == 16);
  const models::model::Preset* ds = models::model::find_preset("deepseek-v3");
  REQUIRE(ds);
  CHECK(models::model::moe_layer_count(ds->moe, ds->layers) == 58);  // 61 layers, the first 3 dense
  models::model::MoeSpec dense;
  CHECK(models::model::moe_layer_count(dense, 32) == 0);
}

TEST_CASE("moe: all-to-all bytes per layer are L T k h b, (ep-1)/ep of it remote", "[workload]") {
  const models::model::Preset* mx = models::model::find_preset("mixtral-8x7b");
  REQUIRE(mx);
  // Mixtral, micro-batch 1 x 4096 tokens, bf16: 1.0 x 4096 x 2 x 4096 x 2 B = 64 MiB per rank.
  CHECK(models::model::moe_alltoall_bytes(mx->moe, 4096, mx->hidden, 2) == 4096.0 * 2 * 4096 * 2);
  CHECK(models::model::moe_alltoall_remote_bytes(mx->moe, 4096, mx->hidden, 2, 8) == Approx(4096.0 * 2 * 4096 * 2 * 7 / 8));
  const double balanced = 4096.0 * 2 * 4096 * 2;
  // Token skew 1.5, dropless (Megatron's default): priced as every rank moving the busiest rank's 1.5x.
  models::model::MoeSpec skewed = mx->moe;
  skewed.token_skew = 1.5;
  CHECK(models::model::expert_load(skewed) == 1.5);
  CHECK(models::model::moe_alltoall_bytes(skewed, 4096, 4096, 2) == Approx(1.5 * balanced));
  // A capacity factor caps each expert at c x its average and drops the rest (Megatron-Core's
  // --moe-expert-capacity-factor): the busiest rank moves min(s, c); balanced routing drops nothing.
  models::model::MoeSpec capped = skewed;
  capped.capacity_factor = 1.25;
  CHECK(models::model::expert_load(capped) == 1.25);
  CHECK(models::model::moe_alltoall_bytes(capped, 4096, 4096, 2) == Approx(1.25 * balanced));
  capped.token_skew = 1.0;
  CHECK(models::model::moe_alltoall_bytes(capped, 4096, 4096, 2) == Approx(balanced));
  CHECK(models::model::routed_copies(capped) == 1.0);
  // Padded to capacity (--moe-pad-expert-input-to-capacity): every expert gets exactly c, skewed or not.
  capped.pad_to_capacity = true;
  CHECK(models::model::moe_alltoall_bytes(capped, 4096, 4096, 2) == Approx(1.25 * balanced));
  capped.token_skew = 3.0;
  CHECK(models::model::expert_load(capped) == 1.25);
  CHECK(models::model::routed_copies(capped) == 1.25);
}

TEST_CASE("moe: expert GEMM shapes and FLOPs", "[workload]") {
  const models::model::Preset* ds = models::model::find_preset("deepseek-v3");
  REQUIRE(ds);
  // DeepSeek-V3 on EP 64: 4 local experts; 4096 tokens x 8 routes x 64 ranks / 256 experts = 8192
  // tokens per expert: gate/up [8192 x 7168] x [7168 x 2048], down [8192 x 2048] x [2048 x 7168].
  const models::model::ExpertGemms g = models::model::expert_gemms(ds->moe, 4096, ds->hidden, 64);
  CHECK(g.local_experts == 4);
  CHECK(g.tokens_per_expert == 8192);
  CHECK((g.gate_up.m == 8192 && g.gate_up.n == 2048 && g.gate_up.k == 7168));
  CHECK((g.down.m == 8192 && g.down.n == 7168 && g.down.k == 2048));
  // forward FLOPs = 6 T k h f_e (balanced, c = 1): every routed token through 3 matrices.
  CHECK(g.forward_flops == Approx(6.0 * 4096 * 8 * 7168 * 2048));
  CHECK(g.forward_flops == Approx(g.local_experts * (2 * g.gate_up.flops() + g.down.flops())));
  // Expert tensor parallelism 2 halves f_e; token skew 1.5 scales the busiest rank's tokens.
  models::model::MoeSpec skewed = ds->moe;
  skewed.token_skew = 1.5;
  const models::model::ExpertGemms s = models::model::expert_gemms(skewed, 4096, ds->hidden, 64, 2);
  CHECK(s.gate_up.n == 1024);
  CHECK(s.tokens_per_expert == Approx(1.5 * 8192));
  // Routed parameters per rank: 256 x 3 x 7168 x 2048 / 64 = 176 M per MoE layer.
  CHECK(models::model::expert_params_per_rank(ds->moe, ds->hidden, 64) == Approx(256.0 * 3 * 7168 * 2048 / 64));
}
