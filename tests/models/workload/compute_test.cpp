// The decoder's step work term by term (models/workload/compute.hpp): closed forms first, then the
// step programs' compute equals the closed form.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/hw/gpu.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "models/workload/steps/megatron.hpp"

using namespace models::workload;
using models::compute::MemKernel;
using models::compute::OptimizerImpl;
using models::compute::Precision;

namespace {
models::model::ModelShape compute_decoder() {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  return models::model::resolve_model(s);
}
ComputeRates h200_compute(Precision p = Precision::Bf16) { return make_rates(models::hw::find_gpu("H200"), p, 300e9, 0, {}); }
double compute_seconds(const Program& p) {
  double s = 0;
  for (const auto& stream : p.ops)
    for (const auto& op : stream)
      if (op.kind == OpKind::Compute) s += op.duration.seconds();
  return s;
}
}  // namespace

TEST_CASE("workload: a block is its layers' GEMMs, attention and memory-bound kernels", "[workload]") {
  const models::model::ModelShape m = compute_decoder();
  const ComputeRates r = h200_compute();
  const auto& g = r.gpu.gemm;
  const double gap = r.gpu.launch_gap_s;
  const int64_t T = 4096, h = 4096, f = 14336;
  const BlockSeconds b = block_seconds(m, T, 1, r);
  // GEMMs: qkv (h -> 3h), o (h -> h), gate and up (h -> f), down (f -> h); fwd, dgrad, wgrad each;
  // 15 kernels with a launch gap each.
  using models::compute::gemm_seconds;
  auto lin = [&](int64_t in, int64_t out) {
    return gemm_seconds(g, T, out, in) + gemm_seconds(g, T, in, out) + gemm_seconds(g, out, in, T);
  };
  const double gemms = lin(h, 3 * h) + lin(h, h) + 2 * lin(h, f) + lin(f, h) + 15 * gap;
  CHECK(b.attn_fwd.gemm + b.mlp_fwd.gemm + b.attn_bwd.gemm + b.mlp_bwd.gemm == Approx(gemms).epsilon(1e-12));
  // Attention: F = 2 T s h; forward 1 kernel, backward 3.
  const double F = 2.0 * T * 2048 * h;
  const auto& a = r.gpu.attention;
  CHECK(b.attn_fwd.attention == Approx(a.fwd_fixed_s + F / a.fwd_flops_per_s + gap));
  CHECK(b.attn_bwd.attention == Approx(a.bwd_fixed_s + 2.5 * F / a.bwd_flops_per_s + 3 * gap));
  CHECK(b.mlp_fwd.attention == 0);
  // Memory-bound: norms 2 x (fwd 4 B, bwd 6 B per T x h), 5 residual adds (6 B), SwiGLU (6 B fwd,
  // 10 B bwd per T x f), the qkv gradient's 2 strided copies (8 B per T x 3h); t0 + gap per kernel.
  const auto& mem = r.gpu.memory;
  const double k = mem.fixed_s + gap;
  const double Th = double(T) * h, Tf = double(T) * f;
  const double memory =
      2 * (k + 4 * Th / mem.bandwidth(MemKernel::NormFwd)) + 2 * (2 * k + 6 * Th / mem.bandwidth(MemKernel::NormBwd)) +
      5 * (k + 6 * Th / mem.bandwidth(MemKernel::Elementwise)) +
      (2 * k + 6 * Tf / mem.bandwidth(MemKernel::SwigluFwd)) + (3 * k + 10 * Tf / mem.bandwidth(MemKernel::SwigluBwd)) +
      (2 * k + 8 * Th * 3 / mem.bandwidth(MemKernel::StridedCopy));
  const double got = b.attn_fwd.memory + b.mlp_fwd.memory + b.attn_bwd.memory + b.mlp_bwd.memory;
  CHECK(got == Approx(memory).epsilon(1e-12));
  // On one H200: 7.9 ms of GEMMs, 0.6 ms of attention, 1.1 ms of the rest per block (fwd + bwd);
  // the profile of the tp_n1-like step: 67.7 ms of GEMMs / 8 blocks (with the head) and 5.3 ms of
  // attention (step_profile.jsonl).
  CHECK(b.fwd() + b.bwd() == Approx(9.6e-3).epsilon(0.03));
}

