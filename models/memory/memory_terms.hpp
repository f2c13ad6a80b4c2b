#pragma once
// Closed forms of a GPU's memory during training, one function per term, each with its source.
// memory_peak.hpp adds them up per rank and phase of the step; the tests check every function
// against its closed form, DeepSpeed's estimator and the peaks measured on one H200
// (scenarios/validation/h200x1/ANALYSIS.md section 6).
//
// Activations of a Llama block (bf16, SDPA/FlashAttention, no dropout), bytes per token saved
// for the backward, measured within 0.1 % (ANALYSIS.md section 6):
//   replicated across TP (unless sequence parallel): block input, norm-1 output, residual,
//     norm-2 output                                             4 x 2h
//   split over TP: q, k, v (h + 2 kv_dim), SDPA output (h)     2 (2h + 2 kv_dim) / tp
//                  gate, SiLU, up, product (4 x ffn)           8 ffn / tp
//   = 16h + 8ffn without GQA and TP. A GELU MLP (gated_mlp false) keeps fc1's output and GELU's
//   output, 2 x ffn (Korthikanti's 16 sbh for ffn = 4h). For any attention (model/attention.hpp) the
//   split part is q + k + v + o_in (h + 2 kv_dim + h above); MLA adds its latents, replicated:
//   2 q_lora_rank + 2 kv_lora_rank + qk_rope_head_dim. Full recompute keeps the block input only (2h, / tp under SP);
//   selective recompute (Korthikanti et al. 2022) drops the attention scores, which SDPA never
//   stores, so it saves nothing over "none" with flash attention. Unfused attention
//   (training.attention_backend = "unfused": explicit softmax and dropout, Megatron-LM <= 2022)
//   stores them: unfused_score_bytes_per_token, added under "none" only.
// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models",
// eq. 1-5 and Table 2), a GPT block with dropout and unfused attention, bytes per layer:
//   none:      sbh (10 + 24/t + 5as/(ht))        (sequence parallel: sbh (34/t + 5as/(ht)))
//   selective: sbh (10 + 24/t)                   (sequence parallel: 34 sbh / t)
//   full:      2 sbh                             (Table 2 gives 2 sbh with or without SP)
#include <cstdint>

#include "models/model/model_shape.hpp"

