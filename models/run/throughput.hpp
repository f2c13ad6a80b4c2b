#pragma once
// Throughput of a simulated training step: tokens and samples per second, model TFLOP/s per GPU
// and MFU.
//
// FLOPs per step: Megatron-LM's num_floating_point_operations (megatron/training/training.py),
// which counts every GEMM 3 times (forward, weight gradient, data gradient) and full (not causal)
// attention, for B samples of s tokens, L layers, hidden h, a heads of which g key/value groups,
// ffn f with SwiGLU's three matrices (x 3/2; GELU's two: x 1, Megatron's gated_linear_multiplier),
// vocabulary V:
//   F = 12 B s L h^2 [ (1 + g/a + s/h) + (f/h) (3/2) + V / (2 L h) ]
// (Narayanan et al. 2021, appendix "Floating-point operations"). With full activation recompute
// the layers' forward runs twice, so the hardware count is F + (1/3) of F's layer part (the
// logit term is not recomputed), less the dense MLPs' down projections' forward when a
// non-reentrant checkpoint's recompute stops before them (workload/compute.hpp BlockSeconds); selective recompute adds
// only the attention scores, which this count leaves at zero. MFU = F / step time / GPUs / peak dense bf16 FLOP/s
// (Chowdhery et al. 2022, PaLM appendix B); HFU uses the hardware count. The simulator's own compute model counts
// causal attention as half (workload/compute.hpp); these figures follow Megatron's convention,
// which is what Megatron-LM logs as "TFLOP/s/GPU".
#include "models/model/model_shape.hpp"
#include "models/result.hpp"
#include "models/spec.hpp"
#include "models/workload/steps/decoder_units.hpp"

namespace models {

struct StepFlops {
  double layers = 0;  // the blocks' part
  double logits = 0;  // the LM head's part
  double scores = 0;  // of `layers`: attention's QK^T and PV, every layer over the whole sequence
  double mlp_down = 0;  // of `layers`: the dense MLPs' down projections, 6 B s h f per dense layer
  double total() const { return layers + logits; }
};
// Megatron's num_floating_point_operations for `samples` samples (above). MoE models: an MoE
// layer's f is (top_k + shared_experts) moe_ffn, the others keep ffn (Megatron's moe count). MLA
// (model/attention.hpp): the attention term is 6 S s L (its matrices' parameters + s a (d_qk + d_v)),
// the same count at MLA's own shapes (the core whole, as above).
StepFlops megatron_step_flops(const model::ModelShape& m, double samples);
// The count with each layer's own keys per query: Megatron's counts every layer's scores over the
// whole sequence (s keys per query, twice the causal mean), so a model whose layers attend over a
// window (model.local: Llama 4's chunks, gpt-oss's sliding window) computes less than it counts.
// scores x mean_keys(s) / (s / 2) in place of scores; the same as Megatron's without windows.
double windowed_step_flops(const model::ModelShape& m, double samples);

// Samples per optimizer step: dp x micro_batch x (grad_accum, or the pipeline's micro-batches).
double samples_per_step(const ScenarioSpec& spec, int dp, int micro_batches);

// Fills every field from the step time; `world_size` GPUs of `peak_flops` dense bf16 each;
// `recompute`, the layout's checkpointing (workload/steps/decoder_units.hpp checkpointing): the whole
// forward of the checkpointed blocks (every `every`-th: layers / every of them), less the down
// projections where the recompute stops early (above); per op, each layer reruns its k, o and w3
// projections' forward, 2 B s (h k_dim + o_in h + h f).
ThroughputResult make_throughput(const model::ModelShape& m, double samples, double step_time_s, int world_size,
                                 double peak_flops, const workload::Checkpointing& recompute = {});

}  // namespace models