TEST_CASE("workload: tensor parallelism splits the matrices, not the norms, residuals or the head", "[workload]") {
  const models::model::ModelShape m = compute_decoder();
  const ComputeRates r = h200_compute();
  const BlockSeconds b1 = block_seconds(m, 4096, 1, r), b4 = block_seconds(m, 4096, 4, r);
  // Attention over heads / 4: F / 4, the fixed costs stay.
  const auto& a = r.gpu.attention;
  const double F = 2.0 * 4096 * 2048 * 4096;
  CHECK(b4.attn_fwd.attention == Approx(a.fwd_fixed_s + F / 4 / a.fwd_flops_per_s + r.gpu.launch_gap_s));
  // GEMMs lose a little at TP 4 (the o projection's k = 1024): more than a quarter of TP 1's time.
  const double g1 = b1.attn_fwd.gemm + b1.mlp_fwd.gemm + b1.attn_bwd.gemm + b1.mlp_bwd.gemm;
  const double g4 = b4.attn_fwd.gemm + b4.mlp_fwd.gemm + b4.attn_bwd.gemm + b4.mlp_bwd.gemm;
  CHECK(g4 > g1 / 4 * 1.02);
  CHECK(g4 < g1 / 4 * 1.15);
  // Norms and residual adds do not shrink: the memory-bound work at TP 4 minus its SwiGLU and qkv
  // copies (which do shrink by 4, with their fixed costs) is TP 1's.
  auto unsplit = [&](const BlockSeconds& b, int tp) {
    const auto& mem = r.gpu.memory;
    const double k = mem.fixed_s + r.gpu.launch_gap_s;
    const double Tf = 4096.0 * 14336 / tp, Th3 = 4096.0 * 3 * 4096 / tp;
    const double split = (2 * k + 6 * Tf / mem.bandwidth(MemKernel::SwigluFwd)) +
                         (3 * k + 10 * Tf / mem.bandwidth(MemKernel::SwigluBwd)) +
                         (2 * k + 8 * Th3 / mem.bandwidth(MemKernel::StridedCopy));
    return b.attn_fwd.memory + b.mlp_fwd.memory + b.attn_bwd.memory + b.mlp_bwd.memory - split;
  };
  CHECK(unsplit(b4, 4) == Approx(unsplit(b1, 1)).epsilon(1e-12));
  // Sequence parallelism (Korthikanti et al. 2022) runs them on T / tp tokens: their bytes shrink
  // by 4, their 11 kernels' fixed costs (2 norms forward, 2 x 2 backward, 5 adds) do not.
  const BlockSeconds sp = block_seconds(m, 4096, 4, r, true);
  const double fixed = 11 * (r.gpu.memory.fixed_s + r.gpu.launch_gap_s);
  CHECK(unsplit(sp, 4) - fixed == Approx((unsplit(b4, 4) - fixed) / 4).epsilon(1e-9));
  // The head: replicated (vocab split 1) costs every TP rank the whole GEMM and loss; Megatron's
  // vocab-parallel head a quarter of the loss.
  const HeadSeconds rep = head_seconds(m, 4096, 1, r), vp = head_seconds(m, 4096, 4, r);
  CHECK(rep.fwd.gemm > 3.5 * vp.fwd.gemm);
  CHECK(rep.bwd.memory - vp.bwd.memory == Approx(0.5 * 0.75 * r.gpu.memory.loss_s_per_logit * 4096 * 32000));
}

