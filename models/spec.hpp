#pragma once
// models::ScenarioSpec: everything a run needs, as plain data. The scenario loader (scenarios/)
// fills it from TOML; tests build it directly. Field names follow the scenario contract in
// docs/design.md: NCCL variables verbatim, DeepSpeed zero_optimization keys verbatim.
// Sizes are bytes, bandwidths bytes/s, times seconds (double) at this edge.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace models {

// A node described in the scenario instead of taken from the catalog ([cluster.node]).
struct CustomNodeSpec {
  std::string gpu;  // catalog GPU name, e.g. "H200"
  int gpus = 0;
  std::string nvlink;    // "" (none), "nvlink4", ... see models/hw
  int nvlink_links = 0;  // links per GPU
  bool nvswitch = false;
  std::string pcie = "gen5";  // PCIe generation of the GPU slots
  int pcie_lanes = 16;
  int numa_nodes = 1;
  int nics = 0;
  double nic_bytes_per_s = 0;       // per NIC
  std::string nic_kind = "efa";     // efa | ib | roce | eth
  double eth_bytes_per_s = 0;       // the host's ordinary (ENA/virtio) interface, for Socket
  double host_mem_bytes_per_s = 0;  // 0: catalog default
  std::string topo_file;            // nvidia-smi topo -m output to import (optional)
};

// The network between nodes ([cluster.fabric]; models/topology/fabric.hpp states the model).
struct FabricSpec {
  std::string topology = "nonblocking";  // nonblocking | rail | fat_tree
  double oversubscription = 1;           // above each pod of pod_nodes nodes (1: full bisection)
  int pod_nodes = 0;                     // nodes per pod (0: every node in one pod)
  std::string spreading;                 // spray (EFA SRD) | ecmp; "": spray on EFA, ecmp otherwise
  int uplinks = 0;                // equal-cost uplinks per switch group (0: one per NIC below, / oversubscription)
  double uplink_bytes_per_s = 0;  // per uplink (0: the NIC line rate)
  std::optional<double> switch_latency_s;  // one switch traversal (default by NIC kind, fabric.cpp)
  // A third tier (fat_tree, rail): pods grouped into superpods of superpod_nodes nodes (a multiple
  // of pod_nodes); oversubscription is then the ratio inside a superpod, and above each superpod
  // its uplink carries its pods' uplinks / superpod_oversubscription. 0: two tiers.
  int superpod_nodes = 0;
  double superpod_oversubscription = 1;
  // SHARP in the switches (InfiniBand only: NVIDIA Quantum / Quantum-2 / Quantum-X800 with the
  // aggregation manager running): NCCL's CollNet algorithms where NCCL_COLLNET_ENABLE=1.
  bool sharp = false;
};

// One group of a mixed cluster ([[cluster.groups]]): `nodes` nodes of catalog instance
// `instance`, after the previous groups' nodes (models/world/node_kinds.hpp states the model).
struct NodeGroupSpec {
  std::string instance;
  int nodes = 1;
};

// A node's price ($ per hour) given by the scenario ([cluster] price_per_hour) or by the user's
// price file (--prices FILE), with where it came from (models/run/cost.hpp says which wins).
// The highest price a node may be given, $ per hour: far above any machine sold (a p5.48xlarge is
// about $55), low enough that a run's cost stays a printable number.
inline constexpr double kMaxUsdPerHour = 1e6;

struct PriceSpec {
  double usd_per_hour = 0;
  std::string source;   // "scenario [cluster] price_per_hour", "prices.toml:3:1", ...
  std::string pricing = "given";  // how it is sold: "on-demand", "capacity block" (catalog or the user's); "given": the
                                  // user's figure, billed by the second
  int unit_gpus = 0;  // GPUs per unit sold where the node is several (hw::InstancePrice::unit_gpus); 0: sold whole
};

