// The blocking tensor-parallel collectives of a Megatron layer and their lower bound (comm_bound.hpp).
#include "models/plan/comm_bound.hpp"

#include <algorithm>
#include <map>

#include "models/hw/instance.hpp"
#include "models/hw/links.hpp"
#include "models/params.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/placement.hpp"
#include "models/topology/resolve.hpp"
#include "models/workload/steps/megatron_layer.hpp"
#include "models/world/link_rates.hpp"

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

double ep_cross_node_pairs(const ScenarioSpec& spec, const workload::ParallelLayout& l) {
  if (l.ep <= 1) return 0;
  const topology::Placement place =
      topology::make_placement(spec.cluster, spec.placement, topology::resolve_node(spec.cluster).gpus);
  if (place.nodes <= 1) return 0;
  // Megatron's expert grid (megatron_groups.cpp): stage s, ETP index te, EP index e, EDP index j.
  const int stage_size = l.tp * l.cp * l.dp, edp = l.edp();
  double least = -1;
  std::map<int, int> on_node;  // node -> the group's ranks there
  for (int s = 0; s < l.pp; ++s)
    for (int te = 0; te < l.etp; ++te)
      for (int j = 0; j < edp; ++j) {
        on_node.clear();
        for (int e = 0; e < l.ep; ++e) ++on_node[place.rank(s * stage_size + te + l.etp * (e + l.ep * j)).node];
        double most = 0;
        for (const auto& [node, g] : on_node) most = std::max(most, double(g) * (l.ep - g));
        least = least < 0 ? most : std::min(least, most);
        if (least == 0) return 0;
      }
  return std::max(0.0, least);
}

double moe_comm_bound(const ScenarioSpec& spec, const model::ModelShape& m, const workload::ParallelLayout& l,
                      bool nodes) {
  if (l.strategy != workload::Strategy::Megatron || !m.is_moe() || (l.ep == 1 && l.etp == 1)) return 0;
  const workload::LayerWork w = workload::megatron_layer_work(m, l, spec.training);
  const double port = gpu_port_bytes_per_s(spec);
  double a2a = l.ep > 1 ? (l.ep - 1) * double(w.moe_a2a_bytes) / l.ep / port : 0;
  if (const double pairs = nodes ? ep_cross_node_pairs(spec, l) : 0; pairs > 0) {
    const hw::NodeSpec node = topology::resolve_node(spec.cluster);
    const topology::NodeGraph graph(node);
    const NodeLinkRates k = node_link_rates(spec, node, graph);
    const double inbound = graph.nics() * k.nic_bw * k.nic_eff + k.eth_bw;
    if (inbound > 0) a2a = std::max(a2a, pairs * double(w.moe_a2a_bytes) / l.ep / inbound);
  }
  const double etp = l.etp > 1 ? (l.etp - 1) * double(w.moe_tp_bytes) / l.etp / port : 0;
  return 2 * (a2a + etp);
}

}  // namespace models::plan
