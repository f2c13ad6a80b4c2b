#pragma once
// models::workload::ParallelLayout: how a run's ranks split into parallel dimensions, and how a
// step's batch splits into micro-batches, validated in one place (as Calculon's Llm.Execution
// checks num_procs == tp x pp x dp once). Every user error about [parallel] (and ZeRO's stage,
// [training]'s global_batch and recompute) is raised here, at the key at fault; the program
// builders (data_parallel.cpp, megatron*.cpp) take a valid layout and only check it as an invariant.
//
//   zero3     DeepSpeed ZeRO stage 3 over dp = all ranks (parameters, gradients, optimizer
//             state sharded); fsdp: PyTorch FSDP2 full sharding (ZeRO-3 semantics, its own
//             copies and casts); ddp: replicated parameters, bucketed gradient all-reduce.
//   zero1     DeepSpeed ZeRO stage 1 (optimizer states sharded) and zero2 (gradients too), both
//   zero2     DeepSpeed's stage_1_and_2.py engine; parameters replicated (zero12_step.cpp). The
//             strategy and zero.stage (the [zero] table or the DeepSpeed JSON) agree: the loader
//             derives the one not written from the other (deepspeed_config.cpp resolve_zero_stage),
//             and make_layout refuses a contradiction at zero.stage.
//   hsdp      PyTorch FSDP2 on a 2-D mesh (replicate, shard) (FSDP1: HYBRID_SHARD): parameters,
//             gradients and optimizer states sharded over dp_shard consecutive ranks (default:
//             the ranks of one node), replicated over dp / dp_shard such groups (fsdp_step.cpp).
//   megatron  tp x cp x pp x dp = world size, in Megatron-Core's rank order (kMegatronOrder).
//             tp divides the heads and the KV heads; the layers split over pp x vp chunks
//             as pipeline_split.hpp says; 2 cp divides the
//             sequence (TransformerEngine's load-balanced causal split cuts it into 2 cp chunks).
// Batch: grad_accum = training.global_batch / (micro_batch x dp), an error when it does not
// divide; without global_batch, training.grad_accum. Megatron's pipeline runs grad_accum
// micro-batches (parallel.micro_batches, an older key, overrides it).
// Recompute: training.recompute = none | selective | full; grad_checkpointing = true means full.
//
// Expert parallelism (MoE models, megatron only): Megatron-Core's expert grid
//   (megatron/core/parallel_state.py initialize_model_parallel: expert_tensor_parallel_size etp,
//   tp when unset; expert_data_parallel_size = world / (etp ep pp); the expert rank generator's
//   order "tp-ep-dp-pp" with tp = etp and cp = 1): within a pipeline stage the tp x cp x dp ranks
//   split again into etp x ep x edp, edp = tp cp dp / (etp ep), etp fastest, then ep. With y the
//   rank's index inside its stage (y = t + tp (c + cp d)), y = te + etp (e + ep j): an ETP group is
//   etp consecutive ranks, an EP group ep ranks etp apart, an EDP group (an expert's gradients) edp
//   ranks etp ep apart. With etp = tp (the default) an ETP group is the TP group and ep must
//   divide cp dp. ep divides the experts, etp the expert ffn (moe_ffn), etp ep the tp cp dp ranks of
//   a stage; with tp > 1 sequence parallelism is required (Megatron-LM arguments.py: "When using
//   MoE and tensor parallelism, sequence parallelism must be used").
// Adding a strategy is an enum value, its checks in make_layout and its builder in strategy.cpp. Adding a Megatron
// dimension (ep: expert parallelism) is a field, a Dim value, its place in kMegatronOrder (Megatron-Core's
// "tp-cp-ep-dp-pp"), its degree in degree(), and its checks in make_layout: megatron_rank and
// megatron_coord then place it, and every group built from the grid follows.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/spec.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/pipeline_split.hpp"

