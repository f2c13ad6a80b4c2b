#pragma once
// One point of the planner's space: an instance and a node count, how pods split the nodes, a
// strategy with its degrees, the micro-batch and the activation recompute. apply_candidate writes
// it into a copy of the base scenario (every other key stays as the scenario has it), so a
// candidate runs through run_scenario exactly as the same scenario written by hand would.
#include <string>
#include <vector>

#include "models/spec.hpp"

namespace models::plan {

struct Candidate {
  std::string instance;  // catalog name
  int nodes = 1;
  int gpus_per_node = 8;  // GPUs a node gives the job: the instance's, or whole hosts of a multi-host domain
  int node_gpus = 0;      // the instance's GPUs per node (0: gpus_per_node); the rest idle, but paid
  int pods_per_node = 1;
  std::string strategy = "megatron";  // megatron | zero1 | zero2 | zero3 | fsdp | hsdp | ddp
  bool offload = false;               // zero3: optimizer states on the host (offload_optimizer = cpu)
  // zero3: parameters on the host too (offload_param); an --include layout's only, the planner
  // never searches it (its own zero3+offload keeps the parameters on the GPU)
  bool offload_params = false;
  int tp = 1, pp = 1, cp = 1, ep = 1, vp = 1;
  // Megatron with a pp that does not divide the layers: the first and last stages' layer counts
  // (decoder_first/last_pipeline_num_layers), the other stages an even share; 0: an even split.
  int first_stage_layers = 0, last_stage_layers = 0;
  int etp = 0;                    // MoE: expert tensor parallelism; 0 = tp (Megatron-Core's default)
  std::string schedule = "1f1b";  // megatron with pp > 1: 1f1b (interleaved with vp > 1) | zb_h1
  int micro_batch = 1;
  std::string recompute = "none";  // none | full
  bool sequence_parallel = false;  // megatron, tp > 1
  bool distributed_optimizer = false;

  int gpus() const { return nodes * gpus_per_node; }
  int model_parallel() const { return tp * pp * cp; }
  int dp() const { return gpus() / model_parallel(); }
};

// The base scenario with `c` written in: cluster.instance and nodes (groups and [cluster.node]
// dropped), placement (pods_per_node, GPUs split evenly among them), parallel, training
// (micro_batch, grad_accum = global_batch / (dp x micro_batch), recompute), zero (stage, offload).
ScenarioSpec apply_candidate(const ScenarioSpec& base, const Candidate& c);
// A scenario's own price ([cluster] price_per_hour, [cluster.params] "price.gpu_hour") is its
// instance's: dropped from `s` when `instance` is another, which the file or the catalog prices.
void drop_other_instance_price(ScenarioSpec& s, const std::string& instance);
// Those prices' keys, as `--set` and ScenarioOverrides::remove write them (the per-GPU price
// both as a quoted key and as a dotted one).
inline constexpr const char* kOwnPriceKeys[] = {"cluster.price_per_hour", "cluster.params.\"price.gpu_hour\"",
                                                "cluster.params.price.gpu_hour"};

// The layout in one readable line: "megatron tp8 pp4 vp2 dp32 sp dist-opt mb1 recompute=full,
// 2 pods of 32 GPUs per node, 64 of 72 GPUs per node" (what differs from plain defaults only; the last part where
// hosts of an NVLink domain idle).
std::string layout_text(const Candidate& c);
// The same candidate as edits of the scenario file: keys to remove, then `--set KEY=VALUE`
// overrides (values in TOML syntax). Loading the base file with these gives apply_candidate's
// spec (tests/models/plan check it by running both); `commsim plan --emit` writes the result.
struct ScenarioOverrides {
  std::vector<std::string> remove;  // dotted keys (a table or a value)
  std::vector<std::string> set;     // KEY=VALUE
};
ScenarioOverrides candidate_overrides(const ScenarioSpec& base, const Candidate& c);

}  // namespace models::plan
