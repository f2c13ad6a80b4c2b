#pragma once
// The data-parallel gradient and parameter communication every rank must move in one step, and
// the least time its links need for it: a second lower bound on the step beside the compute
// stream's (bounds.hpp takes the larger).
//
// Which collectives, and their bytes S (nccl-tests' size convention, the gathered or reduced
// total), are those the step's programs issue, over groups of n ranks:
//   DDP, ZeRO-1/2/3 (offload too), FSDP2, HSDP: the collectives of the strategy's own program
//     (workload/steps/data_parallel.hpp build_data_parallel_program, every rank runs it): slot 0
//     the data-parallel group (HSDP: the shard group), slot 1 HSDP's replica group;
//   Megatron: per rank of stage s, the gradients of its dense parameters reduced over dp x cp
//     (all-reduce, or reduce-scatter under the distributed optimizer, megatron_grad_bytes each)
//     and with the distributed optimizer their all-gather (megatron_param_bytes), and the routed
//     experts' the same over the expert-data-parallel ranks (megatron.hpp
//     megatron_stage_grad_params), once per step whatever the buckets or overlap.
// Every one of them is issued and completes inside the step (the programs hold nothing across
// steps), so its bytes cross their links inside [start, end) of the step.
//
// A rank, per direction (whatever algorithm NCCL picks: ring, tree, NVLS, CollNet), data moved
// as it is (nothing compresses it):
//   all-gather      receives the n - 1 shards it lacks:                      (n - 1)/n S in
//   reduce-scatter  sends its contribution to the n - 1 shards others own:   (n - 1)/n S out
//   all-reduce      every other rank's result depends on each of its S elements, so they all
//                   leave it (alone or summed with others'), and its own result needs the
//                   others' sum of every element, which only arrives:            S out, S in
// (ring: 2 (n - 1)/n S each way, tree and NVLS and CollNet S or more; in-switch reduction can
// shrink a reduce-scatter's in and an all-gather's out, never these). Those bytes
// leave or enter through the GPU's NVLink port and PCIe link, B_gpu per direction together
// (comm_bound.hpp gpu_port_bytes_per_s), so
//   T_step >= max(sum out, sum in) / B_gpu.
// A node (a whole NVLink domain, no NVLink to another) holding g of a group's n ranks, per group:
//   all-gather      receives the shards of the n - g ranks elsewhere:                 (n - g)/n S in
//   reduce-scatter  sends its ranks' contributions to the shards owned elsewhere, each
//                   element at least once (summed inside the node or not):         (n - g)/n S out
//   all-reduce      as a rank's above, the node's sum for g < n:                   S out, S in
// through its network links, at most C = nics x eta_nic x B_nic + B_eth per direction
// (link_rates.cpp; a straggler's NIC only slower), summed over every group with ranks on it:
//   T_step >= max over nodes of max(sum out, sum in) / C.
// Each is a bound on the step by itself, whatever overlaps what; the compute stream's bound
// (bounds.hpp) is another, so the step is at least the largest of the three.
#include "models/model/model_shape.hpp"
#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"

namespace models::plan {

struct DpCommBound {
  double rank_out_bytes = 0, rank_in_bytes = 0;  // the busiest rank's sums above
  double node_out_bytes = 0, node_in_bytes = 0;  // the busiest node's sums (0 on one node)
  double port_s = 0;                             // max(rank out, rank in) / B_gpu
  double network_s = 0;                          // max over nodes of max(out, in) / C
};

// `rates`: the step's (the data-parallel program is built with them; they do not change its bytes).
DpCommBound dp_comm_bound(const ScenarioSpec& spec, const model::ModelShape& model,
                          const workload::ParallelLayout& layout, const workload::ComputeRates& rates);

}  // namespace models::plan