TEST_CASE("workload: Megatron pads the vocabulary to 128 x tp and its head runs aligned where PyTorch's does not",
          "[workload]") {
  // megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding: ceil(V / (128 tp)) x 128 tp.
  CHECK(megatron_padded_vocab(50257, 1) == 50304);
  CHECK(megatron_padded_vocab(50257, 8) == 51200);
  CHECK(megatron_padded_vocab(128256, 8) == 129024);
  CHECK(megatron_padded_vocab(32000, 2) == 32000);
  models::ModelSpec spec;
  spec.preset = "gpt2";
  spec.seq = 1024;
  const models::model::ModelShape m = models::model::resolve_model(spec);
  const ComputeRates r = make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
  // nn.Linear over 50257 rows (odd): cuBLAS's align1 kernels, more than 5x the 50304 rows Megatron
  // computes, although those are 0.1 % more.
  const HeadKernels torch = head_kernels(m, 8192, 8192, 1, r), megatron = head_kernels(m, 8192, 8192, 1, r, 50304);
  CHECK(torch.logits.fwd + torch.logits.bwd() > 5 * (megatron.logits.fwd + megatron.logits.bwd()));
}

TEST_CASE("workload: each framework's optimizer: foreach on torch, FusedAdam on fp32 master in Megatron",
          "[workload]") {
  models::TrainingSpec t;  // dtype bf16
  OptimizerPlan p = optimizer_plan(t, Strategy::Fsdp);
  CHECK(p.impl == OptimizerImpl::Foreach);
  CHECK(p.state_bytes == 2);
  CHECK_FALSE(p.cast_grads_up);
  t.param_dtype = "fp32";  // FSDP2 with fp32 parameters (the calibration runs)
  CHECK(optimizer_plan(t, Strategy::Fsdp).state_bytes == 4);
  models::TrainingSpec mt;
  p = optimizer_plan(mt, Strategy::Megatron);
  CHECK(p.impl == OptimizerImpl::Fused);
  CHECK(p.state_bytes == 4);
  CHECK(p.cast_grads_up);
  CHECK(p.cast_params_down);
  mt.param_dtype = "bf16";  // the plain bf16 model of the torch TP/PP scripts: no master
  mt.optimizer_impl = "foreach";
  p = optimizer_plan(mt, Strategy::Megatron);
  CHECK(p.impl == OptimizerImpl::Foreach);
  CHECK(p.state_bytes == 2);
  CHECK_FALSE(p.cast_params_down);
  p = optimizer_plan(models::TrainingSpec{}, Strategy::Zero3);
  CHECK(p.impl == OptimizerImpl::Fused);
  CHECK(p.cast_params_down);
  CHECK_FALSE(p.cast_grads_up);  // cast at the end of backward in the step program
  models::TrainingSpec bad;
  bad.optimizer_impl = "apex";
  CHECK_THROWS_AS(optimizer_plan(bad, Strategy::Ddp), models::SpecError);
  // Time: AdamW at its bandwidth, the launch gaps of 8 multi-tensor ops per 2.1e7 parameters
  // (1 for fused), master casts at 6 B per parameter.
  const ComputeRates r = h200_compute();
  const OptimizerPlan m{OptimizerImpl::Fused, 4, true, true};
  const double n = 1e9, launches = std::ceil(n / (320.0 * 65536));
  CHECK(optimizer_seconds(n, m, r) ==
        Approx(n * 28 / r.gpu.adamw.bandwidth(OptimizerImpl::Fused, 4) + launches * r.gpu.launch_gap_s +
               memory_seconds(r, MemKernel::CastUp, 6 * n) + memory_seconds(r, MemKernel::Elementwise, 6 * n)));
}

TEST_CASE("workload: the one-GPU step programs compute exactly the closed-form breakdown", "[workload]") {
  const models::model::ModelShape m = compute_decoder();
  const ComputeRates r = h200_compute();
  models::TrainingSpec t;
  t.micro_batch = 2;
  // Plain bf16 (tp_n1): Megatron builder, TP = PP = DP = 1, bf16 parameters, foreach.
  t.param_dtype = "bf16";
  t.optimizer_impl = "foreach";
  MegatronConfig mc;
  mc.model = m;
  mc.training = t;
  mc.layout.strategy = Strategy::Megatron;
  mc.layout.micro_batch = 2;
  mc.rates = r;
  const SingleGpuTerms plain = single_gpu_breakdown(m, 2, false, false, 2, optimizer_plan(t, Strategy::Megatron), r);
  CHECK(compute_seconds(build_megatron_programs(mc)[0]) == Approx(plain.total()).epsilon(1e-9));
  // FSDP2 on one rank (z3_n1), fp32 parameters.
  DataParallelConfig dc;
  dc.model = m;
  dc.training = models::TrainingSpec{};
  dc.training.micro_batch = 2;
  dc.training.param_dtype = "fp32";
  dc.strategy = Strategy::Fsdp;
  dc.rates = r;
  const SingleGpuTerms fsdp =
      single_gpu_breakdown(m, 2, false, true, 4, optimizer_plan(dc.training, Strategy::Fsdp), r);
  CHECK(compute_seconds(build_data_parallel_program(dc)) == Approx(fsdp.total()).epsilon(1e-9));
  // Checkpointing recomputes each block's forward once.
  const SingleGpuTerms ckpt = single_gpu_breakdown(m, 2, true, false, 2, optimizer_plan(t, Strategy::Megatron), r);
  const BlockSeconds b = block_seconds(m, 4096, 1, r);
  CHECK(ckpt.total() - plain.total() == Approx(8 * b.fwd()).epsilon(1e-9));
}

