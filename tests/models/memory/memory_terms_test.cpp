// Closed forms of training memory (models/memory/memory_terms.hpp), each against its source.
#include "models/memory/memory_terms.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "models/memory/memory_peak.hpp"
#include "models/model/model_shape.hpp"

using namespace models::memory;
using models::model::ModelShape;

namespace {
models::model::ModelShape decoder_memory_terms(int layers = 8) {
  // scenarios/validation/h200x1: h 4096, 32 heads (no GQA), ffn 14336, V 32000, seq 2048.
  models::model::ModelShape m;
  m.layers = layers, m.hidden = 4096, m.heads = 32, m.kv_heads = 32, m.ffn = 14336, m.vocab = 32000, m.seq = 2048;
  return m;
}
}  // namespace

TEST_CASE("memory: a Llama block keeps 16h + 8ffn bytes per token without GQA, TP or recompute", "[models]") {
  const models::model::ModelShape m = decoder_memory_terms();
  CHECK(block_activation_bytes_per_token(m, 1, false, Recompute::None) == 16.0 * 4096 + 8.0 * 14336);
  // Selective recompute drops the attention scores, which SDPA never stores: nothing changes.
  CHECK(block_activation_bytes_per_token(m, 1, false, Recompute::Selective) == 16.0 * 4096 + 8.0 * 14336);
  // Full recompute keeps the block input only: 2h.
  CHECK(block_activation_bytes_per_token(m, 1, false, Recompute::Full) == 2.0 * 4096);
}

TEST_CASE("memory: TP splits q, k, v, the attention output and the MLP, SP splits the rest too", "[models]") {
  models::model::ModelShape m = decoder_memory_terms();
  m.kv_heads = 8;  // GQA: kv_dim = 1024
  const double h = 4096, kv = 1024, f = 14336;
  // replicated 4 x 2h, split 2(2h + 2kv) + 8f over t = 4
  CHECK(block_activation_bytes_per_token(m, 4, false, Recompute::None) ==
        Approx(8 * h + (2 * (2 * h + 2 * kv) + 8 * f) / 4));
  CHECK(block_activation_bytes_per_token(m, 4, true, Recompute::None) ==
        Approx((8 * h + 2 * (2 * h + 2 * kv) + 8 * f) / 4));
  CHECK(block_activation_bytes_per_token(m, 4, true, Recompute::Full) == Approx(2 * h / 4));
  CHECK(recompute_working_bytes_per_token(m, 4, true) == block_activation_bytes_per_token(m, 4, true, Recompute::None));
}

TEST_CASE("memory: copied key/value heads keep 2 (heads - kv_heads) head_dim elements per token more", "[models]") {
  models::model::ModelShape m = decoder_memory_terms();
  CHECK(repeated_kv_bytes_per_token(m, 1) == 0);  // multi-head attention: nothing is copied
  m.kv_heads = 8;                                 // Llama 3 8B's grouped heads: 24 copied heads of 128
  CHECK(repeated_kv_bytes_per_token(m, 1) == 2.0 * 2 * 24 * 128);
  CHECK(repeated_kv_bytes_per_token(m, 4) == 2.0 * 2 * 24 * 128 / 4);  // TP splits the heads
  CHECK(repeated_kv_bytes_per_token(m, 1, 4) == 2.0 * 4 * 24 * 128);   // fp32 activations
}