namespace models::memory {

// selective_op (torchtitan's per-op checkpointing, workload/layout.hpp): a block keeps its input,
// the outputs of its 1st, 3rd, 5th and 7th matmul (q, v, w1 and w2, torchtitan keeping every other
// aten.mm), and attention's output: e (2h + q_dim + v_dim + o_in + f) per token (tp 1: data
// parallel only). Measured on one H100: none less selective_op 104.3 KB per Llama-3.1-8B block and
// token (scenarios/validation/h100x1/measured/llama_ac_op_steps.jsonl), where this gives 104.4.
enum class Recompute { None, Selective, Full, SelectiveOp };
const char* recompute_name(Recompute r);  // "none", "selective", "full", "selective_op"

// Bytes per token one Llama block keeps for its backward (see above), act_bytes per element.
double block_activation_bytes_per_token(const model::ModelShape& m, int tp, bool sequence_parallel, Recompute r,
                                        int act_bytes = 2);
// The same for a mixture-of-experts block (moe.hpp): attention and norms as in a dense block; the
// MLP's 8 ffn / tp becomes, per token of the rank (Megatron-core's alltoall dispatcher: a rank
// routes T / tp tokens and, after the all-gather over its expert-tensor-parallel group, holds the
// routed copies of etp of them, L k etp / tp copies per token on the busiest rank, L the
// expert load (moe.hpp expert_load: the token skew, capped or padded by the capacity factor);
// L k with etp = tp):
//   routed copies' expert input, gathered over the ETP group                         h L k etp / tp
//   the combine's saved copies (Megatron-core moe_utils.unpermute multiplies the rank's
//   own T / tp x r k returned copies by their probabilities, and keeps them for the
//   probabilities' gradient; token_skew does not inflate the rank's own tokens; r:
//   moe.hpp routed_copies, c padded to capacity, else 1)                              h r k / tp
//   their gate, SiLU, up, product over moe_ffn / etp                                  4 f_e L k / tp
//   shared experts' gate, SiLU, up, product                                            4 shared f_e / tp
//   router logits and probabilities, fp32                                               8 E (/ tp under SP)
// all times act_bytes except the router; etp 0 means etp = tp. Full recompute keeps the block
// input only, as dense. With tp = etp = 1 the terms were measured within 0.3 % (the peaks of
// scenarios/validation/h100x1/measured/moe_memory.jsonl,
// tests/validation/one_gpu/h100x1_moe_memory_validation_test.cpp).
double moe_block_activation_bytes_per_token(const model::ModelShape& m, int tp, bool sequence_parallel, Recompute r,
                                            int act_bytes = 2, int etp = 0);
// All of a block's activations while its backward runs under full recompute (the recomputed
// forward): the "none" value, rematerialised for one block at a time (the larger of a dense and
// an MoE block in an MoE model).
double recompute_working_bytes_per_token(const model::ModelShape& m, int tp, bool sequence_parallel,
                                         int act_bytes = 2, int etp = 0);
// The attention scores unfused attention keeps for its backward, bytes per token per layer: per
// score the softmax output (e), the dropout mask (1 B) and the dropout output (e), a s / tp scores
// per token (heads a split over TP, s keys each): (2e + 1) a s / tp. With e = 2 this is
// Korthikanti et al. 2022's 5as/(ht) x sbh per layer (section 4.1: softmax 2as^2b, mask as^2b,
// dropout output 2as^2b). Selective recompute exists to drop exactly this term.
double unfused_score_bytes_per_token(const model::ModelShape& m, int tp, int act_bytes = 2);
// Key/value heads copied to every query head before attention (training.repeat_kv): attention
// saves the copies, not the kv_heads it was given (the copy's backward needs no input), so a
// block keeps 2 (heads - kv_heads) head_dim / tp elements per token more than with grouped heads,
// added under "none" and "selective" (attention's inputs are kept there). Measured on one H100
// (scenarios/validation/h100x1/measured/llama_steps.jsonl, the same rows copied and native): 0.1 GB
// per Llama-3.1-8B block at 8,192 tokens, 0.2 at 16,384, where this gives 0.10 and 0.20.
double repeated_kv_bytes_per_token(const model::ModelShape& m, int tp, int act_bytes = 2);
// Korthikanti et al. 2022, bytes per transformer layer for s tokens, b sequences, h hidden,
// a heads, tensor-parallel degree t (the published formula, for comparison).
double korthikanti_layer_bytes(double s, double b, double h, double a, int t, bool sequence_parallel, Recompute r);

// The loss of one micro-batch, bytes per token per vocabulary entry held at the start of the
// backward: the fp32 log-softmax output 4, the loss's two fp32 gradients 8 (log-softmax's backward
// holds its incoming gradient and writes its own): 12. The model's output itself (the 16-bit
// logits, e bytes) is held too only where the training loop keeps it through the backward
// (training.keep_logits): frameworks drop it first (torchtitan's `del pred`, Transformers' Trainer
// returns the loss alone, Megatron-Core's forward returns the loss). Measured: one H100's Llama
// rows free it and peak at 12 (scenarios/validation/h100x1/measured/llama_steps.jsonl, within
// 0.1 GB); the H200 scripts keep it and peak at 14 (h200x1/ANALYSIS.md section 6). Korthikanti
// counts only the fp32 logits kept for the backward (4 per entry).
inline constexpr double kLogitBytesPerEntry = 12;
// Megatron-Core's vocab-parallel cross entropy (megatron/core/tensor_parallel/cross_entropy.py,
// the default: cross_entropy_loss_fusion off) holds less: its forward casts the e-byte logits to
// one fp32 copy (`.float()`), turns that copy into the softmax in place and saves it; its backward
// writes the gradient into the same tensor, and the cast's backward makes an e-byte copy of it. So
// 4 + e bytes per entry at either moment (the e-byte logits themselves are freed once the model's
// forward returns the loss), and 4 where the logits are fp32 already (the cast returns them).
// Measured on one H100 with its own file (scenarios/validation/h100x1/measured/loss_memory.jsonl):
// 6.000 B per logit at 4,096-8,192 tokens and vocabularies of 32,000-151,936, PyTorch's 12.000.
inline double megatron_loss_bytes_per_entry(int compute_bytes) {
  return compute_bytes >= 4 ? 4.0 : 4.0 + compute_bytes;
}
// Outside the blocks: the final norm's input and output, 2 x 2h per token.
inline constexpr double kFinalNormBytesPerHidden = 4;

// Pipeline schedules: block-micro-batches of activations stage `stage`, holding L_s layers
// (layers / pp when the stages are equal), holds at its peak.
// 1F1B (Narayanan et al. 2021; Megatron's warm-up count pp - stage - 1, then one more forward):
//   L_s x min(pp - stage, m)
// Interleaved with vp chunks per stage (Megatron's get_forward_backward_func: warm-up
// (pp - stage - 1) x 2 + (vp - 1) x pp chunks, then one more):
//   L_s/vp x min((pp - stage - 1) 2 + (vp - 1) pp + 1, m vp)
// (chunks of unequal size, pipeline_split.hpp's accounted embedding/loss, taken at their mean).
// Stage 0 with m >= pp and equal stages holds `layers` blocks (1F1B) or layers (1 + (pp-1)/(pp vp))
// (interleaved), Korthikanti et al. 2022 section 4.2.3. ZB-H1 (zero_bubble, vp = 1): stage s also
// holds its deferred W passes' inputs and output gradients, about a micro-batch each:
//   L_s x min(pp - stage + min(stage, m - min(pp - stage - 1, m)), m)
double pipeline_blocks_in_flight(int stage_layers, int pp, int vp, int stage, int micro_batches,
                                 bool zero_bubble = false);

// Model states per parameter, bytes, of Adam under ZeRO (K = 12: fp32 master, m, v; w the
// weights' and gradients' bytes, training.dtype: 2 under bf16/fp16 mixed precision, 4 in fp32).
// ZeRO (Rajbhandari et al. 2020, section 5.1, Psi = parameters, N = data-parallel degree; the
// paper's mixed-precision w = 2):
//   stage 0: w + w + K;  stage 1: w + w + K/N;  stage 2: w + (w + K)/N;  stage 3: (w + w + K)/N.
// K keeps its fp32 master in fp32 training too: DeepSpeed's optimizers clone the partition into a
// separate fp32 tensor whatever the model's dtype (stage_1_and_2.py single_partition_of_fp32_groups
// = partition.clone().float(); stage3.py _create_fp32_partitions alike), so fp32 gives
// 4 + 4 + 12 = 20 B at stage 0 and 20 / N at stage 3. DeepSpeed's estimators
// (estimate_zero2_model_states_mem_needs, estimate_zero3_model_states_mem_needs) take no dtype:
// they are this formula's w = 2.
// offload_optimizer = cpu (ZeRO-Offload): optimizer states and gradients live on the host, the
// GPU keeps its w-byte parameters (DeepSpeed's estimators: 2 Psi for stage 2, 2 Psi/N for stage 3);
// offload_param = cpu (stage 3): the parameter partition too.
struct StateBytesPerParam {
  double weights = 0, gradients = 0, optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};
// moment_bytes: Adam's m and v (4: fp32, as DeepSpeed keeps them; training.optimizer_dtype);
// weight_bytes: w above (training.dtype's bytes).
StateBytesPerParam zero_state_bytes(int stage, int n, bool offload_optimizer, bool offload_param, int moment_bytes = 4,
                                    int weight_bytes = 2);
// Megatron-LM's optimizer (docs/source/distrib_optimizer.md, "bytes per parameter", d = data-parallel
// ranks sharding the optimizer):
//                            non-distributed    distributed optimizer
//   fp16 param, fp16 grads   20 = 2 + 2 + 16    4 + 16/d  (fp32 master, main gradient copy, m, v)
//   bf16 param, fp32 grads   18 = 2 + 4 + 12    6 + 12/d  (fp32 master, m, v)
//   fp32 param, fp32 grads   16 = 4 + 4 + 8     8 + 8/d   (m, v; the parameters are the master)
// The gradients are fp32 under bf16 because Megatron turns accumulate_allreduce_grads_in_fp32 on for
// --bf16 only (arguments.py), as the step's gradient reductions do (workload/steps/megatron.cpp).
// moment_bytes 2: Megatron's precision-aware optimizer with --exp-avg-dtype / --exp-avg-sq-dtype bf16
// (training.optimizer_dtype = "bf16"): 4 + 2 + 2 = 8 B per parameter for master, m, v under bf16.
enum class MegatronDtype { Bf16, Fp16, Fp32 };  // training.dtype
StateBytesPerParam megatron_state_bytes(bool distributed_optimizer, int d, MegatronDtype dtype = MegatronDtype::Bf16,
                                        int moment_bytes = 4);

// NCCL's buffers per connection (src/include/device.h; NCCL 2.18-2.28): Simple NCCL_BUFFSIZE
// (4 MiB default), LL128 120 elements x 640 threads x 8 steps x 8 B = 4,915,200 B, LL 8 lines
// x 512 threads x 8 steps x 16 B = 524,288 B. A rank holds one set per channel per ring peer.
inline constexpr double kNcclLl128Bytes = 120.0 * 640 * 8 * 8;
inline constexpr double kNcclLlBytes = 8.0 * 512 * 8 * 16;
double nccl_buffer_bytes(int channels, int peers, double buffsize);

}  // namespace models::memory
