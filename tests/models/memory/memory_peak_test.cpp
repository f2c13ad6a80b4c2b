// One rank's memory by phase (models/memory/memory_peak.hpp): the data-parallel strategies term by
// term, and DeepSpeed's estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage3.py).
// Megatron's stages: memory_megatron_test.cpp.
#include "models/memory/memory_peak.hpp"
#include "models/hw/gpu.hpp"
#include "models/memory/memory_fill.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "tests/models/memory/memory_phases.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace models::memory;
using memory_test::llama3_8b_memory_peak;
using memory_test::phase;
using memory_test::term_memory_peak;
using models::model::ModelShape;
using models::workload::Strategy;

namespace {
// DeepSpeed's estimate_zero3_model_states_mem_needs, GPU part (deepspeed/runtime/zero/stage3.py):
//   largest_layer_memory = 4 x largest_layer_params
//   offload optimizer and params: largest_layer_memory
//   offload optimizer only:       largest_layer_memory + 2 x total_params / total_gpus
//   no offload:                   largest_layer_memory + 18 x total_params / total_gpus
double deepspeed_zero3_gpu_bytes(double total, double largest, int gpus, bool offload, bool offload_params) {
  const double largest_mem = 4 * largest;
  if (offload) return offload_params ? largest_mem : largest_mem + 2 * total / gpus;
  return largest_mem + 18 * total / gpus;
}

}  // namespace

TEST_CASE("memory: ZeRO-3 model states against DeepSpeed's estimate_zero3_model_states_mem_needs", "[models]") {
  const models::model::ModelShape m = llama3_8b_memory_peak();
  const double psi = double(m.total_params());
  const double largest = double(m.embedding_params());  // the largest module: 128256 x 4096
  for (const auto& [offload, offload_params] : {std::pair{false, false}, {true, false}, {true, true}}) {
    MemoryInputs in;
    in.model = m;
    in.strategy = Strategy::Zero3;
    in.dp = 8;
    in.zero.offload_optimizer = offload ? "cpu" : "none";
    in.zero.offload_param = offload_params ? "cpu" : "none";
    const RankEstimate e = estimate_rank(in);
    const Phase& end = phase(e, "backward_end");
    const double states = term_memory_peak(end, "weights") + term_memory_peak(end, "gradients") + term_memory_peak(end, "optimizer_states");
    const double working = term_memory_peak(end, "gathered_params") + term_memory_peak(end, "unit_gradients");
    const double ds = deepspeed_zero3_gpu_bytes(psi, largest, 8, offload, offload_params);
    INFO("offload " << offload << " params " << offload_params << ": ours " << states + working << " DeepSpeed " << ds);
    // The largest layer's bf16 parameters and gradients: DeepSpeed's 4 x largest_layer_params.
    CHECK(working == Approx(4 * largest));
    // Beside them every rank holds the persistent tensors whole (the norms, 65 x 4096 under the
    // default threshold), which DeepSpeed's estimator leaves out.
    const double persistent = 2.0 * models::workload::zero3_persistent_params(m, 1e5);
    CHECK(persistent == 2.0 * 65 * 4096);
    if (offload) {
      CHECK(states - persistent + working == Approx(ds));  // identical with offload
    } else {
      // DeepSpeed counts 18 B per parameter, the ZeRO paper's model states 16 (2 + 2 + 12):
      // ours is lower by exactly 2 Psi / N (plus, at the step, 4 B per element of a sub-group).
      CHECK(states - persistent == Approx(16 * psi / 8));
      CHECK(ds - (states - persistent + working) == Approx(2 * psi / 8));
    }
  }
}

