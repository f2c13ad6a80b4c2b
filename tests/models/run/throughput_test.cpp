// Throughput and MFU (models/run/throughput.hpp): Megatron-LM's num_floating_point_operations.
#include "models/run/throughput.hpp"

#include "models/run/run.hpp"

#include <catch2/catch.hpp>

using models::make_throughput;
using models::megatron_step_flops;
using models::model::ModelShape;
using Rerun = models::workload::Checkpointing::Rerun;

namespace {
// Full recompute of every block, the whole forward (Megatron's, DeepSpeed's reentrant checkpoint).
const models::workload::Checkpointing kWhole{Rerun::WholeForward};
models::model::ModelShape llama3_8b() {
  models::ModelSpec s;
  s.preset = "llama-3-8b";
  s.seq = 8192;
  return models::model::resolve_model(s);
}
}  // namespace

TEST_CASE("throughput: Megatron's FLOP count equals 3 passes of every GEMM with full attention", "[models]") {
  const models::model::ModelShape m = llama3_8b();
  const double B = 4, s = m.seq, h = m.hidden, kv = double(m.kv_dim()), f = m.ffn, V = m.vocab, L = m.layers;
  // 12 B s L h^2 [(1 + g/a + s/h) + (f/h)(3/2) + V/(2Lh)], written out: 3 x 2 FLOPs per
  // multiply-add over q, o (h x h), k, v (h x kv), gate, up, down (h x f), QK^T and PV (s x h each),
  // and the head (h x V).
  const double per_token_layer = 6 * (2 * h * h + 2 * h * kv + 3 * h * f) + 6 * 2 * s * h;
  const auto flops = megatron_step_flops(m, B);
  CHECK(flops.layers == Approx(B * s * L * per_token_layer));
  CHECK(flops.logits == Approx(B * s * 6 * h * V));
  // Per token: 6 x the parameters a token multiplies (all but the embedding lookup; norms are
  // not GEMMs) + 12 L s h for full attention (Kaplan et al. 2020's 6N rule).
  const double multiplied = double(m.total_params() - m.embedding_params());
  CHECK(flops.total() / (B * s) == Approx(6 * multiplied + 12 * L * s * h).epsilon(1e-4));
}

TEST_CASE("throughput: a GELU model's MLP counts its two matrices, not SwiGLU's three", "[models]") {
  // Megatron's gated_linear_multiplier is 1 without --swiglu (GPT-style presets: SC'21, GPT-3).
  models::ModelSpec spec;
  spec.preset = "sc21-1.7b";
  const models::model::ModelShape m = models::model::resolve_model(spec);
  REQUIRE_FALSE(m.gated_mlp);
  const double B = 2, s = m.seq, h = m.hidden, L = m.layers;
  const auto flops = megatron_step_flops(m, B);
  // The SC'21 paper's count for f = 4h, g = a, without its recompute pass (its 96 is 4/3 x 72,
  // its V/16Lh 3/4 x V/12Lh): 72 B s L h^2 (1 + s/6h + V/12Lh); with SwiGLU's 3/2 it was 24 % more.
  const double V = m.vocab;
  CHECK(flops.total() == Approx(72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h))));
  CHECK(make_throughput(m, B, 1.0, 1, 1e15, kWhole).hardware_flops_per_step ==
        Approx(96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))));
}

TEST_CASE("throughput: tokens/s, TFLOP/s per GPU, MFU and the recompute's hardware FLOPs", "[models]") {
  const models::model::ModelShape m = llama3_8b();
  const auto f = megatron_step_flops(m, 64);
  const auto t = make_throughput(m, 64, 2.0, 8, 989e12, kWhole);
  CHECK(t.tokens_per_step == 64.0 * 8192);
  CHECK(t.tokens_per_s == Approx(64.0 * 8192 / 2));
  CHECK(t.samples_per_s == Approx(32));
  CHECK(t.model_tflops_per_gpu == Approx(f.total() / 2 / 8 / 1e12));
  CHECK(t.mfu == Approx(t.model_tflops_per_gpu / 989));
  // Full recompute: one more forward of the layers (a third of their 3-pass count).
  CHECK(t.hardware_flops_per_step == Approx(f.total() + f.layers / 3));
  CHECK(t.hfu > t.mfu);
  const auto plain = make_throughput(m, 64, 2.0, 8, 989e12);
  CHECK(plain.hardware_flops_per_step == plain.model_flops_per_step);
  // A non-reentrant checkpoint's recompute stops before each down projection: 2 B s h f per
  // layer fewer (one of the forward's three MLP GEMMs of SwiGLU).
  const double down_fwd = 2.0 * 64 * m.seq * m.hidden * m.ffn * m.layers;
  CHECK(f.mlp_down == Approx(3 * down_fwd));
  CHECK(make_throughput(m, 64, 2.0, 8, 989e12, {Rerun::UntilLastSaved}).hardware_flops_per_step ==
        Approx(f.total() + f.layers / 3 - down_fwd));
}

