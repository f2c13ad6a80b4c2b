#pragma once
// models::workload: how the model's code runs the attention's work around its kernel, which the
// calibration decoder (multi-head, no positions: scenarios/validation/h200x1/) does not have and
// frameworks write differently: the rotary embedding of q and k, and grouped-query attention's
// key/value heads. Each is priced from the bytes its kernels move, read from the code, at the
// measured rates of models/compute/kernels.hpp; e = compute::activation_bytes(precision), per
// rotated element (q and k, every head, / tp):
//   fused        one kernel per tensor and direction, read + write: 2 e forward, 2 e backward, at
//                the elementwise rate. Megatron-Core's apply_rope_fusion (on by default,
//                --no-rope-fusion turns it off) through Transformer Engine's fused RoPE. A
//                prediction: no fused kernel was measured.
//   complex      torchtitan's ComplexRoPE (torchtitan/models/common/rope.py): x.float() (cast up,
//                e + 4), a complex multiply by the cached frequencies (read 4 + write 4 per
//                element, elementwise), the cast back (4 + e); 3 kernels per tensor; the backward
//                the same three in reverse.
//   rotate_half  Hugging Face transformers' apply_rotary_pos_emb, q * cos + rotate_half(q) * sin
//                on the projections' views transposed to [b, heads, s, d]: q * cos (2 e), -x2 over
//                half (e), rot * sin (2 e) at the elementwise rate; the cat of the halves (2 e)
//                and the add (3 e) mix the transposed layout with cat's contiguous one, at the
//                strided-copy rate; 5 kernels per tensor. Backward: g * sin, g * cos (2 e each),
//                -g over half (e), two slice backwards (zeros e + copy of half e each) elementwise,
//                two gradient sums across the layouts (3 e each) strided; 9 kernels per tensor.
// Measured on one H100 at Llama 3.1 8B's attention (32 + 8 heads of 128, 8,192 tokens per micro-
// batch; bench/device/compute/rope_gqa.py, scenarios/validation/h100x1/measured/rope_gqa.jsonl):
// forward + backward 700 us complex (these laws: 732 us), 1,322 us rotate_half (1,395 us).
// repeat_kv (training.repeat_kv): k and v copied from kv_heads to every query head before
// attention (torchtitan's llama3 until it passed enable_gqa to SDPA, transformers' sdpa path when a
// mask is given): forward a copy from a broadcast view, e (kv + expanded) per tensor at the
// strided-copy rate; backward the sum over each group, the same bytes, elementwise (measured 222 us
// against 234 for k and v at 8,192 tokens). Attention itself runs the same FLOPs either way.
// Not priced: the rotary tables (computed once, cached) and a model without rotary positions. What
// the copies keep for the backward is the memory model's (memory_terms.hpp repeated_kv_bytes_per_token).
#include <cstdint>
#include <string>

#include "models/model/model_shape.hpp"
#include "models/spec.hpp"

namespace models::workload {

enum class Strategy;
struct ComputeRates;

enum class RopeKernels : unsigned char { Fused, Complex, RotateHalf };

struct AttentionCode {
  RopeKernels rope = RopeKernels::Fused;
  bool repeat_kv = false;
};

// training.rope and training.repeat_kv, else the framework's default for the strategy:
// megatron -> fused (Megatron-Core); zero1/2/3 -> rotate_half (DeepSpeed trains Hugging Face
// transformers' models); fsdp, hsdp, ddp -> complex (torchtitan, PyTorch's own trainer). repeat_kv
// is off unless set: torchtitan passes enable_gqa since early 2026, Megatron-Core's attention takes
// grouped heads natively, and transformers' sdpa path does too when no padding mask is given.
AttentionCode attention_code(const TrainingSpec& t, Strategy s);

struct RopeSeconds {
  double rope_fwd = 0, rope_bwd = 0;        // the rotary embedding of q and k
  double kv_copy_fwd = 0, kv_copy_bwd = 0;  // repeat_kv (0 without it, or without grouped heads)
};
// One block's share on one rank of a TP group of tp, for `tokens` tokens (0 for a model without
// rotary positions). MLA rotates its qk_rope_head_dim per query head and one shared key head.
RopeSeconds rope_seconds(const model::ModelShape& m, int64_t tokens, int tp, const ComputeRates& r);

}  // namespace models::workload