TEST_CASE("memory: ZeRO-3 buffers: reduce bucket, prefetched units, the fp32 sub-group at the step", "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  in.strategy = Strategy::Zero3;
  in.dp = 64;
  const RankEstimate e = estimate_rank(in);
  const Phase& opt = phase(e, "optimizer");
  CHECK(term_memory_peak(opt, "grad_buckets") == 2 * 5e8);  // reduce_bucket_size bf16 elements
  const double shard = double(in.model.total_params()) / 64;
  CHECK(term_memory_peak(opt, "optimizer_temp") == Approx(4 * std::min(1e9, shard)));
  // Forward/backward: the embedding (525 M parameters) is the largest gathered unit.
  CHECK(term_memory_peak(phase(e, "forward_backward"), "gathered_params") == Approx(2.0 * in.model.embedding_params()));
}

TEST_CASE("memory: ZeRO-1 and ZeRO-2 model states (Rajbhandari et al. 2020) and their ipg buckets", "[models]") {
  const models::model::ModelShape m = llama3_8b_memory_peak();
  const double p = double(m.total_params());
  const int n = 32;
  for (Strategy st : {Strategy::Zero1, Strategy::Zero2}) {
    MemoryInputs in;
    in.model = m;
    in.strategy = st;
    in.dp = n;
    in.zero.overlap_comm = false;
    RankEstimate e = estimate_rank(in);
    const Phase& opt = phase(e, "optimizer");
    // Stage 1: 2 + 2 + 12 / N bytes per parameter; stage 2: 2 + (2 + 12) / N.
    CHECK(term_memory_peak(opt, "weights") == Approx(2 * p));
    CHECK(term_memory_peak(opt, "gradients") == Approx(st == Strategy::Zero1 ? 2 * p : 2 * p / n));
    CHECK(term_memory_peak(opt, "optimizer_states") == Approx(12 * p / n));
    CHECK(term_memory_peak(opt, "optimizer_temp") == Approx(4 * p / n));  // the fp32 gradient partition at the step
    CHECK(term_memory_peak(opt, "grad_buckets") == Approx(2 * 5e8));      // one ipg buffer of reduce_bucket_size
    CHECK(term_memory_peak(phase(e, "forward_backward"), "gathered_params") == 0);
    // DeepSpeed's estimate_zero2_model_states_mem_needs (stage_1_and_2.py), GPU without offload:
    // 4 P + 16 P / N: it counts every bf16 gradient (the backward's, before the reduction: + 2 P) and
    // 2 B more per partition element (+ 2 P / N) than the paper's 2 + (2 + 12) / N.
    if (st == Strategy::Zero2) {
      const double states = term_memory_peak(opt, "weights") + term_memory_peak(opt, "gradients") + term_memory_peak(opt, "optimizer_states");
      CHECK(4 * p + 16 * p / n - states == Approx(2 * p + 2 * p / n));
    }
    in.zero.overlap_comm = true;  // double buffers
    CHECK(term_memory_peak(phase(estimate_rank(in), "optimizer"), "grad_buckets") == Approx(4 * 5e8));
    // offload_optimizer: states on the host; stage 2's gradient partition too (DeepSpeed's estimator:
    // 2 P on the GPU), stage 1 keeps its accumulated bf16 gradients (+ 2 P).
    in.zero.offload_optimizer = "cpu";
    e = estimate_rank(in);
    CHECK(term_memory_peak(phase(e, "optimizer"), "weights") + term_memory_peak(phase(e, "optimizer"), "gradients") +
              term_memory_peak(phase(e, "optimizer"), "optimizer_states") ==
          Approx(st == Strategy::Zero1 ? 4 * p : 2 * p));
  }
}

TEST_CASE("memory: HSDP shards over its shard group only, FSDP over every rank", "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  in.strategy = Strategy::Hsdp;
  in.dp = 32;
  in.shard_group = 8;
  const double p = double(in.model.total_params());
  const RankEstimate h = estimate_rank(in);
  CHECK(term_memory_peak(phase(h, "optimizer"), "weights") == Approx(2 * p / 8));
  CHECK(term_memory_peak(phase(h, "optimizer"), "optimizer_states") == Approx(4 * p / 8));
  in.strategy = Strategy::Fsdp;
  in.shard_group = 0;
  in.dp = 8;
  CHECK(estimate_rank(in).peak_bytes() == Approx(h.peak_bytes()));  // HSDP 4 x 8 holds what FSDP on 8 does
}

