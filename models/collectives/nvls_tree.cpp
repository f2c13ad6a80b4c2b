// NVLSTree all-reduce: NVLink SHARP inside each node, a tree of the nodes' heads across them.
//
// Inside a node the NVSwitch reduces: every rank pushes its whole buffer into the switch, which
// hands each head (one per NIC group, H per node) the node's sum of the head's slice (S/H); the
// heads run NCCL's double binary tree across the nodes on their slices (as tree.cpp's inter-node
// edges, one tree set per head); the switch then multicasts each head's final slice to every
// rank of the node. All of it is pipelined, so on idle links, for n ranks on `nodes` nodes:
//   T = kernel + 2 hop_nvlink + 2 d hop_inter + fill + max( T_sw, T_net ),   d = log2(nodes),
//   T_sw = (1 + 1/H) S / (eta_nvls cap_nvlink) (Blackwell: max(S / eta_nvls, (1 + 1/H) S) / cap_nvlink,
//   LinkParams::nvls_port_work),  T_net = S / (H cap_inter),
//   fill = min(1, H chunk / (S / channels)) ((2d + 1) T_sw + 2d T_net - max(T_sw, T_net))
// (the fill: a loop of H chunks per channel passes 2d + 1 switch stages and 2d network edges store
// and forward; chunk: NCCL's, pipeline_fill.hpp nvls_tree_chunk_bytes).
// Per rank the NVLink port moves S to the switch and S from it, plus S/H each way as a head;
// per node the network moves S each way (the heads' S/H each). No GPU adds or copies a peer's
// data over NVLink (the switch reduces), which is why NVLSTree beats a chain on NVLink. Inside
// the node the kernel is NVLS's (the same scatter, multimem.ld_reduce and multimem.st warps), so
// the ports run at the switch's rate, eta_nvls of the ring's (nvls.efficiency, nvls.cpp); the
// heads are the NVLS graph's, one per NIC and at most NCCL_MAX_NVLS_ARITY = 32 (a GB200 NVL72
// rack: 32 of its 72 GPUs; graph_search.cpp rate_nvls).
// Sources: NCCL src/device/all_reduce.h (RunWorkColl NVLS_TREE: scatter to the NVLS heads,
// reduce through NVLS and up the tree, down the tree and multicast back, gather),
// src/graph/tuning.cc (its rating and latency: 25 us intra + 2 log2(nNodes) x 20.9 us),
// src/graph/search.cc (NVLS heads: one per NIC, at most NCCL_MAX_NVLS_ARITY).
// Tests: tests/models/collectives/algorithms/nvls_tree_test.cpp.
#include <algorithm>
#include <cmath>

#include "models/collectives/engine.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "sim/check.hpp"

namespace models::collectives {

// Bytes an NVLSTree all-reduce's flows move (audit): per node, every rank's S up to the switch
// and S back down, the heads' S/H slices once more each way; across nodes 2 S per tree edge
// pair ((nodes - 1) of them per tree, two trees each carrying half).
Delivery nvls_tree_delivery(int n, int nodes, double S) {
  if (n <= 1 || S == 0) return {};
  return {2.0 * n * S + 2.0 * nodes * S + 2.0 * (nodes - 1) * S, -1.0, false};
}

void Engine::launch_nvls_tree_all_reduce(const Launch& l) {
  const CommPlan& plan = *l.plan;
  const Proto proto = l.rec.proto;
  const double inter_hop = tree_inter_hop(l);  // the heads' inter-node tree edge
  const double nvlink_hop = params_.of(LinkClass::NVLink).hop_latency_s[static_cast<int>(proto)];
  const double depth = std::log2(static_cast<double>(plan.view.nnodes));  // tree edges leaf -> root
  FlowShape whole{.bytes = l.S,
                  .proto = proto,
                  .coll_share = l.share,
                  .channels = static_cast<double>(l.rec.channels),
                  .latency = sim::Time::zero()};
  // The ports to and from the switch run at the switch's rate, as NVLS's (nvls.cpp): the same
  // kernel moves them (scatter into the NVLS buffers, multimem.ld_reduce by the heads, multimem.st).
  // On Blackwell the switch, not the port, binds (LinkParams::nvls_port_work): a head's port
  // carrying (1 + 1/H) S takes S / eta, as every other port.
  FlowShape port = whole;
  const double eta = params_.nvls_efficiency_of(plan.view.sm);
  // Folded (CommPlan::nvls_rotation): one tree set's inter-node edges and each node's GPU 0 port
  // pair, each flow for its images on the other sets and GPUs, started on folded links
  // (rotation_fold.cpp).
  if (plan.nvls_rotation > 0) start_folded();
  SIM_CHECK(collecting_, "NVLSTree's flows are set up while the launch collects them");
  const std::size_t first = block_.size();
  add_merged_flows(l.pending, plan.nvls_net_merged, whole);
  const std::size_t ports = block_.size();
  block_.reserve(block_.size() + plan.nvls_switch.size());
  block_info_.reserve(block_info_.size() + plan.nvls_switch.size());
  for (const auto& m : plan.nvls_switch) {
    port.work = LinkParams::nvls_port_work(eta, m.bytes_frac, plan.view.sm);
    add_flow(l.pending, m.edge, merged_flow_shape(m, port, /*split_channels=*/false, {}));
  }
  // The pipeline's fill (pipeline_fill.hpp loop_fill_s): a loop passes, store and forward, the
  // leaf heads' reduce through the switch, `depth` network edges and reducing heads up, the root
  // heads' reduce and multicast, `depth` edges and multicasts down: 2 depth + 1 switch stages and
  // 2 depth network edges, each at the pace of its kind's slowest flow (its bytes over its cap,
  // as just added). The scatter and gather copies (local memory) are not counted. The flows wait
  // for the launch to end (collecting), so their latency is set here.
  double t_switch = 0, t_net = 0;
  for (std::size_t i = first; i < block_.size(); ++i) {
    double& t = i < ports ? t_net : t_switch;
    t = std::max(t, static_cast<double>(block_[i].bytes) / block_[i].rate_cap);
  }
  const int heads = std::max(1, plan.view.nvls_heads);
  const double loop = static_cast<double>(heads) *
                      static_cast<double>(nvls_tree_chunk_bytes(static_cast<int64_t>(l.S), l.rec.channels, heads,
                                                                plan.view.nnodes, nvls_chunk_, nvlstree_max_chunk_));
  const double fill_s = loop_fill_s(loop, l.S / whole.channels, (2 * depth + 1) * t_switch + 2 * depth * t_net,
                                    std::max(t_switch, t_net));
  const sim::Time lat =
      sim::Time::from_seconds(params_.kernel_latency_s + 2 * nvlink_hop + 2 * depth * inter_hop + fill_s);
  for (std::size_t i = first; i < block_.size(); ++i) block_[i].latency = lat;
}

}  // namespace models::collectives
