// Memory terms of decoders that are not Llama-shaped (models/memory/memory_terms.hpp, memory_peak.hpp):
// GELU's activations, MLA's, the optimizer moments' dtype, MLA's replicated down projections; each
// against its closed form.
#include <catch2/catch.hpp>

#include "models/memory/memory_peak.hpp"
#include "models/memory/memory_terms.hpp"
#include "models/model/model_shape.hpp"

using namespace models::memory;
using models::model::ModelShape;

namespace {
ModelShape decoder_preset(const char* name, int seq = 4096) {
  models::ModelSpec s;
  s.preset = name;
  s.seq = seq;
  return models::model::resolve_model(s);
}
double term(const Phase& p, const char* name) {
  for (const Term& t : p.terms)
    if (std::string(name) == t.name) return t.bytes;
  return 0;
}
}  // namespace

TEST_CASE("memory: a GELU block keeps 2 ffn per token for its MLP, SwiGLU 4 ffn", "[memory]") {
  // GPT-2: 4 x 2h replicated, (q + k + v + o) 2 x 4h, MLP 2 x 2 x 4h: 2 (4h + 4h + 8h) = 32 h per token
  // (Korthikanti et al. 2022: 34 sbh with dropout's masks and unfused scores; here flash, no dropout).
  const ModelShape g = decoder_preset("gpt2", 1024);
  CHECK(block_activation_bytes_per_token(g, 1, false, Recompute::None) == 32.0 * 768);
  // Counted as SwiGLU it was 48 h: 1.5x.
  ModelShape as_swiglu = g;
  as_swiglu.gated_mlp = true;
  CHECK(block_activation_bytes_per_token(as_swiglu, 1, false, Recompute::None) == 48.0 * 768);
}

TEST_CASE("memory: MLA's saved activations, by hand from DeepSeek-V3's config", "[memory]") {
  const ModelShape m = decoder_preset("deepseek-v3");
  const double e = 2, h = 7168, f = 18432;
  for (int tp : {1, 8}) {
    // replicated: 4 e h (norms, residual) + e (2 x 1536 + 2 x 512 + 64) (the latents);
    // split: e 128 (192 + 192 + 128 + 128) (q, k, v, output) + 4 e ffn.
    const double expect = 4 * e * h + e * 4160 + (e * 128 * 640 + 4 * e * f) / tp;
    INFO("tp " << tp);
    CHECK(block_activation_bytes_per_token(m, tp, false, Recompute::None) == Approx(expect).epsilon(1e-12));
  }
  // Full recompute keeps the block input only, as for any block.
  CHECK(block_activation_bytes_per_token(m, 8, true, Recompute::Full) == e * h / 8);
}

TEST_CASE("memory: MLA's down projections are held whole by every TP rank", "[memory]") {
  MemoryInputs in;
  in.model = decoder_preset("deepseek-v3");
  in.model.layers = 3;  // the three dense layers
  in.model.moe = {};
  in.strategy = models::workload::Strategy::Megatron;
  in.tp = 8;
  const double mla = 11010048.0 + 37748736 + 4128768 + 16777216 + 117440512, down = 11010048.0 + 4128768;
  const double block = (mla - down) / 8 + down + 3.0 * 7168 * 18432 / 8 + 2 * 7168 + 1536 + 512;
  CHECK(rank_params(in) == Approx(3 * block + 129280.0 * 7168 / 1 + 129280.0 * 7168 + 7168).epsilon(1e-12));
}

TEST_CASE("memory: the optimizer moments' dtype as the framework keeps them, or as set", "[memory]") {
  MemoryInputs in;
  in.model = decoder_preset("gpt2", 1024);
  in.strategy = models::workload::Strategy::Ddp;
  in.param_bytes = 2;
  in.ddp_bucket_copies = false;
  const double p = double(in.model.total_params());
  // torch.optim.AdamW keeps m and v in the parameters' dtype: bf16 parameters, 2 x 2 B.
  const RankEstimate e = estimate_rank(in);
  const Phase& opt = e.phases.back();
  CHECK(term(opt, "optimizer_states") == Approx(4 * p));
  CHECK(term(opt, "optimizer_temp") == Approx(2 * p));  // foreach's copy of v
  in.optimizer_bytes = 4;  // fp32 moments (an optimizer that keeps them apart from the parameters)
  CHECK(term(estimate_rank(in).phases.back(), "optimizer_states") == Approx(8 * p));
  // Megatron: fp32 master, m, v = 12 B (distributed over d); bf16 moments (precision-aware
  // optimizer) 4 + 2 + 2 = 8 B.
  CHECK(megatron_state_bytes(true, 8, MegatronDtype::Bf16, 4).optimizer == Approx(12.0 / 8));
  CHECK(megatron_state_bytes(true, 8, MegatronDtype::Bf16, 2).optimizer == Approx(8.0 / 8));
  CHECK(megatron_state_bytes(false, 1).total() == 18);
  // DeepSpeed ZeRO: K = 4 + 2 x moment bytes.
  CHECK(zero_state_bytes(3, 4, false, false, 2).optimizer == Approx(8.0 / 4));
  CHECK(zero_state_bytes(0, 1, false, false).optimizer == 12);
}