TEST_CASE("memory: DDP holds everything plus its bucket copies, gradients appear with accumulation", "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  in.strategy = Strategy::Ddp;
  in.dp = 8;
  const double p = double(in.model.total_params());
  RankEstimate e = estimate_rank(in);
  const Phase& opt = phase(e, "optimizer");
  CHECK(term_memory_peak(opt, "weights") == 2 * p);
  CHECK(term_memory_peak(opt, "optimizer_states") == 4 * p);
  CHECK(term_memory_peak(opt, "optimizer_temp") == 2 * p);                  // foreach's copy of v
  CHECK(term_memory_peak(opt, "grad_buckets") == 2 * p);                    // gradient_as_bucket_view=False
  CHECK(term_memory_peak(phase(e, "forward_backward"), "gradients") == 0);  // set_to_none, one micro-batch
  in.micro_batches = 4;
  e = estimate_rank(in);
  CHECK(term_memory_peak(phase(e, "forward_backward"), "gradients") == 2 * p);
  // Llama-3-8B in DDP does not fit an 80 GB GPU: 6 x 2 B x 8.03 G = 96 GB at the step.
  CHECK(e.peak_bytes() > 80e9);
}

TEST_CASE("memory: ZeRO-1/2/3 in fp32: 4-byte weights, gradients and buckets, fp32 Adam states", "[models]") {
  const models::model::ModelShape m = llama3_8b_memory_peak();
  const double p = double(m.total_params());
  const int n = 8;
  for (Strategy st : {Strategy::Zero1, Strategy::Zero2, Strategy::Zero3}) {
    MemoryInputs in;
    in.model = m;
    in.strategy = st;
    in.dp = n;
    in.compute_bytes = 4;  // training.dtype = "fp32"
    in.zero.overlap_comm = false;
    in.zero.stage = 3;
    const RankEstimate e = estimate_rank(in);
    const Phase& opt = phase(e, "optimizer");
    INFO(models::workload::strategy_name(st));
    // Stage 1: 4 + 4 + 12 / N; stage 2: 4 + (4 + 12) / N; stage 3: (4 + 4 + 12) / N, its persistent
    // tensors (the norms) whole in the compute dtype beside the partition.
    const double persistent = 4.0 * double(models::workload::zero3_persistent_params(m, 1e5));
    CHECK(term_memory_peak(opt, "weights") == Approx(st == Strategy::Zero3 ? 4 * p / n + persistent : 4 * p));
    CHECK(term_memory_peak(opt, "gradients") == Approx(st == Strategy::Zero1 ? 4 * p : 4 * p / n));
    CHECK(term_memory_peak(opt, "optimizer_states") == Approx(12 * p / n));
    CHECK(term_memory_peak(opt, "grad_buckets") == 4 * 5e8);  // reduce_bucket_size fp32 elements
  }
  // The step's inputs: training.dtype = "fp32" under zero3 gives 4-byte weights.
  models::ScenarioSpec spec;
  spec.parallel.strategy = "zero3";
  spec.training.dtype = "fp32";
  CHECK(models::step_memory_inputs(spec, m, models::workload::make_layout(spec, m, n)).compute_bytes == 4);
}

TEST_CASE("memory: the step's inputs carry training.dtype, fp16 apart from bf16", "[models]") {
  models::ScenarioSpec spec;
  spec.parallel.strategy = "megatron";
  spec.parallel.tp = 2;
  const ModelShape m = llama3_8b_memory_peak();
  for (const char* dtype : {"bf16", "fp16", "fp32"}) {
    spec.training.dtype = dtype;
    const MemoryInputs in = models::step_memory_inputs(spec, m, models::workload::make_layout(spec, m, 4));
    CHECK(in.fp16 == (std::string(dtype) == "fp16"));
    CHECK(in.compute_bytes == (std::string(dtype) == "fp32" ? 4 : 2));
  }
}