TEST_CASE("workload: fp8 runs the GEMMs at the fp8 law and leaves attention and activations in 16 bits", "[workload]") {
  const models::model::ModelShape m = compute_decoder();
  const BlockSeconds b16 = block_seconds(m, 4096, 1, h200_compute()), b8 = block_seconds(m, 4096, 1, h200_compute(Precision::Fp8));
  const double g16 = b16.attn_fwd.gemm + b16.mlp_fwd.gemm + b16.attn_bwd.gemm + b16.mlp_bwd.gemm;
  const double g8 = b8.attn_fwd.gemm + b8.mlp_fwd.gemm + b8.attn_bwd.gemm + b8.mlp_bwd.gemm;
  // fp8 is 1.8-1.9x bf16 at these sizes (ANALYSIS.md section 1: 1.79x at min dim 4096).
  CHECK(g16 / g8 == Approx(1.75).epsilon(0.08));
  CHECK(b8.attn_fwd.attention == b16.attn_fwd.attention);
  // Memory-bound work is 16-bit work plus the quantizations (the next test has their closed form).
  const BlockKernels k8 = block_kernels(m, 4096, 1, h200_compute(Precision::Fp8));
  CHECK(b8.mlp_bwd.memory == Approx(b16.mlp_bwd.memory + k8.fp8_mlp_bwd).epsilon(1e-12));
  CHECK(block_kernels(m, 4096, 1, h200_compute()).fp8_mlp_bwd == 0);
  models::TrainingSpec t;
  t.precision = "fp8";
  CHECK(training_precision(t) == Precision::Fp8);
  t.precision.clear();
  t.dtype = "fp16";
  CHECK(training_precision(t) == Precision::Fp16);
}

TEST_CASE("workload: fp8 quantizations move 6 B per element at the Fp8Cast rate, 3 kernels per tensor", "[workload]") {
  // Transformer Engine's current scaling (compute/kernels.hpp Fp8Cast): per tensor an amax pass, a
  // scale kernel and a fused cast + transpose. Decoder: h 4096, kv 4096 (32 heads, no GQA), f 14336
  // (SwiGLU: gate and up one 2f-wide weight), T tokens, tp 2.
  const models::model::ModelShape m = compute_decoder();
  const ComputeRates r = h200_compute(Precision::Fp8);
  const double T = 4096, h = 4096, f = 14336, tp = 2, gap = r.gpu.launch_gap_s;
  const double bw = r.gpu.memory.bandwidth(MemKernel::Fp8Cast);
  CHECK(bw == 2.87e12);
  auto cast = [&](double elements, int tensors) { return 6 * elements / bw + 3 * tensors * gap; };
  const BlockKernels k = block_kernels(m, int64_t(T), int(tp), r);
  CHECK(k.fp8_attn_fwd == Approx(cast(T * h + T * h / tp, 2)));      // qkv's input, o's input
  CHECK(k.fp8_mlp_fwd == Approx(cast(T * h + T * f / tp, 2)));       // fc1's input (shared), fc2's
  CHECK(k.fp8_attn_bwd == Approx(cast(T * 3 * h / tp + T * h, 2)));  // output gradients
  CHECK(k.fp8_mlp_bwd == Approx(cast(T * 2 * f / tp + T * h, 2)));
  CHECK(k.fp8_attn_weights == Approx(cast((3 * h * h + h * h) / tp, 2)));
  CHECK(k.fp8_mlp_weights == Approx(cast((2 * f * h + f * h) / tp, 2)));
  // The output layer stays 16-bit: its GEMMs at the bf16 law under fp8.
  const HeadKernels h8 = head_kernels(m, int64_t(T), int64_t(T), 1, r),
                    h16 = head_kernels(m, int64_t(T), int64_t(T), 1, h200_compute());
  CHECK(h8.logits.fwd == Approx(h16.logits.fwd).epsilon(1e-12));
}