TEST_CASE("memory: an MoE block keeps every routed copy's expert input and intermediates, the combine its own tokens",
          "[models]") {
  // Mixtral-8x7B: h 4096, GQA kv_dim 1024, 8 experts of 14336, top-2; TP 2 with SP, bf16.
  models::model::ModelShape m = decoder_memory_terms();
  m.kv_heads = 8;
  m.moe.experts = 8, m.moe.top_k = 2, m.moe.moe_ffn = 14336;
  const double h = 4096, kv = 1024, f = 14336, t = 2;
  // Per token of the micro-batch: replicated 8h / t, attention 2(2h + 2kv)/t; each of the 2 routed
  // copies keeps its expert input 2h (gathered over etp = tp: T / tp x etp tokens) and 8f / t (gate,
  // SiLU, up, product); the combine keeps the rank's own T / tp tokens' 2 copies, 2 x 2h / t
  // (moe_utils.unpermute's product with the probabilities); router 8 E / t.
  const double balanced = 8 * h / t + 2 * (2 * h + 2 * kv) / t + 2 * (2 * h + 8 * f / t) + 2 * 2 * h / t + 8 * 8 / t;
  CHECK(moe_block_activation_bytes_per_token(m, 2, true, Recompute::None) == Approx(balanced));
  // In numbers: 16384 + 10240 + routed input 16384 + combine 8192 + intermediates 114688 + router 32.
  CHECK(moe_block_activation_bytes_per_token(m, 2, true, Recompute::None) == 165920);
  // Against the dense block of the same shape: top-2 doubles the MLP's intermediates (+8f/t) and
  // adds the routed copies' input (2 x 2h) and the combine's (2 x 2h / t), and the router (8E/t).
  CHECK(moe_block_activation_bytes_per_token(m, 2, true, Recompute::None) -
            block_activation_bytes_per_token(m, 2, true, Recompute::None) ==
        Approx(8 * f / t + 4 * h + 4 * h / t + 8 * 8 / t));
  // The expert load (token skew 1.5, capped at a capacity factor of 1.25 that drops) scales the
  // routed copies an expert rank receives; the combine keeps the rank's own tokens (padded to the
  // capacity where experts are padded, not skewed); a shared expert adds one dense MLP.
  m.moe.capacity_factor = 1.25, m.moe.token_skew = 1.5, m.moe.shared_experts = 1;
  const double copies = 2 * 1.25;
  CHECK(moe_block_activation_bytes_per_token(m, 2, true, Recompute::None) ==
        Approx(8 * h / t + 2 * (2 * h + 2 * kv) / t + copies * (2 * h + 8 * f / t) + 2 * 1.0 * 2 * h / t + 8 * f / t +
               8 * 8 / t));
  m.moe.pad_to_capacity = true;
  CHECK(moe_block_activation_bytes_per_token(m, 2, true, Recompute::None) ==
        Approx(8 * h / t + 2 * (2 * h + 2 * kv) / t + copies * (2 * h + 8 * f / t) + 2 * 1.25 * 2 * h / t + 8 * f / t +
               8 * 8 / t));
  // Full recompute: the block input only, as dense; the recomputed block is the larger of the two.
  CHECK(moe_block_activation_bytes_per_token(m, 2, true, Recompute::Full) == Approx(2 * h / t));
  CHECK(recompute_working_bytes_per_token(m, 2, true) ==
        moe_block_activation_bytes_per_token(m, 2, true, Recompute::None));
}

TEST_CASE("memory: Korthikanti et al. 2022 Table 2 activation formulas", "[models]") {
  // GPT-3 175B: s 2048, b 1, h 12288, a 96, t 8; 5as/(ht) = 5 x 96 x 2048 / (12288 x 8) = 10.
  const double s = 2048, b = 1, h = 12288, a = 96, sbh = s * b * h;
  CHECK(korthikanti_layer_bytes(s, b, h, a, 1, false, Recompute::None) == Approx(sbh * (34 + 5 * a * s / h)));
  CHECK(korthikanti_layer_bytes(s, b, h, a, 8, false, Recompute::None) == Approx(sbh * (10 + 3 + 10)));
  CHECK(korthikanti_layer_bytes(s, b, h, a, 8, true, Recompute::None) == Approx(sbh * (34.0 / 8 + 10)));
  CHECK(korthikanti_layer_bytes(s, b, h, a, 8, false, Recompute::Selective) == Approx(sbh * 13));
  CHECK(korthikanti_layer_bytes(s, b, h, a, 8, true, Recompute::Selective) == Approx(sbh * 34 / 8));
  CHECK(korthikanti_layer_bytes(s, b, h, a, 8, true, Recompute::Full) == Approx(2 * sbh));
  // Sequence parallelism with selective recompute: 34/t, the t = 1 value over t (the paper's point).
  CHECK(korthikanti_layer_bytes(s, b, h, a, 8, true, Recompute::Selective) ==
        Approx(korthikanti_layer_bytes(s, b, h, a, 1, false, Recompute::Selective) / 8));
}

TEST_CASE("memory: 1F1B holds pp - stage micro-batches, interleaving L(1 + (p-1)/(pv)) on stage 0", "[models]") {
  // 32 layers over 4 stages, 8 micro-batches.
  CHECK(pipeline_blocks_in_flight(8, 4, 1, 0, 8) == 32);  // 4 micro-batches x 8 layers
  CHECK(pipeline_blocks_in_flight(8, 4, 1, 3, 8) == 8);   // the last stage: one
  CHECK(pipeline_blocks_in_flight(8, 4, 1, 0, 2) == 16);  // fewer micro-batches than stages
  // ZB-H1: stage s also holds its s deferred W passes' activations, p micro-batches in all.
  for (int s = 0; s < 4; ++s) CHECK(pipeline_blocks_in_flight(8, 4, 1, s, 8, true) == 32);
  CHECK(pipeline_blocks_in_flight(8, 4, 1, 3, 2, true) == 16);  // m = 2: at most 2 in flight
  CHECK(pipeline_blocks_in_flight(32, 1, 1, 0, 8) == 32);       // no pipeline: one micro-batch at a time
  // Interleaved, 2 chunks per stage: (3 x 2 + 1 x 4 + 1) = 11 chunks of 4 layers = 32 (1 + 3/8).
  CHECK(pipeline_blocks_in_flight(8, 4, 2, 0, 8) == Approx(32 * (1 + 3.0 / 8)));
  CHECK(pipeline_blocks_in_flight(8, 4, 2, 3, 8) == Approx(4 * (0 + 4 + 1)));
}