TEST_CASE("memory: NCCL buffers and the framework overhead are in every phase", "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  in.strategy = Strategy::Fsdp;
  in.dp = 8;
  in.nccl_bytes = 3e8;
  in.framework_overhead_bytes = 8.7e8;
  const RankEstimate e = estimate_rank(in);
  for (const Phase& p : e.phases) {
    CHECK(term_memory_peak(p, "nccl_buffers") == 3e8);
    CHECK(term_memory_peak(p, "framework_overhead") == 8.7e8);
  }
}

namespace {
// Korthikanti et al. 2022's 22B under Megatron, TP 8 with sequence parallelism, one micro-batch of 4.
MemoryInputs megatron_22b_unfused_scores(Recompute r, bool unfused) {
  models::ModelSpec s;
  s.preset = "megatron-22b";
  s.seq = 2048;
  MemoryInputs in;
  in.model = models::model::resolve_model(s);
  in.strategy = Strategy::Megatron;
  in.tp = 8;
  in.sequence_parallel = true;
  in.micro_batch = 4;
  in.recompute = r;
  in.unfused_attention = unfused;
  return in;
}
}  // namespace

TEST_CASE("memory: unfused attention's scores are held without recompute, dropped by selective recompute", "[models]") {
  auto activations = [](const MemoryInputs& in) {
    return term_memory_peak(phase(estimate_rank(in), "forward_backward"), "activations");
  };
  const double none = activations(megatron_22b_unfused_scores(Recompute::None, true));
  const double selective = activations(megatron_22b_unfused_scores(Recompute::Selective, true));
  // 48 layers x 5 a s^2 b / t = 48 x 5 x 64 x 2048^2 x 4 / 8 B: 32.2 GB.
  CHECK(none - selective == Approx(48 * 5.0 * 64 * 2048 * 2048 * 4 / 8));
  CHECK(none - selective == Approx(32212254720.0));
  // Flash attention never stores them: selective recompute saves nothing.
  CHECK(activations(megatron_22b_unfused_scores(Recompute::None, false)) == Approx(selective));
  // Full recompute: the recomputed block holds its scores again, one layer's worth (stage 0 of
  // two, where no logits share the moment).
  MemoryInputs full = megatron_22b_unfused_scores(Recompute::Full, true), full_flash = full;
  full.pp = full_flash.pp = 2;
  full_flash.unfused_attention = false;
  const double with_scores = term_memory_peak(phase(estimate_rank(full), "forward_backward"), "recompute_block");
  const double without = term_memory_peak(phase(estimate_rank(full_flash), "forward_backward"), "recompute_block");
  CHECK(with_scores - without == Approx(5.0 * 64 * 2048 * 2048 * 4 / 8));
  // The step's inputs: training.attention_backend under Megatron.
  models::ScenarioSpec spec;
  spec.parallel.strategy = "megatron";
  spec.parallel.tp = 8;
  spec.training.attention_backend = "unfused";
  const MemoryInputs in =
      models::step_memory_inputs(spec, full.model, models::workload::make_layout(spec, full.model, 8));
  CHECK(in.unfused_attention);
}

