// One Megatron rank's memory by phase (models/memory/memory_peak.hpp): what a pipeline stage holds
// under 1F1B, the last stage's logits (PyTorch's and Megatron-Core's loss) and tied embeddings, stage 0's position
// table, and the states without an fp32 master copy.
#include "models/hw/gpu.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/memory/memory_peak.hpp"
#include "tests/models/memory/memory_phases.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace models::memory;
using memory_test::llama3_8b_memory_peak;
using memory_test::phase;
using memory_test::term_memory_peak;
using models::model::ModelShape;
using models::workload::Strategy;

TEST_CASE("memory: Megatron stage 0 holds pp micro-batches under 1F1B, the last stage the logits", "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  in.strategy = Strategy::Megatron;
  in.tp = 2, in.pp = 4, in.dp = 2;
  in.micro_batches = 8;
  in.micro_batch = 1;
  const double tokens = 8192;
  const double per_token = block_activation_bytes_per_token(in.model, 2, false, Recompute::None);
  in.stage = 0;
  RankEstimate first = estimate_rank(in);
  CHECK(term_memory_peak(phase(first, "forward_backward"), "activations") == Approx(tokens * 32 * per_token));
  CHECK(term_memory_peak(phase(first, "forward_backward"), "logits") == 0);
  in.stage = 3;
  RankEstimate last = estimate_rank(in);
  CHECK(term_memory_peak(phase(last, "forward_backward"), "activations") ==
        Approx(tokens * 8 * per_token + tokens * 4 * 4096));
  CHECK(term_memory_peak(phase(last, "forward_backward"), "logits") ==
        Approx(tokens * 12 * 128256));  // PyTorch's loss: 12 B per logit (memory_terms.hpp)
  // Megatron-Core's vocab-parallel cross entropy: one fp32 copy of the logits, softmax and gradient
  // in place, and the cast's 2-byte gradient: 6 B per logit; 4 on fp32 logits (nothing to cast).
  MemoryInputs vocab_parallel = in;
  vocab_parallel.megatron_loss = true;
  CHECK(term_memory_peak(phase(estimate_rank(vocab_parallel), "forward_backward"), "logits") ==
        Approx(tokens * 6 * 128256));
  vocab_parallel.vocab_shards = 2;  // split over tp 2
  CHECK(term_memory_peak(phase(estimate_rank(vocab_parallel), "forward_backward"), "logits") ==
        Approx(tokens * 3 * 128256));
  vocab_parallel.vocab_shards = 1;
  vocab_parallel.compute_bytes = 4;
  CHECK(term_memory_peak(phase(estimate_rank(vocab_parallel), "forward_backward"), "logits") ==
        Approx(tokens * 4 * 128256));
  // Model states: 18 B per parameter of the stage's shard; distributed optimizer 6 + 12/d.
  MemoryInputs stage0 = in;
  stage0.stage = 0;
  const double p0 = rank_params(stage0);
  CHECK(p0 == Approx(8 * (in.model.block_matmul_params() / 2.0 + in.model.block_norm_params()) +
                     in.model.embedding_params()));
  const Phase& opt0 = phase(first, "optimizer");
  CHECK(term_memory_peak(opt0, "weights") + term_memory_peak(opt0, "gradients") +
            term_memory_peak(opt0, "optimizer_states") ==
        Approx(18 * p0));
  in.stage = 0;
  in.distributed_optimizer = true;
  const RankEstimate dist = estimate_rank(in);
  const Phase& opt_d = phase(dist, "optimizer");
  CHECK(term_memory_peak(opt_d, "weights") + term_memory_peak(opt_d, "gradients") +
            term_memory_peak(opt_d, "optimizer_states") ==
        Approx((6 + 12.0 / 2) * p0));
  // training.dtype: fp16 keeps fp16 gradients and an fp32 main gradient in the optimizer (20 B,
  // 4 + 16/d); fp32 keeps no master copy (16 B, 8 + 8/d).
  auto states = [&](const MemoryInputs& x) {
    const RankEstimate e = estimate_rank(x);
    const Phase& o = phase(e, "optimizer");
    return term_memory_peak(o, "weights") + term_memory_peak(o, "gradients") + term_memory_peak(o, "optimizer_states");
  };
  MemoryInputs fp16 = in;
  fp16.fp16 = true;
  CHECK(states(fp16) == Approx((4 + 16.0 / 2) * p0));
  fp16.distributed_optimizer = false;
  CHECK(states(fp16) == Approx(20 * p0));
  MemoryInputs fp32 = in;
  fp32.compute_bytes = 4;
  CHECK(states(fp32) == Approx((8 + 8.0 / 2) * p0));
  fp32.distributed_optimizer = false;
  CHECK(states(fp32) == Approx(16 * p0));
}

