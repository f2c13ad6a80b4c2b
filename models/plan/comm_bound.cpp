// The blocking tensor-parallel collectives of a Megatron layer and their lower bound (comm_bound.hpp).
#include "models/plan/comm_bound.hpp"

#include "models/hw/instance.hpp"
#include "models/hw/links.hpp"
#include "models/params.hpp"
#include "models/workload/steps/megatron_layer.hpp"

namespace models::plan {

double gpu_port_bytes_per_s(const ScenarioSpec& spec) {
  const hw::NodeSpec& node = hw::find_instance(spec.cluster.instance);
  const auto& params = spec.cluster.params;
  double nvlink = 0;
  if (node.nvlink_gen) {  // as World::build's rates_of reads them
    const double raw = param_or(params, "nvlink.bandwidth", node.nvlink_links * hw::nvlink(node.nvlink_gen).bytes_per_s);
    nvlink = raw * param_or(params, "nvlink.efficiency.simple",
                            hw::nvlink_simple_efficiency(node.nvlink_gen, param_default("nvlink.efficiency.simple")));
  }
  const double pcie = param_or(params, "pcie.bandwidth", hw::pcie(node.pcie_gen, node.pcie_lanes).bytes_per_s);
  return nvlink + pcie;
}

TpCommBound tp_comm_bound(const ScenarioSpec& spec, const model::ModelShape& m, const workload::ParallelLayout& l) {
  TpCommBound b;
  if (l.strategy != workload::Strategy::Megatron || l.tp == 1) return b;
  const double bytes = double(workload::megatron_layer_work(m, l, spec.training).tp_bytes);
  b.collective_s = (l.tp - 1) * bytes / l.tp / gpu_port_bytes_per_s(spec);
  if (l.sequence_parallel) {
    if (l.tp_comm_overlap) return b;
    b.attn_fwd = b.mlp_fwd = 2;  // all-gather in, reduce-scatter out
    b.attn_bwd = b.mlp_bwd = 1;  // the row-parallel GEMM's output-gradient all-gather
    b.head_fwd = 1;              // the logits' input all-gather (vocab-parallel or not)
  } else {
    b.attn_fwd = b.mlp_fwd = 1;  // all-reduce after the row-parallel GEMM
    if (!l.async_tp_allreduce) b.attn_bwd = b.mlp_bwd = 1;
  }
  return b;
}

double moe_comm_bound(const ScenarioSpec& spec, const model::ModelShape& m, const workload::ParallelLayout& l) {
  if (l.strategy != workload::Strategy::Megatron || !m.is_moe() || (l.ep == 1 && l.etp == 1)) return 0;
  const workload::LayerWork w = workload::megatron_layer_work(m, l, spec.training);
  const double a2a = l.ep > 1 ? 2.0 * (l.ep - 1) * double(w.moe_a2a_bytes) / l.ep : 0;
  const double etp = l.etp > 1 ? 2.0 * (l.etp - 1) * double(w.moe_tp_bytes) / l.etp : 0;
  return (a2a + etp) / gpu_port_bytes_per_s(spec);
}

}  // namespace models::plan