TEST_CASE("memory: unfused attention's scores are held under every data-parallel strategy, as under Megatron",
          "[models]") {
  // Korthikanti et al. 2022's 5 a s^2 b per layer (bf16: softmax 2, dropout mask 1, dropout output
  // 2 B per score), every layer's activations being alive at once without a pipeline: L x 5 a s^2 b.
  // A 1,024-entry vocabulary keeps the logits below the recomputed block (full recompute, below).
  ModelShape m = llama3_8b_memory_peak();
  m.vocab = 1024;
  const double b = 2, s = m.seq, a = m.heads, layers = m.layers;
  for (const char* strategy : {"ddp", "zero1", "zero2", "zero3", "fsdp", "hsdp", "megatron"}) {
    INFO(strategy);
    models::ScenarioSpec spec;
    spec.parallel.strategy = strategy;
    if (std::string(strategy) == "zero1") spec.zero.stage = 1;
    if (std::string(strategy) == "zero2") spec.zero.stage = 2;
    spec.training.micro_batch = int(b);
    spec.training.attention_backend = "unfused";
    MemoryInputs unfused = models::step_memory_inputs(spec, m, models::workload::make_layout(spec, m, 8, 4));
    CHECK(unfused.unfused_attention);
    spec.training.attention_backend = "flash";
    MemoryInputs flash = models::step_memory_inputs(spec, m, models::workload::make_layout(spec, m, 8, 4));
    CHECK_FALSE(flash.unfused_attention);
    auto activations = [](const MemoryInputs& in) {
      return term_memory_peak(phase(estimate_rank(in), "forward_backward"), "activations");
    };
    CHECK(activations(unfused) - activations(flash) == Approx(layers * 5 * a * s * s * b).epsilon(1e-12));
    CHECK(activations(unfused) - activations(flash) == Approx(32 * 5 * 32 * 8192.0 * 8192 * 2).epsilon(1e-12));
    // Full recompute: the recomputed block holds one layer's scores again.
    unfused.recompute = flash.recompute = Recompute::Full;
    auto recompute_block = [](const MemoryInputs& in) {
      return term_memory_peak(phase(estimate_rank(in), "forward_backward"), "recompute_block");
    };
    CHECK(recompute_block(unfused) - recompute_block(flash) == Approx(5 * a * s * s * b).epsilon(1e-12));
  }
}

TEST_CASE(
    "memory: AdamW's temporary follows training.optimizer_impl: foreach a copy of v, for_loop two of the largest "
    "tensor, fused none",
    "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  const double p = double(in.model.total_params());
  const double largest = 128256.0 * 4096;  // the embedding (and the untied head)
  auto temp = [&](Strategy st, int dp, models::compute::OptimizerImpl impl) {
    MemoryInputs x = in;
    x.strategy = st;
    x.dp = dp;
    x.adamw = impl;
    return term_memory_peak(phase(estimate_rank(x), "optimizer"), "optimizer_temp");
  };
  using models::compute::OptimizerImpl;
  CHECK(temp(Strategy::Ddp, 1, OptimizerImpl::Foreach) == 2 * p);
  CHECK(temp(Strategy::Ddp, 1, OptimizerImpl::ForLoop) == 2 * 2 * largest);
  CHECK(temp(Strategy::Ddp, 1, OptimizerImpl::Fused) == 0);
  CHECK(temp(Strategy::Fsdp, 8, OptimizerImpl::Foreach) == Approx(2 * p / 8));
  CHECK(temp(Strategy::Fsdp, 8, OptimizerImpl::ForLoop) == Approx(2 * 2 * largest / 8));  // the local shard
  CHECK(temp(Strategy::Fsdp, 8, OptimizerImpl::Fused) == 0);
  // The step's inputs carry the implementation the step runs.
  models::ScenarioSpec spec;
  spec.parallel.strategy = "ddp";
  for (const auto& [name, impl] : {std::pair{"fused", OptimizerImpl::Fused},
                                   {"for_loop", OptimizerImpl::ForLoop},
                                   {"foreach", OptimizerImpl::Foreach}}) {
    spec.training.optimizer_impl = name;
    CHECK(models::step_memory_inputs(spec, in.model, models::workload::make_layout(spec, in.model, 1)).adamw == impl);
  }
  spec.training.optimizer_impl = "";
  CHECK(models::step_memory_inputs(spec, in.model, models::workload::make_layout(spec, in.model, 1)).adamw ==
        OptimizerImpl::Foreach);
}