TEST_CASE("memory: ZeRO stages reproduce the paper's 7.5B-parameter example on 64 GPUs", "[models]") {
  // Rajbhandari et al. 2020, Figure 1: Psi = 7.5e9, N_d = 64, K = 12: baseline 120 GB,
  // P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB.
  const double psi = 7.5e9;
  CHECK(zero_state_bytes(0, 64, false, false).total() * psi / 1e9 == Approx(120));
  CHECK(zero_state_bytes(1, 64, false, false).total() * psi / 1e9 == Approx(31.4).epsilon(0.002));
  CHECK(zero_state_bytes(2, 64, false, false).total() * psi / 1e9 == Approx(16.6).epsilon(0.005));
  CHECK(zero_state_bytes(3, 64, false, false).total() * psi / 1e9 == Approx(1.9).epsilon(0.02));
  // ZeRO-Offload: the GPU keeps its bf16 parameters only (DeepSpeed's estimators: 2 Psi / N).
  const StateBytesPerParam off = zero_state_bytes(3, 8, true, false);
  CHECK(off.weights == 2.0 / 8);
  CHECK(off.gradients == 0);
  CHECK(off.optimizer == 0);
  CHECK(zero_state_bytes(3, 8, true, true).total() == 0);
}

TEST_CASE("memory: ZeRO in fp32 keeps 4-byte weights and gradients beside the fp32 master, m and v", "[models]") {
  // w + w + K with w = 4 (training.dtype = fp32) and K = 12: DeepSpeed clones the partition into its
  // own fp32 master whatever the model's dtype (stage_1_and_2.py, stage3.py).
  const int n = 8;
  auto fp32 = [](int stage, int d) { return zero_state_bytes(stage, d, false, false, 4, 4); };
  CHECK(fp32(0, n).weights == 4);
  CHECK(fp32(0, n).gradients == 4);
  CHECK(fp32(0, n).optimizer == 12);
  CHECK(fp32(0, n).total() == 20);
  CHECK(fp32(1, n).total() == 4 + 4 + 12.0 / n);
  CHECK(fp32(2, n).total() == 4 + (4 + 12.0) / n);
  CHECK(fp32(3, n).weights == 4.0 / n);
  CHECK(fp32(3, n).gradients == 4.0 / n);
  CHECK(fp32(3, n).total() == 20.0 / n);
  // 16-bit weights (the paper's mixed precision, the default): 2 + 2 + 12.
  CHECK(zero_state_bytes(0, n, false, false, 4, 2).total() == 16);
  CHECK(zero_state_bytes(3, n, false, false).total() == 16.0 / n);
  // Offload keeps the parameter partition on the GPU in its own dtype.
  CHECK(zero_state_bytes(2, n, true, false, 4, 4).weights == 4);
  CHECK(zero_state_bytes(3, n, true, false, 4, 4).weights == 4.0 / n);
}

TEST_CASE("memory: Megatron-LM's bytes per parameter with and without the distributed optimizer", "[models]") {
  // docs/source/distrib_optimizer.md: fp16 params + fp16 grads 20 and 4 + 16/d; bf16 params + fp32
  // grads 18 and 6 + 12/d; fp32 params + fp32 grads 16 and 8 + 8/d.
  CHECK(megatron_state_bytes(false, 8).total() == 18);
  CHECK(megatron_state_bytes(true, 8).total() == Approx(6 + 12.0 / 8));
  CHECK(megatron_state_bytes(false, 8, MegatronDtype::Fp16).total() == 20);
  CHECK(megatron_state_bytes(true, 8, MegatronDtype::Fp16).total() == Approx(4 + 16.0 / 8));
  CHECK(megatron_state_bytes(false, 8, MegatronDtype::Fp32).total() == 16);
  CHECK(megatron_state_bytes(true, 8, MegatronDtype::Fp32).total() == Approx(8 + 8.0 / 8));
  // Term by term: fp16 keeps fp16 gradients (its fp32 main gradient is the optimizer's), fp32 needs no
  // master copy.
  const StateBytesPerParam fp16 = megatron_state_bytes(true, 4, MegatronDtype::Fp16);
  CHECK(fp16.weights == 2);
  CHECK(fp16.gradients == 2);
  CHECK(fp16.optimizer == 4);
  const StateBytesPerParam fp32 = megatron_state_bytes(true, 4, MegatronDtype::Fp32);
  CHECK(fp32.weights == 4);
  CHECK(fp32.gradients == 4);
  CHECK(fp32.optimizer == 2);
}