// A step's batch named by training.global_batch is the same step as one named by grad_accum:
// every figure that counts micro-batches (tokens per step, steps to the token target, the
// compute per step, the memory peak) takes the layout's grad_accum, not the spec's default 1.
TEST_CASE("throughput: global_batch and the grad_accum it implies give one step, for every strategy", "[models]") {
  for (const char* strategy : {"zero1", "zero3", "fsdp", "ddp", "megatron"}) {
    models::ScenarioSpec by_accum;
    by_accum.cluster.instance = "p5.48xlarge";
    by_accum.model = models::ModelSpec{};
    by_accum.model->preset = "sc21-1.7b";
    by_accum.model->seq = 1024;
    by_accum.training.micro_batch = 2;
    by_accum.training.grad_accum = 3;
    by_accum.training.tokens = 1e8;
    by_accum.parallel.strategy = strategy;
    if (std::string(strategy) == "zero1") by_accum.zero.stage = 1;
    models::ScenarioSpec by_batch = by_accum;
    by_batch.training.grad_accum = 1;
    by_batch.training.global_batch = 2 * 3 * 8;  // micro_batch x grad_accum x dp (8 GPUs)
    const auto a = models::run_scenario(by_accum, {});
    const auto b = models::run_scenario(by_batch, {});
    INFO(strategy);
    CHECK(b.throughput.tokens_per_step == 48.0 * 1024);
    CHECK(b.throughput.tokens_per_step == a.throughput.tokens_per_step);
    CHECK(b.steps == a.steps);
    CHECK(b.step_time_s == Approx(a.step_time_s).epsilon(1e-9));
    CHECK(b.run_time_s == Approx(a.run_time_s).epsilon(1e-9));
    CHECK(b.memory.peak_bytes == a.memory.peak_bytes);
  }
}

TEST_CASE("throughput: training.recompute = full is grad_checkpointing, in the step and in HFU", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.model = models::ModelSpec{};
  s.model->preset = "sc21-1.7b";
  s.model->seq = 1024;
  s.training.micro_batch = 2;
  s.training.steps = 5;
  s.parallel.strategy = "megatron";
  s.parallel.tp = 2;
  models::ScenarioSpec full = s, checkpointing = s;
  full.training.recompute = "full";
  checkpointing.training.grad_checkpointing = true;
  const auto a = models::run_scenario(full, {});
  const auto b = models::run_scenario(checkpointing, {});
  CHECK(a.step_time_s == Approx(b.step_time_s).epsilon(1e-12));
  CHECK(a.throughput.hardware_flops_per_step == b.throughput.hardware_flops_per_step);
  CHECK(a.throughput.hardware_flops_per_step > a.throughput.model_flops_per_step);
}

TEST_CASE("throughput: with layers attending over a window the computed count takes their own keys", "[models]") {
  // gpt-oss-120b: every other layer attends over a 128-token sliding window (its preset).
  models::ModelSpec spec;
  spec.preset = "gpt-oss-120b";
  spec.seq = 32768;
  const models::model::ModelShape m = models::model::resolve_model(spec);
  REQUIRE(m.local.window == 128);
  const double B = 2, s = m.seq, L = m.layers;
  const auto f = megatron_step_flops(m, B);
  // The scores' part of Megatron's count: QK^T and PV over s keys per query in every layer,
  // 12 B s^2 L (a d_head) (3 passes x 2 FLOPs x 2 products).
  const double scores = 12 * B * s * s * L * double(m.heads) * double(m.head_dim());
  CHECK(f.scores == Approx(scores));
  // Half the layers see 128 - 128^2 / 2s keys per query on average against s / 2 causal, the other
  // half count as Megatron does.
  const double w = 128, window_keys = w - w * w / (2 * s);
  const double expected = f.total() - scores / 2 + scores / 2 * window_keys / (s / 2);
  CHECK(models::windowed_step_flops(m, B) == Approx(expected));
  // Without a window the two counts are one.
  const models::model::ModelShape dense = llama3_8b();
  CHECK(models::windowed_step_flops(dense, B) == Approx(megatron_step_flops(dense, B).total()));
}

// Every N-th block checkpointed: the hardware count adds layers / N of the blocks' recompute.
TEST_CASE("throughput: every N-th block checkpointed recomputes layers / N of them", "[models]") {
  const models::model::ModelShape m = llama3_8b();  // 32 layers
  const auto f = megatron_step_flops(m, 64);
  const double every_block = make_throughput(m, 64, 2.0, 8, 989e12, {Rerun::WholeForward, 1}).hardware_flops_per_step;
  const double every_third = make_throughput(m, 64, 2.0, 8, 989e12, {Rerun::WholeForward, 3}).hardware_flops_per_step;
  CHECK(every_block == Approx(f.total() + f.layers / 3));
  CHECK(every_third == Approx(f.total() + f.layers / 3 * 10.0 / 32));  // blocks 3, 6, ..., 30
}

// Per-op selective checkpointing reruns each layer's k, o and w3 projections.
TEST_CASE("throughput: selective_op recomputes the k, o and w3 projections", "[models]") {
  const models::model::ModelShape m = llama3_8b();
  const auto t = make_throughput(m, 64, 2.0, 8, 989e12, {Rerun::PerOp});
  const double k = 1024, h = 4096, f = 14336;
  CHECK(t.hardware_flops_per_step - t.model_flops_per_step == Approx(2.0 * 64 * m.seq * m.layers * h * (k + h + f)));
}
