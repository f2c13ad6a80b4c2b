#pragma once
// The planner's space: every candidate (candidate.hpp) the options allow, with those that cannot
// run dropped by arithmetic before anything is built. The space, in full:
//   hardware   each instance of `instances` (default: the scenario's), each node count whose GPUs
//              lie in [min_gpus, max_gpus] (default: the scenario's node count), pods_per_node in
//              `pods_per_node` (dividing the GPUs a node gives the job); a multi-host NVLink domain
//              (an NVL72 rack) gives all its hosts, or `domain_hosts` of them (default: also the
//              largest power of two below all: 16 of 18 trays, the Slurm `--segment=16` NVIDIA
//              recommends for large jobs on GB200 NVL72), the rest idle but paid: a rack's 72 = 8 x 9 GPUs divide no
//              power-of-two global batch with the heads' and layers' degrees, 64 do;
//   megatron   tp a power of two dividing a pod's GPUs, the heads and the key/value heads;
//              pp dividing the layers, or a power of two or the scenario's own pp that does not
//              (first and last stages the rest of ceil(L/pp)-layer middle stages, vp 1; the
//              scenario's own split at its own pp) (<= max_pp); cp in `cp` (2 cp dividing seq); ep (MoE only)
//              dividing the experts and dp x cp (<= max_ep); vp in 1..max_vp dividing the
//              stage's layers, with m % pp == 0 (Megatron's interleaving rule); schedule 1f1b
//              (interleaved with vp > 1) or zb_h1 (pp > 1, vp = 1); sequence parallelism on
//              with tp > 1, the distributed optimizer on (both never cost time in the model and
//              save memory, so the space keeps only that setting);
//   data parallel  zero1, zero2, zero3, zero3 with the optimizer offloaded to the host, fsdp,
//              hsdp (one node's GPUs per shard group, two nodes or more), ddp; dense models only
//              (MoE layers are modelled under Megatron: make_layout refuses the others);
//   both       micro_batch in `micro_batches`, recompute in `recompute` (none, full: selective
//              recompute keeps exactly what "none" keeps in this memory model, memory_terms.hpp,
//              so it never fits where "none" does not and is left out unless asked for);
//   the batch  dp x micro_batch divides training.global_batch (m = global_batch / (dp mb)).
// Anything else the layout checks (workload::make_layout) is checked per candidate by the search.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/hw/node.hpp"
#include "models/model/model_shape.hpp"
#include "models/plan/candidate.hpp"
#include "models/spec.hpp"

namespace models::plan {

struct SpaceOptions {
  std::vector<std::string> instances;  // empty: the scenario's
  int min_gpus = 0, max_gpus = 0;      // 0: the scenario's GPU count up to its whole nodes
  std::vector<std::string> strategies = {"megatron", "zero1", "zero2", "zero3", "zero3+offload", "fsdp", "hsdp", "ddp"};
  std::vector<int> micro_batches = {1, 2, 4, 8};
  std::vector<std::string> recompute = {"none", "full"};
  // Empty: one pod per node, and the scenario's own pods where it has several (as many of its
  // GPUs per pod as a node's part holds: the seeds' 4 pods of 1 GPU become 8 on a whole p4d).
  std::vector<int> pods_per_node;
  // Hosts of a multi-host NVLink domain a node gives the job; empty: all, and the largest power
  // of two below all. Ignored for single-host nodes.
  std::vector<int> domain_hosts;
  std::vector<int> cp = {1, 2};
  int max_pp = 32, max_vp = 4;
  int max_ep = 0;           // 0: every power of two dividing the experts and dp x cp
  bool zero_bubble = true;  // also zb_h1 where it applies
};

struct SpaceStats {
  int64_t considered = 0;  // combinations looked at: the candidates plus every one dropped
  std::map<std::string, int64_t> dropped;  // reason -> count ("does not divide the global batch", ...)
  std::map<std::string, int64_t> per_instance;  // instance -> candidates (every instance asked for, 0 included)
  std::set<int> gpus, pods_per_node;            // the GPU counts and pods per node of the candidates
};

// Throws SpecError for options that leave no hardware (an unknown instance names cluster.instance;
// a GPU range with no whole node names --gpus).
std::vector<Candidate> enumerate_space(const ScenarioSpec& base, const model::ModelShape& model,
                                       const SpaceOptions& options, SpaceStats* stats = nullptr);

// The batch a scenario without training.global_batch trains per step, which the planner keeps
// fixed while the layout changes: its data-parallel ranks x micro_batch x micro-batches per step
// (grad_accum, or Megatron's), as its own layout runs it. Throws SpecError where that layout is
// not one (the scenario's own error).
struct ImpliedBatch {
  int global_batch = 0, dp = 1, micro_batch = 1, micro_batches = 1;
};
ImpliedBatch implied_global_batch(const ScenarioSpec& base, const model::ModelShape& model);

// GPU counts a job may take on one node short of all of it: the halves of a single-host node
// (4, 2, 1 of 8), as a Kubernetes pod that asks for 4 of a p4d's GPUs gets them; none for a
// multi-host NVLink domain, whose parts are whole hosts. The node is paid whole.
std::vector<int> part_of_one_node(const hw::NodeSpec& node);

// A pp that does not divide the layers, split as Megatron's decoder_first/last_pipeline_num_layers
// do: the middle stages ceil(L / pp) layers each, the first and last the rest between them (the
// last, which also holds the output layer and the loss, the smaller half). {0, 0} when pp divides
// the layers or no such split gives both ends a layer. DeepSeek-V3's 61 layers on 16 stages:
// {3, 2}, 3 + 14 x 4 + 2.
std::pair<int, int> uneven_split(int layers, int pp);

// Node counts of `gpus_per_node`-GPU nodes inside [min_gpus, max_gpus].
std::vector<int> node_counts(int gpus_per_node, int min_gpus, int max_gpus);

// The GPUs a node of `node` gives the job, most first: every GPU, and for a multi-host NVLink
// domain `domain_hosts` whole hosts of it (empty: also the largest power of two below all hosts).
// Throws SpecError for a host count the domain does not have.
std::vector<int> used_gpus_per_node(const hw::NodeSpec& node, const std::vector<int>& domain_hosts);

}  // namespace models::plan