TEST_CASE("memory: ZeRO-3 holds its persistent parameters whole on every rank, gathers only the rest", "[models]") {
  const ModelShape m = llama3_8b_memory_peak();
  const double h = 4096, kv = 1024, f = 14336, p = double(m.total_params());
  // DeepSpeed's numel <= threshold: at 2e7 the norms and q, k, v, o persist, the MLP's matrices do not.
  const double block_persistent = 2 * h + 2 * h * h + 2 * h * kv;
  CHECK(models::workload::zero3_persistent_params(m, 2e7) == int64_t(32 * block_persistent + h));
  CHECK(models::workload::zero3_persistent_params(m, 1e5) == int64_t(65 * h));   // the norms (the default)
  CHECK(models::workload::zero3_persistent_params(m, 4096) == int64_t(65 * h));  // <=: a tensor at the threshold
  CHECK(models::workload::zero3_persistent_params(m, 4095) == 0);
  CHECK(models::workload::zero3_persistent_params(m, 1e9) == m.total_params());  // the embedding and head too
  MemoryInputs in;
  in.model = m;
  in.strategy = Strategy::Zero3;
  in.dp = 8;
  in.zero.stage3_param_persistence_threshold = 2e7;
  const RankEstimate e = estimate_rank(in);
  const Phase& opt = phase(e, "optimizer");
  CHECK(term_memory_peak(opt, "weights") == Approx(2 * p / 8 + 2 * (32 * block_persistent + h)));
  // A block's gathered copy is its three MLP matrices; the embedding (525 M) is still the largest.
  const Phase& fb = phase(e, "forward_backward");
  CHECK(term_memory_peak(fb, "gathered_params") == Approx(2 * 128256.0 * 4096));
  in.zero.stage3_param_persistence_threshold = 1e9;  // everything persists: nothing is gathered
  const RankEstimate all = estimate_rank(in);
  CHECK(term_memory_peak(phase(all, "optimizer"), "weights") == Approx(2 * p / 8 + 2 * p));
  CHECK(term_memory_peak(phase(all, "forward_backward"), "gathered_params") == 0);
  // The step gathers the same tensors (decoder_units.cpp).
  const models::workload::ComputeRates rates =
      models::workload::make_rates(models::hw::find_gpu("H100"), models::compute::Precision::Bf16, 300e9, 0, {});
  const auto units = models::workload::decoder_units(m, 4096, rates, models::workload::Checkpointing{}, 2e7);
  CHECK(units[1].gathered == int64_t(3 * h * f));
  CHECK(units.front().gathered == m.embedding_params());
  for (const auto& u : models::workload::decoder_units(m, 4096, rates, models::workload::Checkpointing{}, 1e9))
    CHECK(u.gathered == 0);
}

TEST_CASE("memory: gathered copies and their gradients take the compute dtype", "[models]") {
  MemoryInputs in;
  in.model = llama3_8b_memory_peak();
  in.strategy = Strategy::Fsdp;
  in.dp = 8;
  const double root = double(in.model.embedding_params() + in.model.head_params() + in.model.final_norm_params());
  const double block = double(in.model.block_params());
  for (int cb : {2, 4}) {
    in.compute_bytes = cb;
    in.param_bytes = cb;
    const RankEstimate e = estimate_rank(in);
    CHECK(term_memory_peak(phase(e, "forward_backward"), "gathered_params") == Approx(cb * root + 2 * cb * block));
    CHECK(term_memory_peak(phase(e, "backward_end"), "unit_gradients") == Approx(cb * block));
  }
  in.strategy = Strategy::Zero3;
  in.compute_bytes = 4;
  const RankEstimate z = estimate_rank(in);
  CHECK(term_memory_peak(phase(z, "forward_backward"), "gathered_params") == Approx(4 * 128256.0 * 4096));
  CHECK(term_memory_peak(phase(z, "backward_end"), "unit_gradients") == Approx(4 * 128256.0 * 4096));
}
