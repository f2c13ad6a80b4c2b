#pragma once
// The communication a Megatron rank cannot hide: the tensor-parallel collectives that run on its
// compute stream (models/workload/steps/megatron_layer.cpp), with a lower bound on each one's time.
//
// Every byte a GPU sends leaves through its NVLink port or its PCIe link, and every byte it
// receives enters through them (the World's links per GPU, models/world/world.cpp: "nvlink.tx|rx"
// of capacity eta x B_nvl, "pcie.up|down" of B_pcie; a NIC or the host is reached through the
// PCIe link, and another GPU's PCIe link through NVLink first), so no transfer moves faster than
//   B_gpu = eta_nvl x B_nvl + B_pcie      (bytes/s per direction, [cluster.params] as the World reads them).
// Over a group of n ranks and an activation of S bytes (nccl-tests' size convention):
//   all-gather      a rank receives the n - 1 shards it lacks:            (n - 1)/n S
//   reduce-scatter  a rank sends its part of the n - 1 shards it lacks:   (n - 1)/n S
//   all-reduce      at least the reduce-scatter's (ring: 2 (n - 1)/n S; NVLS: S each way)
// so each takes at least t_c = (n - 1)/n S / B_gpu, whatever algorithm, protocol or channel count
// NCCL picks (they only add latency and efficiency below 1), and its barrier only adds waiting.
//
// Collectives a layer issues on the compute stream and waits for (the stream runs them in order
// with the layer's kernels, so the stream's busy time is at least their sum plus the kernels'):
//   sequence parallel, no tp_comm_overlap:  forward  2 all-gathers + 2 reduce-scatters
//                                                     (qkv and fc1 inputs, proj and fc2 outputs);
//                                            backward the all-gathers of proj's and fc2's output
//                                                     gradients (2);
//   no sequence parallelism:                forward  the all-reduces after proj and fc2 (2);
//                                            backward the input gradients' all-reduces of qkv
//                                                     and fc1 (2) when not beside the wgrad GEMM
//                                                     (async_tp_allreduce off);
//   tp_comm_overlap: none (each runs beside a GEMM).
// Half of each count belongs to the attention half, half to the dense MLP (an MoE layer's MLP has
// none here). The collectives beside a GEMM, the embedding's and the output layer's are left out
// (the bound only needs to stay below the step). Full recompute re-runs the forward, its
// collectives included (bounds.cpp counts it with the forward).
//
// An MoE layer's MLP under Megatron (megatron_layer.cpp moe_forward, moe_backward) issues on the
// compute stream, forward and backward alike, two all-to-alls over the ep ranks (dispatch and
// combine; the backward's run them in the other order) of S_a bytes each (moe_a2a_bytes: the
// routed tokens' hidden states, with the expert load), and with etp > 1 an all-gather and a
// reduce-scatter over the etp ranks of S_t (moe_tp_bytes). In an all-to-all each rank receives
// S_a / ep from each of its ep - 1 peers (collectives/engine.cpp expected_delivery), so
// (ep - 1)/ep S_a enter through its ports; each of the four takes at least its bytes over B_gpu:
//   t_a2a >= (ep - 1)/ep S_a / B_gpu,   t_moe = 2 t_a2a + 2 (etp - 1)/etp S_t / B_gpu   per MoE layer, each way.
// Across nodes an all-to-all is also bounded by the nodes' network: its members arrive, then all
// its flows start together and every member is released when the last ends
// (workload/executor.cpp launch, collective_done), so it lasts at least as long as any link needs
// for the bytes it carries. Every byte a node receives from another node enters through one of
// its network links ("nic<n>.rx", "eth.rx": world.cpp; a node is a whole NVLink domain, so no
// NVLink joins two), whose capacities add up to at most
//   C_in = nics x eta_nic x B_nic + B_eth      (link_rates.cpp; a straggler's NIC only slower).
// A node holding g of the group's n ranks receives g (n - g) S_a / n from the others, so
//   t_a2a >= max over nodes of g (n - g) S_a / (n C_in),
// taken for the EP group where it is least (every rank's bound must hold), with the ranks placed
// as the run places them (topology/placement.hpp) and the groups as Megatron's grid builds them
// (workload/steps/megatron_groups.cpp).
#include "models/spec.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/layout.hpp"

namespace models::plan {

// B_gpu above, bytes/s: the fastest a GPU can send (or receive) through all its ports together.
double gpu_port_bytes_per_s(const ScenarioSpec& spec);

// A lower bound on each of a layer's blocking tensor-parallel collectives, and their counts.
struct TpCommBound {
  double collective_s = 0;      // t_c: (tp - 1)/tp x the activation's bytes / B_gpu
  int attn_fwd = 0, mlp_fwd = 0;  // blocking collectives per half-layer, forward
  int attn_bwd = 0, mlp_bwd = 0;  // ... backward
  int head_fwd = 0;               // the output layer's (its input's all-gather with sequence parallelism)
};
TpCommBound tp_comm_bound(const ScenarioSpec& spec, const model::ModelShape& model,
                          const workload::ParallelLayout& layout);

// t_moe above, seconds: an MoE layer's blocking expert-parallel collectives, forward (the
// backward's are the same four); 0 for a dense model or outside Megatron. nodes off: without the
// nodes' network term (bench_plan's comparison).
double moe_comm_bound(const ScenarioSpec& spec, const model::ModelShape& model, const workload::ParallelLayout& layout,
                      bool nodes = true);

// min over EP groups of max over nodes of g (n - g) (above): the least, in units of S_a / n, that
// some node of every group must receive from its other nodes; 0 when every group is on one node.
double ep_cross_node_pairs(const ScenarioSpec& spec, const workload::ParallelLayout& layout);

}  // namespace models::plan