struct ClusterSpec {
  std::string instance;               // catalog name; empty when `node` is given (with groups: the first group's)
  int nodes = 1;                      // with groups: their sum
  std::vector<NodeGroupSpec> groups;  // mixed instance groups; empty: every node is `instance` or `node`
  std::optional<CustomNodeSpec> node;
  std::string profile;  // calibration profile path (TOML written by `commsim calibrate`)
  // Where the profile's fit was measured (its [fitted] table): the instance, the GPU, and the node
  // counts of the files that crossed a network (empty: every file on one node). A run elsewhere
  // says so in its caveats.
  struct ProfileFit {
    std::string file, instance, gpu;
    std::vector<int> nodes;
    // Parameters held fixed in the fit (`calibrate --fix`): a refit holds them again.
    std::vector<std::string> fixed;
  };
  std::optional<ProfileFit> profile_fit;
  // Physical parameters by name, e.g. {"nvlink.hop_latency.simple", 3.1e-6}: the loader puts the
  // profile's values here first, then the scenario's own [cluster.params], which win.
  // Names are listed by models/comm_plan/link_params.hpp; an unknown name is a SpecError.
  std::map<std::string, double> params;
  FabricSpec fabric;
  std::optional<PriceSpec> price;           // [cluster] price_per_hour: one node of this cluster, $/h
  std::map<std::string, PriceSpec> prices;  // --prices FILE: $/h per node by instance name
};

struct PlacementSpec {
  int pods_per_node = 1;
  int gpus_per_pod = 0;  // 0: all GPUs of the node divided among its pods
  bool host_ipc = true;  // pods share the host IPC namespace (/dev/shm)
  bool host_network = false;
  bool efa_plugin_ok = true;    // false: aws-ofi-nccl finds no provider and NCCL falls back to Socket
  bool single_process = false;  // one process drives all GPUs of a pod (nccl-tests -g N): P2P/direct pointer
  int nics_per_pod = 0;         // NICs a pod holds (vpc.amazonaws.com/efa: N); 0: its share of the node's
};

struct ModelSpec {
  std::string preset;  // llama-3-8b, llama-3-70b, llama-2-7b, ... or empty
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0;
  int seq = 2048;
  std::optional<bool> tied_embeddings;  // unset: the preset's (else untied)
  std::string mlp;  // "" (the preset's, else swiglu) | swiglu (3 matrices, Llama) | gelu (2, GPT)
  // Decoders that are not Llama-shaped (models/model/model_shape.hpp); unset / empty: the preset's.
  int head_dim = 0;           // per-head width when not hidden / heads (Qwen3, gpt-oss)
  std::string norm;           // "" | rmsnorm | layernorm (weight and bias)
  std::optional<bool> biases;  // every linear layer carries a bias (GPT-2, gpt-oss)
  std::string positions;      // "" | rotary | learned (a max_positions x hidden table)
  int max_positions = 0;      // rows of the learned position table (0: seq)
  // Multi-head latent attention (models/model/attention.hpp); kv_lora_rank > 0 turns it on.
  std::optional<int> q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
  // Mixture of experts (models/model/moe.hpp); unset: the preset's (a dense preset has none).
  std::optional<int> experts;          // routed experts E (0: dense)
  std::optional<int> top_k;            // experts per token
  std::optional<int> moe_ffn;          // an expert's ffn width (unset: ffn)
  std::optional<int> shared_experts;   // always-on experts of width moe_ffn
  std::optional<int> moe_first_dense;  // the first layers stay dense
  std::optional<int> moe_stride;       // moe_layers: "every" = 1, or every n-th layer after those
  std::optional<double> capacity_factor;             // Megatron's --moe-expert-capacity-factor (unset: dropless)
  std::optional<bool> pad_expert_input_to_capacity;  // --moe-pad-expert-input-to-capacity
  std::optional<double> token_skew;  // busiest expert rank's tokens / the average (1: balanced)
};