namespace models::workload {

enum class Strategy { Zero3, Fsdp, Ddp, Megatron, Zero1, Zero2, Hsdp };
// "zero3", "fsdp", "ddp", "megatron", "zero1", "zero2", "hsdp": the scenario's values
const char* strategy_name(Strategy s);
std::optional<Strategy> parse_strategy(std::string_view name);

// Activation recomputation (Korthikanti et al. 2022): none keeps every activation; selective
// recomputes only attention's core (QK^T, softmax, dropout, PV) in the backward; full keeps each
// layer's input and recomputes the whole layer forward, its communication included.
// selective_op is torchtitan's per-op selective checkpointing (selective_ac_option = "op"): every
// block under the checkpoint, the outputs of every other matmul (its 1st, 3rd, ... of the block's
// forward), attention and reductions kept, the rest recomputed (compute.hpp BlockSeconds
// fwd_op_rerun; memory_terms.hpp).
enum class Recompute { None, Selective, Full, SelectiveOp };
const char* recompute_name(Recompute r);  // "none", "selective", "full", "selective_op"

// The dimensions of Megatron's rank grid, fastest first.
enum class Dim { Tp, Cp, Dp, Pp };
inline constexpr std::array kMegatronOrder = {Dim::Tp, Dim::Cp, Dim::Dp, Dim::Pp};
// Megatron-Core's --use-tp-pp-dp-mapping (initialize_model_parallel order "tp-cp-ep-pp-dp"), the
// order Llama 3 was trained in (Dubey et al. 2024, section 3.3.2: "[TP, CP, PP, DP]"): a
// pipeline's stages on neighbouring nodes, data parallelism outermost.
inline constexpr std::array kTpPpDpOrder = {Dim::Tp, Dim::Cp, Dim::Pp, Dim::Dp};

struct ParallelLayout {
  Strategy strategy = Strategy::Zero3;
  int tp = 1;                                 // tensor-parallel degree (megatron)
  int cp = 1;                                 // context-parallel degree (megatron)
  int pp = 1;                                 // pipeline stages (megatron)
  int vp = 1;                                 // virtual pipeline stages (model chunks) per pipeline rank (megatron)
  int dp = 1;                                 // data-parallel degree
  int dp_shard = 1;                           // hsdp: ranks of one shard group (consecutive); dp / dp_shard replicas
  int ep = 1;                                 // expert-parallel degree (MoE, megatron): etp x ep divides tp x cp x dp
  int etp = 1;                                // expert tensor-parallel degree (MoE, megatron): parallel.etp, else tp
  int micro_batch = 1;                        // sequences per micro-batch
  int grad_accum = 1;                         // micro-batches per step per data-parallel replica
  int pipeline_micro_batches = 1;             // micro-batches through the pipeline (megatron)
  PipelineSplit split;                        // layers per model chunk (megatron; pipeline_split.hpp)
  std::array<Dim, 4> order = kMegatronOrder;  // rank grid order, fastest first
  Recompute recompute = Recompute::None;
  // Full recompute by PyTorch's non-reentrant checkpoint, which stops rerunning a block's forward
  // once the last tensor its backward saved is back (training.checkpoint_impl; layout.cpp).
  bool recompute_stops_early = false;
  // Full recompute on every N-th block only, blocks N, 2N, ... counted from 1 (torchtitan's
  // selective_ac_option = "N"): layers / N blocks checkpointed (checkpointed_blocks()).
  int checkpoint_every = 1;
  // The loss is Megatron-Core's vocab-parallel cross entropy, not PyTorch's (training.loss_impl;
  // layout.cpp): it holds less memory per logit.
  bool megatron_loss = false;
  // Megatron-LM / Megatron-Core options (what each does: megatron.hpp).
  bool sequence_parallel = false;
  bool distributed_optimizer = false;
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool overlap_p2p_comm = false;
  bool zero_bubble = false;  // ZB-H1's schedule (pipeline_schedule.hpp) instead of 1F1B
  bool tp_comm_overlap = false;
  bool scatter_gather_p2p = false;
  int vocab_multiple = 128;        // the vocabulary padded to a multiple of this x tp (Megatron); 1: not padded
  bool vocab_parallel = true;      // embedding and output layer split over tp (false: replicated)
  bool async_tp_allreduce = true;  // backward input-gradient all-reduce beside the wgrad GEMM
  std::vector<std::string> notes;  // options the layout adjusted, as Megatron does, in plain words

  int size() const { return tp * cp * pp * dp; }
  int degree(Dim d) const;
  // Parameters sharded and gathered per unit (ZeRO-3, FSDP2, HSDP).
  bool sharded() const {
    return strategy == Strategy::Zero3 || strategy == Strategy::Fsdp || strategy == Strategy::Hsdp;
  }
  // DeepSpeed's ZeRO engines (stage_1_and_2.py, stage3.py) and their stage.
  bool deepspeed() const { return zero_stage() > 0; }
  int zero_stage() const {
    return strategy == Strategy::Zero1 ? 1 : strategy == Strategy::Zero2 ? 2 : strategy == Strategy::Zero3 ? 3 : 0;
  }
  // Ranks the optimizer states are sharded over: dp (ZeRO 1-3, FSDP), dp_shard (HSDP), else 1.
  int state_shards() const {
    if (strategy == Strategy::Hsdp) return dp_shard;
    return deepspeed() || strategy == Strategy::Fsdp ? dp : 1;
  }
  bool interleaved() const { return vp > 1; }
  int global_batch() const { return micro_batch * grad_accum * dp; }
  // Expert data parallelism: ranks summing an expert's gradients, tp cp dp / (etp ep).
  int edp() const { return tp * cp * dp / (etp * ep); }
};

// A rank's place in Megatron's grid.
struct MegatronCoord {
  int t = 0, c = 0, d = 0, s = 0;  // tp, cp, dp and pipeline-stage indices
  int& operator[](Dim d);
  int operator[](Dim d) const;
};
// rank = t + tp (c + cp (d + dp s)) for kMegatronOrder: a TP group is consecutive ranks (inside a
// node), a CP group tp ranks apart, pipeline neighbours tp cp dp ranks apart; with kTpPpDpOrder
// rank = t + tp (c + cp (s + pp d)): pipeline neighbours tp cp ranks apart.
int megatron_rank(const ParallelLayout& l, const MegatronCoord& x);
MegatronCoord megatron_coord(const ParallelLayout& l, int rank);

// The layers per model chunk: l.split where make_layout set it, else (a layout written by hand)
// the even split of `layers` over pp x vp.
PipelineSplit pipeline_split(const ParallelLayout& l, int layers);

// The layout of `spec` ([parallel], [zero], [training]) for `model` on `world_size` ranks, of which
// `node_ranks` share a node (hsdp's default shard group; 0: unknown, dp_shard must be given).
// Throws SpecError at the parallel.*, training.* or zero.stage key to change.
ParallelLayout make_layout(const ScenarioSpec& spec, const model::ModelShape& model, int world_size, int node_ranks = 0);

// DeepSpeed's engines with the optimizer or the parameters offloaded to the host (zero.offload_*).
inline bool offloads_to_host(const ScenarioSpec& spec, const ParallelLayout& l) {
  return l.deepspeed() && (spec.zero.offload_optimizer == "cpu" || spec.zero.offload_param == "cpu");
}

}  // namespace models::workload