TEST_CASE("memory: Megatron with param_dtype keeps no fp32 master: 2 + 2 + 2 + 2 B and AdamW's temporary", "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  in.strategy = Strategy::Megatron;
  in.tp = 8;
  in.megatron_without_master = true;
  in.param_bytes = 2;
  const double p = rank_params(in);
  const RankEstimate e = estimate_rank(in);
  const Phase& opt = phase(e, "optimizer");
  CHECK(term_memory_peak(opt, "weights") == Approx(2 * p));
  CHECK(term_memory_peak(opt, "gradients") == Approx(2 * p));
  CHECK(term_memory_peak(opt, "optimizer_states") == Approx(4 * p));
  CHECK(term_memory_peak(opt, "optimizer_temp") == Approx(2 * p));  // foreach's copy of v
  // The step's inputs: param_dtype under Megatron.
  models::ScenarioSpec spec;
  spec.parallel.strategy = "megatron";
  spec.parallel.tp = 8;
  CHECK_FALSE(models::step_memory_inputs(spec, in.model, models::workload::make_layout(spec, in.model, 8))
                  .megatron_without_master);
  spec.training.param_dtype = "bf16";
  const MemoryInputs plain =
      models::step_memory_inputs(spec, in.model, models::workload::make_layout(spec, in.model, 8));
  CHECK(plain.megatron_without_master);
  CHECK(plain.adamw == models::compute::OptimizerImpl::Fused);  // Megatron's default, no temporary
}

TEST_CASE("memory: with tied embeddings the last pipeline stage holds its copy of the word embeddings", "[models]") {
  models::ModelSpec s;
  s.preset = "gpt3-175b";
  s.seq = 2048;
  MemoryInputs in;
  in.model = models::model::resolve_model(s);
  REQUIRE(in.model.tied_embeddings);
  in.strategy = Strategy::Megatron;
  in.tp = 8, in.pp = 16;
  in.vocab_shards = 8;
  in.stage = 15;
  const double blocks =
      6 * (in.model.block_matmul_params() / 8.0 + in.model.block_params() - in.model.block_matmul_params() -
           in.model.block_bias_params() + in.model.block_bias_params() / 8.0);
  // Final norm and the copy of V h / tp (Megatron's output layer shares the word embeddings).
  CHECK(rank_params(in) == Approx(blocks + in.model.final_norm_params() + 50257.0 * 12288 / 8));
  in.pp = 1, in.stage = 0;  // one stage: the embedding is the head, no copy
  in.model.layers = 6;
  CHECK(rank_params(in) == Approx(blocks + in.model.final_norm_params() + in.model.embedding_params() / 8.0));
}

TEST_CASE("memory: Megatron's learned position table is whole on every TP rank of stage 0, not copied to the last",
          "[models]") {
  // Word embeddings split over the TP ranks (VocabParallelEmbedding), the position table a plain
  // torch.nn.Embedding; the last stage's output layer copies the word embeddings alone.
  models::ModelSpec spec;
  spec.preset = "gpt2";
  spec.seq = 1024;
  MemoryInputs in;
  in.model = models::model::resolve_model(spec);
  REQUIRE(in.model.position_params() == 1024 * 768);
  in.strategy = Strategy::Megatron;
  in.tp = 2;
  in.vocab_shards = 2;
  in.pp = 2;
  MemoryInputs rotary = in;
  rotary.model.positions = models::model::Positions::Rotary;
  for (int stage : {0, 1}) {
    in.stage = rotary.stage = stage;
    CHECK(rank_params(in) - rank_params(rotary) == (stage == 0 ? 1024.0 * 768 : 0.0));
  }
  in.stage = 0;
  rotary.stage = 0;
  const ModelShape& m = in.model;
  const double block =
      (double(m.block_matmul_params()) / 2 + double(m.block_norm_params()) + double(m.block_bias_params()) / 2);
  CHECK(rank_params(in) == Approx(6 * block + double(m.vocab) * 768 / 2 + 1024.0 * 768).epsilon(1e-15));
}