struct TrainingSpec {
  int micro_batch = 1;
  int grad_accum = 1;
  int steps = 1;
  bool grad_checkpointing = false;
  std::string dtype = "bf16";    // activations and collectives (the loader sets it from precision)
  std::string param_dtype = "";  // parameters the optimizer updates; "": the framework's default
                                 // (fp32 master for megatron and zero3, else dtype)
  std::string precision = "";    // bf16 | fp16 | fp8: the GEMMs' format; "": dtype's
  std::string reduce_dtype = "";  // fsdp, hsdp: FSDP2's MixedPrecisionPolicy.reduce_dtype, the dtype
                                  // gradients are reduced in; "": dtype's (FSDP2's default)
  std::string optimizer = "adamw";
  std::string optimizer_impl = "";          // foreach | fused | for_loop; "": the framework's default
  std::string optimizer_dtype = "";         // Adam's m and v: fp32 | bf16 | fp16; "": as the framework keeps
                                            // them (torch AdamW: the parameters' dtype; Megatron, DeepSpeed: fp32)
  double compute_efficiency = 0;            // 0: model default (fraction of peak)
  int cpu_threads = 0;                      // OMP_NUM_THREADS per rank for host work (CPU-Adam); 0: as
                                            // torchrun sets it (1 with several processes per pod, else all)
  int global_batch = 0;                     // sequences per step over all replicas; 0: grad_accum is given
  // global_batch is a DeepSpeed JSON's train_batch_size: messages name it so, and when grad_accum
  // is given too (grad_accum_given) the three must agree with dp, as DeepSpeed requires
  // (deepspeed/runtime/config.py _batch_assertion), instead of grad_accum following from it.
  bool global_batch_from_deepspeed = false;
  bool grad_accum_given = false;
  double tokens = 0;                        // training target in tokens (0: training.steps steps)
  std::string recompute;                    // "" (grad_checkpointing decides) | none | selective | full
  std::string checkpoint_impl;              // full recompute: "" (the strategy's framework) | reentrant | non_reentrant
  int checkpoint_every = 1;  // full recompute on every N-th block only (torchtitan's selective_ac_option)
  std::string attention_backend = "flash";  // flash (FlashAttention/cuDNN) | unfused (explicit softmax)
  std::string rope;                         // "" (the strategy's framework) | fused | complex | rotate_half
  bool repeat_kv = false;                   // k and v copied to every query head before attention
  bool keep_logits = false;                 // the loop holds the model's output through the backward
  std::string loss_impl;                    // the cross entropy: "" (the strategy's framework) | pytorch | megatron
};

struct ParallelSpec {
  std::string strategy = "zero3";  // zero3 | zero2 | zero1 | fsdp | hsdp | ddp | megatron
  int tp = 1, pp = 1, dp = 0;      // dp 0: derived from the GPU count
  // hsdp: ranks of one shard group (torchtitan's data_parallel_shard_degree); 0: one node's ranks.
  int dp_shard = 0;
  int micro_batches = 0;  // pipeline micro-batches per step (0: grad_accum)
  // Megatron-LM / Megatron-Core options (models/workload/layout.hpp says what each one does).
  int cp = 1;  // context parallelism (ring attention)
  int ep = 1;  // expert parallelism (MoE models): experts split over ep ranks of the dp x cp ranks
  // expert tensor parallelism (MoE models, Megatron-Core's --expert-tensor-parallel-size): each
  // routed expert's ffn split over etp ranks; 0: unset, etp = tp (Megatron-Core's default)
  int etp = 0;
  int vp = 1;  // virtual pipeline stages per rank (interleaved 1F1B)
  // Unequal pipeline stages, Megatron-Core's options (models/workload/pipeline_split.hpp); 0: unset.
  int decoder_first_pipeline_num_layers = 0, decoder_last_pipeline_num_layers = 0;
  bool account_for_embedding_in_pipeline_split = false, account_for_loss_in_pipeline_split = false;
  bool use_tp_pp_dp_mapping = false;  // rank order tp-cp-pp-dp instead of tp-cp-dp-pp (layout.hpp)
  bool sequence_parallel = false;
  bool distributed_optimizer = false;
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;
  bool scatter_gather_tensors_in_pipeline = false;  // Megatron-LM <= 2022: p2p sends 1/tp, then all-gather
  std::optional<bool> overlap_p2p_comm;             // unset: Megatron-Core's default (on with vp > 1)
  // "1f1b" (plain, or interleaved with vp > 1) | "zb_h1" (zero bubble, Qi et al. 2024; vp = 1).
  std::string pipeline_schedule = "1f1b";
  // false: embedding and output layer replicated on every TP rank (plain PyTorch tensor
  // parallelism, bench/device/steps/torch_tp_step.py), not split over the vocabulary as Megatron-LM does.
  bool vocab_parallel = true;
  // Megatron-LM's --make-vocab-size-divisible-by: the vocabulary is padded to a multiple of this x tp
  // (tokenizer.py _vocab_size_with_padding), so each rank's share of the output layer runs aligned
  // GEMMs (models/compute/gemm.hpp); 1: no padding (plain PyTorch, bench/device/steps/torch_tp_step.py).
  int make_vocab_size_divisible_by = 128;
  // Megatron-LM's --async-tensor-model-parallel-allreduce (on since 2021): the backward's input-
  // gradient all-reduce runs beside the wgrad GEMM; false: after it, on the compute stream (plain
  // PyTorch autograd with Megatron's f/g functions, bench/device/steps/torch_tp_step.py).
  bool async_tensor_model_parallel_allreduce = true;
};