TEST_CASE("compute: flash attention's core follows the keys a windowed layer's queries see", "[workload]") {
  // gpt-oss-120b at seq 4096: every second layer slides over 128 keys, so the core's FLOPs are
  // mean_keys / (s / 2) of full causal attention's; the fixed costs stay.
  models::ModelSpec spec;
  spec.preset = "gpt-oss-120b";
  spec.seq = 4096;
  models::model::ModelShape m = models::model::resolve_model(spec);
  const ComputeRates r = h200_compute();
  const BlockKernels windowed = block_kernels(m, 4096, 1, r);
  m.local = {};
  const BlockKernels full = block_kernels(m, 4096, 1, r);
  const double ratio = models::model::LocalAttention{128, false, 1, 2}.mean_keys(4096) / 2048;
  CHECK(ratio == Approx(0.531).epsilon(0.001));
  const double flops = models::compute::attention_fwd_flops(4096, 4096, m.attention().core_width(), 1);
  CHECK(full.attn_fwd - windowed.attn_fwd == Approx((1 - ratio) * flops / r.gpu.attention.fwd_flops_per_s));
  CHECK(full.attn_bwd - windowed.attn_bwd == Approx((1 - ratio) * 2.5 * flops / r.gpu.attention.bwd_flops_per_s));
  // Eager attention computes every score and masks: the window saves nothing there.
  const BlockKernels eager_full = block_kernels(m, 4096, 1, r, false, false);
  m.local = models::model::LocalAttention{128, false, 1, 2};
  CHECK(block_kernels(m, 4096, 1, r, false, false).attn_fwd == eager_full.attn_fwd);
}

// PyTorch's non-reentrant checkpoint stops its recompute once the last tensor the backward saved is
// back: a block's recompute is its forward less the MLP's down projection and the residual add.
TEST_CASE("workload: a recompute that stops early leaves out the down projection and its add", "[workload]") {
  const models::model::ModelShape m = compute_decoder();
  const ComputeRates r = h200_compute();
  const BlockSeconds b = block_seconds(m, 4096, 1, r);
  const BlockKernels k = block_kernels(m, 4096, 1, r);
  CHECK(b.recompute(false) == b.fwd());
  CHECK(b.recompute(true) == Approx(b.fwd() - k.down.fwd - k.add).epsilon(1e-12));
  CHECK(b.fwd_unsaved_tail > 0.25 * b.mlp_fwd.gemm);  // one of three equal-sized MLP GEMMs
}

// torchtitan's per-op policy reruns the norms, k's and o's projections, the rotary embedding, the
// attention residual's add, w3's half of the gate/up GEMM and the activation.
TEST_CASE("workload: a per-op recompute reruns k, o, w3, the norms and the elementwise kernels", "[workload]") {
  const models::model::ModelShape m = compute_decoder();  // multi-head: k is a third of qkv
  const ComputeRates r = h200_compute();
  const BlockSeconds b = block_seconds(m, 4096, 1, r);
  const BlockKernels k = block_kernels(m, 4096, 1, r);
  CHECK(b.fwd_op_rerun ==
        Approx(2 * k.norm_fwd + k.rope_fwd + k.kv_copy_fwd + k.add + k.act_fwd + k.qkv.fwd / 3 + k.o.fwd + k.up.fwd / 2)
            .epsilon(1e-12));
  CHECK(b.fwd_op_rerun < b.recompute(true));
}
