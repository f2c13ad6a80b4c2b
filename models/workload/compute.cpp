// Compute model: FLOPs and memory-bound bytes of a Llama-style decoder, and the two-parameter fit
// of the single-GPU calibration runs. Equations are stated in compute.hpp.
#include "models/workload/compute.hpp"

#include <cmath>

#include "models/error.hpp"
#include "models/params.hpp"

namespace models::workload {

ComputeRates make_rates(double peak_flops, double hbm_bytes_per_s, double host_bytes_per_s, double training_efficiency,
                        const std::map<std::string, double>& params) {
  // Defaults, units, ranges and sources: models/params.cpp.
  auto value = [&](std::string_view name) { return param_or(params, name, param_default(name)); };
  ComputeRates r{peak_flops,
                 value("compute.efficiency"),
                 hbm_bytes_per_s,
                 value("compute.hbm_efficiency"),
                 host_bytes_per_s,
                 value("host.adam_efficiency"),
                 value("host.core_bytes_per_s"),
                 value("compute.overlap_slowdown")};
  if (training_efficiency != 0) {
    if (!(training_efficiency > 0 && training_efficiency <= 1))
      throw SpecError("training.compute_efficiency", "must be a fraction in (0, 1]");
    r.efficiency = training_efficiency;
  }
  return r;
}

double block_forward_flops(const ModelShape& m, int64_t tokens, int tp) {
  // 2 FLOPs per multiply-add over the block's matrices; causal attention counted as half of
  // 4 * seq * hidden per token (QK^T and PV).
  const double matmul = 2.0 * double(tokens) * double(m.block_matmul_params());
  const double attention = 2.0 * double(tokens) * double(m.seq) * double(m.hidden);
  return (matmul + attention) / tp;
}

double head_forward_flops(const ModelShape& m, int64_t tokens, int tp) {
  return 2.0 * double(tokens) * double(m.vocab) * double(m.hidden) / tp;
}

double loss_bytes(const ModelShape& m, int64_t tokens, int tp) {
  return kLossBytesPerLogit * double(tokens) * double(m.vocab) / tp;
}

double adamw_bytes(int64_t params, int state_bytes) {
  return kAdamwTensorPasses * double(state_bytes) * double(params);
}

int dtype_bytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  throw SpecError("training.dtype", "unknown dtype '" + dtype + "' (expected bf16, fp16 or fp32)");
}

double fsdp_all_gather_copy_in_bytes(int64_t params, int n, int param_bytes) {
  const double p = double(params);
  const double copy_in = p / n * (param_bytes + 2);
  const double local = n == 1 ? p * 4 : 0;  // NCCL with one rank: an out-of-place copy
  return copy_in + local;
}

double fsdp_all_gather_copy_out_bytes(int64_t params) { return double(params) * 4; }

double fsdp_reduce_scatter_copy_in_bytes(int64_t params, int n) {
  const double p = double(params);
  const double copy_in = p * 4;
  const double local = n == 1 ? p * 4 : 0;
  return copy_in + local;
}

double fsdp_grad_cast_bytes(double shard_params, int param_bytes, bool accumulate) {
  return shard_params * (2 + param_bytes + (accumulate ? param_bytes : 0));
}

double fsdp_all_gather_bytes(int64_t params, int n, int param_bytes) {
  return fsdp_all_gather_copy_in_bytes(params, n, param_bytes) + fsdp_all_gather_copy_out_bytes(params);
}

double fsdp_reduce_scatter_bytes(int64_t params, int n, int param_bytes) {
  return fsdp_reduce_scatter_copy_in_bytes(params, n) + fsdp_grad_cast_bytes(double(params) / n, param_bytes, false);
}

StepWork single_gpu_work(const ModelShape& m, int micro_batch, bool grad_checkpointing, bool fsdp, int param_bytes) {
  const int64_t tokens = int64_t(micro_batch) * m.seq;
  const double block = block_forward_flops(m, tokens);
  const double head = head_forward_flops(m, tokens);
  StepWork w;
  // forward + backward (2x forward) + recompute of each block under checkpointing
  w.flops = m.layers * block * (grad_checkpointing ? 4 : 3) + head * 3;
  w.hbm_bytes = loss_bytes(m, tokens) + adamw_bytes(m.total_params(), param_bytes);
  if (fsdp) {
    const int64_t p = m.total_params();
    // The root unit (embedding, final norm, head) stays gathered from forward to backward (FSDP2
    // does not reshard the root after forward): blocks are gathered twice, the root once.
    const int64_t blocks = int64_t(m.layers) * m.block_params();
    w.hbm_bytes += fsdp_all_gather_bytes(p, 1, param_bytes) + fsdp_all_gather_bytes(blocks, 1, param_bytes) +
                   fsdp_reduce_scatter_bytes(p, 1, param_bytes);
  }
  return w;
}

Fit fit_single_gpu(const StepWork& a, double step_a_s, const StepWork& b, double step_b_s, double peak_flops,
                   double hbm_bytes_per_s) {
  // step = F/peak * x + B/hbm * y with x = 1/eff, y = 1/hbm_eff: a 2x2 linear system (Cramer).
  const double a1 = a.flops / peak_flops, b1 = a.hbm_bytes / hbm_bytes_per_s;
  const double a2 = b.flops / peak_flops, b2 = b.hbm_bytes / hbm_bytes_per_s;
  const double det = a1 * b2 - a2 * b1;
  if (std::abs(det) < 1e-18) return {};
  const double x = (step_a_s * b2 - step_b_s * b1) / det;
  const double y = (a1 * step_b_s - a2 * step_a_s) / det;
  return Fit{1.0 / x, 1.0 / y};
}

}  // namespace models::workload