TEST_CASE("memory: NCCL keeps Simple, LL128 and LL buffers per channel per peer", "[models]") {
  CHECK(kNcclLl128Bytes == 4915200);
  CHECK(kNcclLlBytes == 524288);
  // 24 channels, 2 ring peers, NCCL_BUFFSIZE 4 MiB: 24 x 2 x (4194304 + 4915200 + 524288) = 462.4 MB
  CHECK(nccl_buffer_bytes(24, 2, 4194304) == 24.0 * 2 * (4194304 + 4915200 + 524288));
}

TEST_CASE("memory: unfused attention keeps 5 a s / t bytes of scores per token, Korthikanti's 5as/(ht) sbh",
          "[models]") {
  // Korthikanti et al. 2022's 22B (Table 5): h 6144, a 64, s 2048, b 4, t 8.
  models::model::ModelShape m;
  m.layers = 48, m.hidden = 6144, m.heads = 64, m.kv_heads = 64, m.ffn = 24576, m.vocab = 51200, m.seq = 2048;
  const double s = 2048, b = 4, h = 6144, a = 64;
  // Softmax output 2 B, dropout mask 1 B, dropout output 2 B per score; a s / t scores per token.
  CHECK(unfused_score_bytes_per_token(m, 8) == 5.0 * 64 * 2048 / 8);
  CHECK(unfused_score_bytes_per_token(m, 8, 4) == 9.0 * 64 * 2048 / 8);  // fp32: 4 + 1 + 4
  // What selective recompute saves per layer, b s tokens of them: the paper's 5as/(ht) x sbh.
  for (bool sp : {false, true})
    CHECK(b * s * unfused_score_bytes_per_token(m, 8) ==
          Approx(korthikanti_layer_bytes(s, b, h, a, 8, sp, Recompute::None) -
                 korthikanti_layer_bytes(s, b, h, a, 8, sp, Recompute::Selective)));
  CHECK(b * s * unfused_score_bytes_per_token(m, 8) == 671088640.0);  // 5 a s^2 b / t: 671 MB per layer
}

// Every N-th block checkpointed (training.checkpoint_every): layers / N blocks keep their input, the
// others every activation; the rest of the estimate is full recompute's.
TEST_CASE("memory: every N-th block checkpointed keeps the others' activations whole", "[memory]") {
  models::memory::MemoryInputs in;
  models::ModelSpec spec;
  spec.preset = "llama-3.1-8b";
  spec.layers = 9;
  spec.seq = 4096;
  in.model = models::model::resolve_model(spec);
  in.strategy = models::workload::Strategy::Fsdp;
  in.recompute = models::memory::Recompute::Full;
  auto activations = [](const models::memory::RankEstimate& e) {
    for (const auto& t : e.phases.front().terms)
      if (std::string(t.name) == "activations") return t.bytes;
    return 0.0;
  };
  const double full = activations(models::memory::estimate_rank(in));
  in.checkpoint_every = 4;  // blocks 4 and 8 of 9
  const double every4 = activations(models::memory::estimate_rank(in));
  const double none_block =
      models::memory::block_activation_bytes_per_token(in.model, 1, false, models::memory::Recompute::None);
  const double full_block =
      models::memory::block_activation_bytes_per_token(in.model, 1, false, models::memory::Recompute::Full);
  CHECK(every4 - full == Approx(4096.0 * 7 * (none_block - full_block)));
}

// torchtitan's per-op policy keeps a block's input, q, v, attention's output, w1's and w2's outputs.
TEST_CASE("memory: selective_op keeps the input, q, v, attention's output, w1's and w2's", "[memory]") {
  models::ModelSpec spec;
  spec.preset = "llama-3.1-8b";
  const auto m = models::model::resolve_model(spec);
  const double h = 4096, q = 4096, v = 1024, f = 14336;
  CHECK(models::memory::block_activation_bytes_per_token(m, 1, false, models::memory::Recompute::SelectiveOp) ==
        2 * (2 * h + q + v + q + f));
  // none less selective_op: 104,448 B per token and block (measured 104.3 KB on one H100).
  CHECK(models::memory::block_activation_bytes_per_token(m, 1, false, models::memory::Recompute::None) -
            models::memory::block_activation_bytes_per_token(m, 1, false, models::memory::Recompute::SelectiveOp) ==
        104448);
}