struct ZeroSpec {
  int stage = 3;
  bool overlap_comm = true;
  bool contiguous_gradients = true;
  std::string offload_optimizer = "none";  // none | cpu
  std::string offload_param = "none";      // none | cpu
  double stage3_prefetch_bucket_size = 5e7;
  double reduce_bucket_size = 5e8;
  double stage3_max_live_parameters = 1e9;
  double stage3_param_persistence_threshold = 1e5;
  double sub_group_size = 1e9;
  double stage3_max_reuse_distance = 1e9;  // DeepSpeed default; params kept if reused within it
  std::vector<std::string> unmodelled;     // keys set that change DeepSpeed's timing but not ours
};

// An engine-level job: one collective, repeated (scenarios without a model, and nccl-tests).
struct CollectiveSpec {
  std::string op = "all_reduce";  // all_reduce | all_gather | reduce_scatter | broadcast | reduce | alltoall | sendrecv
  int64_t bytes = 0;              // nccl-tests "size" convention (total for all_gather/reduce_scatter)
  int iterations = 1;
};

// A slow rank or node ([[stragglers]]): its compute takes compute_slowdown times as long; its
// node's NICs (those its GPUs send through) move nic_bandwidth_factor of their line rate. Or a
// slow link: every link whose name (as `commsim topo` and run --json name links) matches `link`
// ('*' any run of characters, '?' one) keeps bandwidth_factor of its capacity and takes
// latency_factor times its latency (models/world/link_stragglers.hpp).
struct StragglerSpec {
  std::vector<int> ranks;   // World ranks; empty when `node` or `link` is given
  std::optional<int> node;  // a whole node
  std::string link;         // a link name or pattern; "" when ranks or node is given
  double compute_slowdown = 1;
  double nic_bandwidth_factor = 1;
  double bandwidth_factor = 1;  // link: fraction of its capacity left, (0, 1]
  double latency_factor = 1;    // link: its latency multiplied, >= 1
};

// One of several jobs placed on one cluster ([[jobs]]; models/run/jobs.hpp states the model):
// the tables a single-job scenario has at its top level, on a node range of the cluster. The
// cluster, its fabric and [nccl.env] are the scenario's, shared by every job.
struct JobSpec {
  std::string name;
  std::optional<int> first_node;  // nodes = [first, last]; unset: `nodes` placed first-fit
  int nodes = 0;                  // node count
  PlacementSpec placement;
  std::optional<ModelSpec> model;
  TrainingSpec training;
  ParallelSpec parallel;
  ZeroSpec zero;
  std::optional<CollectiveSpec> collective;
};

struct ScenarioSpec {
  std::string name;
  std::string source_file;  // for messages
  ClusterSpec cluster;
  PlacementSpec placement;
  std::map<std::string, std::string> nccl_env;
  int nccl_version = 0;  // nccl.version: the run's NCCL release (nccl/tuner_tables.hpp; 0: the default)
  // The file [nccl.env] NCCL_TUNER_CONFIG_FILE names, as the loader read and checked it (NCCL's
  // example tuner plugin's rows: nccl/example_tuner.hpp); empty where none is named.
  std::string nccl_tuner_config;
  std::optional<ModelSpec> model;
  TrainingSpec training;
  ParallelSpec parallel;
  ZeroSpec zero;
  std::optional<CollectiveSpec> collective;
  std::vector<StragglerSpec> stragglers;
  std::vector<JobSpec> jobs;  // several jobs on one cluster; empty: the top-level tables are the one job
};

}  // namespace models
