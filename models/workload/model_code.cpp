// How the model's code runs the rotary embedding and grouped-query attention's key/value heads
// (equations and sources in model_code.hpp).
#include "models/workload/model_code.hpp"

#include "models/error.hpp"
#include "models/workload/compute.hpp"

namespace models::workload {

using compute::MemKernel;

AttentionCode attention_code(const TrainingSpec& t, Strategy s) {
  AttentionCode c;
  if (t.rope.empty()) {
    const bool deepspeed = s == Strategy::Zero1 || s == Strategy::Zero2 || s == Strategy::Zero3;
    c.rope = s == Strategy::Megatron ? RopeKernels::Fused : deepspeed ? RopeKernels::RotateHalf : RopeKernels::Complex;
  } else if (t.rope == "fused") {
    c.rope = RopeKernels::Fused;
  } else if (t.rope == "complex") {
    c.rope = RopeKernels::Complex;
  } else if (t.rope == "rotate_half") {
    c.rope = RopeKernels::RotateHalf;
  } else {
    throw SpecError("training.rope", "unknown rope '" + t.rope + "' (expected fused, complex or rotate_half)");
  }
  c.repeat_kv = t.repeat_kv;
  return c;
}

RopeSeconds rope_seconds(const model::ModelShape& m, int64_t tokens, int tp, const ComputeRates& r) {
  RopeSeconds s;
  if (m.positions != model::Positions::Rotary) return s;
  const model::AttentionShape a = m.attention();
  const double T = double(tokens), e = compute::activation_bytes(r.gpu.precision);
  // Rotated elements per token and rank: every query head's and key head's rotary dimensions.
  const double rotated = a.is_mla() ? double(a.heads * a.mla.qk_rope_head_dim) / tp + a.mla.qk_rope_head_dim
                                    : double(a.q_dim() + a.k_dim()) / tp;
  const double n = T * rotated;
  auto mem = [&](MemKernel k, double bytes, int launches) { return memory_seconds(r, k, bytes, launches); };
  constexpr int kTensors = 2;  // q and k
  switch (r.code.rope) {
    case RopeKernels::Fused:
      s.rope_fwd = mem(MemKernel::Elementwise, 2 * e * n, kTensors);
      s.rope_bwd = mem(MemKernel::Elementwise, 2 * e * n, kTensors);
      break;
    case RopeKernels::Complex:  // cast up, complex multiply, cast down; the backward alike
      s.rope_fwd =
          mem(MemKernel::CastUp, (e + 4) * n, kTensors) + mem(MemKernel::Elementwise, (8 + 4 + e) * n, 2 * kTensors);
      s.rope_bwd = s.rope_fwd;
      break;
    case RopeKernels::RotateHalf:
      s.rope_fwd =
          mem(MemKernel::Elementwise, 5 * e * n, 3 * kTensors) + mem(MemKernel::StridedCopy, 5 * e * n, 2 * kTensors);
      s.rope_bwd =
          mem(MemKernel::Elementwise, 9 * e * n, 7 * kTensors) + mem(MemKernel::StridedCopy, 6 * e * n, 2 * kTensors);
      break;
  }
  if (r.code.repeat_kv && !a.is_mla() && a.kv_heads < a.heads) {
    // k and v: kv_heads / tp heads read, heads / tp written (forward); the backward sums them back.
    const double kv = T * double(a.k_dim()) / tp, expanded = T * double(a.q_dim()) / tp;
    s.kv_copy_fwd = mem(MemKernel::StridedCopy, 2 * e * (kv + expanded), 2);
    s.kv_copy_bwd = mem(MemKernel::Elementwise, 2 * e * (kv + expanded), 2);
  }
  return s;
}

}  // namespace models::workload
