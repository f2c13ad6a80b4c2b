// The parallel layout's checks, all in one place (see layout.hpp). Megatron's own rules are cited
// where they are applied: megatron/training/arguments.py (validate_args) and
// megatron/core/pipeline_parallel/schedules.py of NVIDIA/Megatron-LM (core_r0.x, 2024-2025).
#include "models/workload/layout.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "models/error.hpp"
#include "sim/check.hpp"

namespace models::workload {

namespace {
constexpr std::array kStrategies = {Strategy::Zero3, Strategy::Fsdp,  Strategy::Ddp, Strategy::Megatron,
                                    Strategy::Zero1, Strategy::Zero2, Strategy::Hsdp};

std::string str(int v) { return std::to_string(v); }

Recompute parse_recompute(const TrainingSpec& t) {
  if (t.recompute.empty()) return t.grad_checkpointing ? Recompute::Full : Recompute::None;
  Recompute r = Recompute::None;
  if (t.recompute == "full")
    r = Recompute::Full;
  else if (t.recompute == "selective")
    r = Recompute::Selective;
  else if (t.recompute == "selective_op")
    r = Recompute::SelectiveOp;
  else if (t.recompute != "none")
    throw SpecError("training.recompute",
                    "unknown recompute '" + t.recompute + "' (expected full, selective, selective_op or none)");
  if (t.grad_checkpointing && r != Recompute::Full)
    throw SpecError("training.grad_checkpointing",
                    "grad_checkpointing = true means recompute = \"full\", but "
                    "recompute = \"" +
                        t.recompute + "\" (expected one of the two keys)");
  return r;
}

// training.checkpoint_impl, else the framework's: torchtitan (fsdp, hsdp) and PyTorch's own
// trainer (ddp) wrap each block in torch.utils.checkpoint with use_reentrant=False, whose early
// stop (on by default: set_checkpoint_early_stop) ends the recompute once every tensor the
// backward saved is back; Hugging Face transformers' gradient_checkpointing_enable defaults to
// use_reentrant=True, as ZeRO-3 needs (zero1-3), and Megatron-LM's full recompute is its own
// reentrant CheckpointFunction, which reruns the whole layer.
bool parse_recompute_stops_early(const TrainingSpec& t, Strategy s, Recompute r) {
  const bool pytorch = s == Strategy::Fsdp || s == Strategy::Hsdp || s == Strategy::Ddp;
  if (t.checkpoint_impl == "non_reentrant" && s == Strategy::Megatron)
    throw SpecError("training.checkpoint_impl",
                    "Megatron-LM's full recompute is its own reentrant checkpoint (expected reentrant, or no "
                    "checkpoint_impl, under strategy = \"megatron\")");
  if (!t.checkpoint_impl.empty() && t.checkpoint_impl != "reentrant" && t.checkpoint_impl != "non_reentrant")
    throw SpecError("training.checkpoint_impl",
                    "unknown checkpoint_impl '" + t.checkpoint_impl + "' (expected reentrant or non_reentrant)");
  const bool non_reentrant = t.checkpoint_impl.empty() ? pytorch : t.checkpoint_impl == "non_reentrant";
  return r == Recompute::Full && non_reentrant;
}

// training.loss_impl, else the framework's: Megatron-Core's vocab-parallel cross entropy under
// megatron (memory_terms.hpp megatron_loss_bytes_per_entry), PyTorch's cross_entropy on fp32 logits
// under every other strategy. Megatron's needs its tensor-parallel groups, so only megatron runs it.
bool parse_megatron_loss(const TrainingSpec& t, Strategy s) {
  if (!t.loss_impl.empty() && t.loss_impl != "pytorch" && t.loss_impl != "megatron")
    throw SpecError("training.loss_impl", "unknown loss_impl '" + t.loss_impl + "' (expected pytorch or megatron)");
  if (t.loss_impl == "megatron" && s != Strategy::Megatron)
    throw SpecError("training.loss_impl",
                    "Megatron-Core's vocab-parallel cross entropy runs under strategy = \"megatron\" only "
                    "(expected pytorch, or no loss_impl)");
  return t.loss_impl.empty() ? s == Strategy::Megatron : t.loss_impl == "megatron";
}

// training.checkpoint_every: torchtitan's every-N-th-block checkpointing (activation_checkpoint.mode
// "selective", selective_ac_option "N"), so full recompute under PyTorch's strategies only.
int parse_checkpoint_every(const TrainingSpec& t, Strategy s, Recompute r) {
  if (t.checkpoint_every <= 1) return 1;
  const std::string n = str(t.checkpoint_every);
  if (s != Strategy::Fsdp && s != Strategy::Hsdp && s != Strategy::Ddp)
    throw SpecError("training.checkpoint_every",
                    "checkpoint_every = " + n +
                        " is torchtitan's every-N-th-block checkpointing (expected strategy fsdp, hsdp or ddp, or "
                        "checkpoint_every = 1)");
  if (r != Recompute::Full)
    throw SpecError("training.checkpoint_every", "checkpoint_every = " + n +
                                                     " picks the blocks full recompute checkpoints (expected "
                                                     "grad_checkpointing = true or recompute = \"full\")");
  return t.checkpoint_every;
}

// grad_accum from training.global_batch, or training.grad_accum.
int derive_grad_accum(const TrainingSpec& t, int dp) {
  const int per_step = std::max(1, t.micro_batch) * dp;
  if (t.global_batch <= 0) return std::max(1, t.grad_accum);
  const std::string name = t.global_batch_from_deepspeed ? "train_batch_size" : "global_batch";
  if (t.global_batch_from_deepspeed && t.grad_accum_given) {
    // DeepSpeed's _batch_assertion: train_batch_size == micro x gradient_accumulation_steps x world.
    const int64_t product = int64_t(std::max(1, t.micro_batch)) * std::max(1, t.grad_accum) * dp;
    if (product != t.global_batch)
      throw SpecError("training.global_batch",
                      "train_batch_size = " + str(t.global_batch) + " but micro_batch x grad_accum x dp = " +
                          str(t.micro_batch) + " x " + str(t.grad_accum) + " x " + str(dp) + " = " +
                          std::to_string(product) + " (expected train_batch_size = " + std::to_string(product) +
                          ", or a micro-batch and grad_accum whose product with dp is " + str(t.global_batch) +
                          ": DeepSpeed refuses to start otherwise)");
    return std::max(1, t.grad_accum);
  }
  if (t.global_batch % per_step != 0)
    throw SpecError("training.global_batch", name + " = " + str(t.global_batch) +
                                                 " is not a multiple of micro_batch x dp = " + str(t.micro_batch) +
                                                 " x " + str(dp) + " = " + str(per_step) +
                                                 " (expected a multiple of micro_batch x dp)");
  const int accum = t.global_batch / per_step;
  if (t.grad_accum != 1 && t.grad_accum != accum)
    throw SpecError("training.grad_accum", "grad_accum = " + str(t.grad_accum) +
                                               " but global_batch / (micro_batch x dp) = " + str(accum) +
                                               " (expected one of the two keys, or equal values)");
  return accum;
}

// Expert parallelism (layout.hpp states the grid; Megatron-LM arguments.py validate_args).
void moe_checks(const ScenarioSpec& spec, const model::ModelShape& model, ParallelLayout& l) {
  l.ep = std::max(1, spec.parallel.ep);
  l.etp = spec.parallel.etp > 0 ? spec.parallel.etp : l.tp;
  if (!model.is_moe()) {
    if (l.ep > 1)
      throw SpecError("parallel.ep", "ep = " + str(l.ep) + " needs a mixture-of-experts model (model.experts)");
    if (spec.parallel.etp > 0)
      throw SpecError("parallel.etp",
                      "etp = " + str(l.etp) + " needs a mixture-of-experts model (expected model.experts, or no etp)");
    return;
  }
  if (model.moe.experts % l.ep != 0)
    throw SpecError("parallel.ep", "ep = " + str(l.ep) + " does not divide the " + str(model.moe.experts) +
                                       " experts (expected ep to divide model.experts)");
  if (model.moe.moe_ffn % l.etp != 0)
    throw SpecError("parallel.etp", "etp = " + str(l.etp) + " does not divide the expert ffn, model.moe_ffn = " +
                                        str(model.moe.moe_ffn) + " (expected etp to divide it)");
  const int stage = l.tp * l.cp * l.dp;
  if (l.etp != l.tp && stage % (l.etp * l.ep) != 0)
    throw SpecError("parallel.etp", "etp x ep = " + str(l.etp) + " x " + str(l.ep) + " = " + str(l.etp * l.ep) +
                                        " does not divide tp x cp x dp = " + str(stage) +
                                        " (expected etp x ep to divide the ranks of a pipeline stage: Megatron-Core's "
                                        "expert grid is etp x ep x expert-data-parallel)");
  if (l.etp == l.tp && (l.cp * l.dp) % l.ep != 0)
    throw SpecError("parallel.ep",
                    "ep = " + str(l.ep) + " does not divide cp x dp = " + str(l.cp * l.dp) +
                        " (expected ep to divide cp x dp: Megatron-Core folds the expert-parallel group into the "
                        "data- and context-parallel ranks of a pipeline stage)");
  if (l.tp > 1 && !spec.parallel.sequence_parallel)
    throw SpecError("parallel.sequence_parallel",
                    "an MoE model with tp > 1 needs sequence parallelism (expected sequence_parallel = true, "
                    "Megatron's rule: \"When using MoE and tensor parallelism, sequence parallelism must be used\")");
}

void megatron_checks(const ScenarioSpec& spec, const model::ModelShape& model, int n, ParallelLayout& l) {
  const ParallelSpec& par = spec.parallel;
  l.tp = std::max(1, par.tp);
  l.cp = std::max(1, par.cp);
  l.pp = std::max(1, par.pp);
  l.vp = std::max(1, par.vp);
  const int model_parallel = l.tp * l.cp * l.pp;
  if (n % model_parallel != 0)
    throw SpecError("parallel.tp",
                    "tp x cp x pp = " + str(model_parallel) + " does not divide the " + str(n) +
                        " GPUs (expected tp x cp x pp to divide the GPU count)",
                    {"parallel.cp", "parallel.pp", "cluster.nodes", "placement.gpus_per_pod"});
  l.dp = n / model_parallel;
  if (par.dp != 0 && par.dp != l.dp)
    throw SpecError("parallel.dp", "tp x cp x pp x dp = " + str(model_parallel * par.dp) + " but there are " + str(n) +
                                       " GPUs (expected dp = " + str(l.dp) + ", or 0 to derive it)");
  if (model.heads % l.tp != 0)
    throw SpecError("parallel.tp", "tp = " + str(l.tp) + " does not divide the " + str(model.heads) +
                                       " attention heads (expected tp to divide the head count)");
  if (model.kv_heads % l.tp != 0)
    throw SpecError(
        "parallel.tp",
        "tp = " + str(l.tp) + " does not divide the " + str(model.kv_heads) +
            " KV heads (expected tp to divide the KV head count: Megatron splits the query groups over tp)");
  // Megatron-Core's ColumnParallelLinear / RowParallelLinear split the MLP's width with
  // utils.divide(ffn, tp), which asserts divisibility (the gated MLP's 2 ffn too); the shared
  // experts of an MoE layer are one such MLP of shared_experts x moe_ffn over tp.
  if (model.layers > model.moe_layers() && model.ffn % l.tp != 0)
    throw SpecError("parallel.tp",
                    "tp = " + str(l.tp) + " does not divide model.ffn = " + str(model.ffn) +
                        " (expected tp to divide the MLP width: Megatron splits it over tp)",
                    {"model.ffn"});
  if (model.is_moe() && model.moe.shared_experts > 0 && (model.moe.shared_experts * model.moe.moe_ffn) % l.tp != 0)
    throw SpecError("parallel.tp",
                    "tp = " + str(l.tp) + " does not divide the shared experts' width, shared_experts x moe_ffn = " +
                        str(model.moe.shared_experts) + " x " + str(model.moe.moe_ffn) +
                        " (expected tp to divide it: Megatron splits the shared experts over tp)",
                    {"model.moe_ffn", "model.shared_experts"});
  l.split = make_pipeline_split(model.layers, l.pp, l.vp, par);
  if (par.use_tp_pp_dp_mapping) l.order = kTpPpDpOrder;
  if (l.cp > 1 && model.seq % (2 * l.cp) != 0)
    throw SpecError("parallel.cp", "cp = " + str(l.cp) + ": the sequence (" + str(model.seq) +
                                       ") does not split into 2 x cp equal chunks (expected seq divisible by "
                                       "2 x cp: TransformerEngine's load-balanced causal ring attention)");
  if (l.cp > 1 && spec.training.attention_backend == "unfused")
    throw SpecError("training.attention_backend",
                    "context parallelism needs a fused attention backend (TransformerEngine), not unfused "
                    "(expected attention_backend = \"flash\")");

  moe_checks(spec, model, l);
  // The expert grid (its expert-data-parallel groups, which a mixture of experts has at any ep)
  // is laid out within a stage's contiguous ranks, Megatron-Core's default order.
  if (par.use_tp_pp_dp_mapping && model.is_moe())
    throw SpecError("parallel.use_tp_pp_dp_mapping",
                    "a mixture of experts' expert grid under the tp-cp-pp-dp rank order is not modelled (expected "
                    "the default order)");

  // Micro-batches: global_batch, grad_accum, or the older parallel.micro_batches.
  l.grad_accum = derive_grad_accum(spec.training, l.dp);
  l.pipeline_micro_batches = l.grad_accum;
  if (par.micro_batches > 0) {
    if (spec.training.global_batch > 0 && par.micro_batches != l.grad_accum)
      throw SpecError("parallel.micro_batches", "micro_batches = " + str(par.micro_batches) +
                                                    " but global_batch / (micro_batch x dp) = " + str(l.grad_accum) +
                                                    " (expected one of the two keys, or equal values)");
    if (spec.training.global_batch == 0 && spec.training.grad_accum > 1 && par.micro_batches != l.grad_accum)
      throw SpecError("parallel.micro_batches", "micro_batches = " + str(par.micro_batches) +
                                                    " but training.grad_accum = " + str(l.grad_accum) +
                                                    " (expected one of the two keys, or equal values)");
    l.pipeline_micro_batches = par.micro_batches;
  }

  // Options, as Megatron's validate_args adjusts or refuses them.
  l.sequence_parallel = par.sequence_parallel;
  if (l.sequence_parallel && l.tp == 1) {
    l.sequence_parallel = false;  // arguments.py: "Disabling sequence parallelism because tp is disabled"
    l.notes.push_back("sequence_parallel ignored: tp = 1 (as Megatron does)");
  }
  // Sequence parallelism scatters each context-parallel rank's seq / cp tokens over tp
  // (megatron/core/tensor_parallel/mappings.py _split_along_first_dim asserts that the first
  // dimension divides by the tensor-parallel size).
  if (l.sequence_parallel && (model.seq / l.cp) % l.tp != 0)
    throw SpecError("parallel.sequence_parallel",
                    "sequence parallelism splits seq / cp = " + str(model.seq / l.cp) +
                        " tokens over tp = " + str(l.tp) +
                        ", which does not divide them (expected seq / cp divisible by tp, as Megatron "
                        "asserts, or sequence_parallel = false)",
                    {"model.seq", "parallel.tp", "parallel.cp"});
  l.tp_comm_overlap = par.tp_comm_overlap;
  if (l.tp_comm_overlap && !l.sequence_parallel)
    throw SpecError("parallel.tp_comm_overlap",
                    "tp_comm_overlap needs sequence_parallel = true and tp > 1 (expected both, or tp_comm_overlap = "
                    "false: Megatron overlaps TP communication with GEMMs only under sequence parallelism)");
  l.distributed_optimizer = par.distributed_optimizer;
  l.overlap_grad_reduce = par.overlap_grad_reduce;
  l.overlap_param_gather = par.overlap_param_gather;
  if (l.overlap_param_gather && !l.distributed_optimizer)
    throw SpecError("parallel.overlap_param_gather",
                    "overlap_param_gather needs distributed_optimizer = true (expected it too, or overlap_param_gather "
                    "= false: parameters are gathered only when the optimizer is sharded)");
  if (l.overlap_param_gather && !l.overlap_grad_reduce)
    throw SpecError("parallel.overlap_param_gather",
                    "overlap_param_gather needs overlap_grad_reduce = true (expected it too, as Megatron requires)");
  l.scatter_gather_p2p = par.scatter_gather_tensors_in_pipeline;
  l.vocab_parallel = par.vocab_parallel;
  l.vocab_multiple = par.make_vocab_size_divisible_by;
  l.async_tp_allreduce = par.async_tensor_model_parallel_allreduce;
  if (l.interleaved()) {
    // Megatron-Core's default is --overlap-p2p-communication on (arguments.py
    // --no-overlap-p2p-communication); without it the interleaved schedule needs pp > 2.
    l.overlap_p2p_comm = par.overlap_p2p_comm.value_or(true);
    const int min_pp = l.overlap_p2p_comm ? 2 : 3;
    if (l.pp < min_pp)
      throw SpecError("parallel.vp", "interleaved 1F1B (vp = " + str(l.vp) + ") needs pp >= " + str(min_pp) +
                                         (l.overlap_p2p_comm ? "" : " without overlap_p2p_comm") +
                                         ", got pp = " + str(l.pp) + " (expected a larger pp, or vp = 1)");
    // schedules.py: microbatch_group_size_per_vp_stage (= pp) must lie in [pp, m], and the last
    // group must not be shorter than pp: m a multiple of pp.
    const int m = l.pipeline_micro_batches;
    if (m < l.pp || m % l.pp != 0) {
      const char* key = par.micro_batches > 0            ? "parallel.micro_batches"
                        : spec.training.global_batch > 0 ? "training.global_batch"
                                                         : "training.grad_accum";
      throw SpecError(key, "interleaved 1F1B needs the micro-batches per step (" + str(m) +
                               ") to be a multiple of pp = " + str(l.pp) + " (expected " + str(l.pp) + ", " +
                               str(2 * l.pp) + ", ... micro-batches)");
    }
  } else if (par.overlap_p2p_comm.value_or(false)) {
    l.notes.push_back("overlap_p2p_comm ignored without vp > 1 (as Megatron does)");
  }
  if (par.pipeline_schedule == "zb_h1") {
    if (l.interleaved())
      throw SpecError("parallel.pipeline_schedule",
                      "zb_h1 runs one model chunk per pipeline rank, got vp = " + str(l.vp) +
                          " (expected vp = 1, or pipeline_schedule = \"1f1b\" for interleaved 1F1B)");
    l.zero_bubble = l.pp > 1;
    if (l.pp == 1) l.notes.push_back("pipeline_schedule = \"zb_h1\" ignored: pp = 1, no pipeline");
  }
}

void data_parallel_checks(const ScenarioSpec& spec, const model::ModelShape& model, int n, int node_ranks, ParallelLayout& l) {
  const ParallelSpec& par = spec.parallel;
  if (model.is_moe())
    throw SpecError("parallel.strategy",
                    "mixture-of-experts models are modelled for strategy = \"megatron\" only "
                    "(got " +
                        par.strategy + ")");
  if (par.tp > 1 || par.pp > 1)
    throw SpecError(par.tp > 1 ? "parallel.tp" : "parallel.pp",
                    "tp and pp need strategy = \"megatron\": " + par.strategy +
                        " is pure data parallelism (expected strategy = \"megatron\", or tp = pp = 1)",
                    {"parallel.strategy"});
  const std::pair<const char*, bool> megatron_only[] = {
      {"parallel.cp", par.cp > 1},
      {"parallel.vp", par.vp > 1},
      {"parallel.ep", par.ep > 1},
      {"parallel.etp", par.etp > 0},
      {"parallel.sequence_parallel", par.sequence_parallel},
      {"parallel.distributed_optimizer", par.distributed_optimizer},
      {"parallel.overlap_param_gather", par.overlap_param_gather},
      {"parallel.tp_comm_overlap", par.tp_comm_overlap},
      {"parallel.scatter_gather_tensors_in_pipeline", par.scatter_gather_tensors_in_pipeline},
      {"parallel.overlap_p2p_comm", par.overlap_p2p_comm.has_value()},
      {"parallel.pipeline_schedule", par.pipeline_schedule != "1f1b"},
      {"parallel.overlap_grad_reduce", par.overlap_grad_reduce},
      {"parallel.vocab_parallel", !par.vocab_parallel},
      {"parallel.async_tensor_model_parallel_allreduce", !par.async_tensor_model_parallel_allreduce},
      {"parallel.micro_batches", par.micro_batches > 0},  // the others' micro-batches: training.grad_accum
  };
  for (const auto& [key, set] : megatron_only)
    if (set)
      throw SpecError(key, std::string(key).substr(9) +
                               " is a Megatron option (expected strategy = \"megatron\", got " + par.strategy + ")");
  if (l.recompute == Recompute::Selective)
    throw SpecError("training.recompute",
                    "selective recompute is modelled for strategy = \"megatron\" only "
                    "(expected full, selective_op or none)");
  // torchtitan's per-op policy, priced on its Llama-style block: separate q, k, v and o, a gated
  // MLP, attention by flash/cuDNN, 16-bit GEMMs (compute.hpp fwd_op_rerun, memory_terms.hpp).
  if (l.recompute == Recompute::SelectiveOp) {
    if (l.deepspeed())
      throw SpecError("training.recompute",
                      "selective_op is torchtitan's per-op checkpointing (expected strategy fsdp, hsdp or ddp, or "
                      "recompute = \"full\")");
    const bool fp8 =
        !spec.training.precision.empty() && spec.training.precision != "bf16" && spec.training.precision != "fp16";
    if (model.attention().is_mla() || !model.gated_mlp || fp8 || spec.training.attention_backend == "unfused")
      throw SpecError("training.recompute",
                      "selective_op is modelled on a Llama-style block: grouped or multi-head attention by flash "
                      "attention, a gated MLP, 16-bit GEMMs (expected recompute = \"full\" or \"none\" here)");
  }
  if (par.dp != 0 && par.dp != n)
    throw SpecError("parallel.dp", "dp = " + str(par.dp) + " but there are " + str(n) +
                                       " GPUs (expected dp = " + str(n) + ", or 0 to derive it)");
  if (l.deepspeed() && spec.zero.stage != l.zero_stage())
    throw SpecError("zero.stage", "zero.stage = " + str(spec.zero.stage) + " but strategy = \"" + par.strategy +
                                      "\" (expected the same ZeRO stage in both, or only one of the two: the other "
                                      "follows; stage 0 is strategy ddp)");
  // DeepSpeed's parameters take training.dtype (its bf16 / fp16 section) beside an fp32 master
  // partition; no setting gives them another dtype, so neither the step nor the memory reads one.
  if (l.deepspeed() && !spec.training.param_dtype.empty())
    throw SpecError("training.param_dtype",
                    "param_dtype has no DeepSpeed counterpart: ZeRO keeps its parameters in training.dtype and "
                    "an fp32 master partition (expected no param_dtype under strategy " +
                        par.strategy + ")");
  if (l.deepspeed() && l.zero_stage() < 3 && spec.zero.offload_param != "none")
    throw SpecError("zero.offload_param", "offload_param needs ZeRO stage 3, got stage " + str(l.zero_stage()) +
                                              " (expected offload_param = \"none\", or strategy zero3: "
                                              "DeepSpeed offloads parameters only at stage 3)");
  l.dp = n;
  l.dp_shard = n;
  if (l.strategy == Strategy::Hsdp) {
    // torch.distributed.device_mesh.init_device_mesh(("replicate", "shard")): rank = r dp_shard + s,
    // a shard group is dp_shard consecutive ranks; by default one node's.
    if (par.dp_shard <= 0 && node_ranks <= 0)
      throw SpecError("parallel.dp_shard", "hsdp needs the shard group's size (expected parallel.dp_shard)");
    l.dp_shard = par.dp_shard > 0 ? par.dp_shard : node_ranks;
    if (n % l.dp_shard != 0)
      throw SpecError("parallel.dp_shard",
                      "dp_shard = " + str(l.dp_shard) + (par.dp_shard > 0 ? "" : " (the ranks of one node)") +
                          " does not divide the " + str(n) + " GPUs (expected a divisor of the GPU count)");
  }
}
}  // namespace

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::Zero3: return "zero3";
    case Strategy::Fsdp: return "fsdp";
    case Strategy::Ddp: return "ddp";
    case Strategy::Megatron: return "megatron";
    case Strategy::Zero1: return "zero1";
    case Strategy::Zero2: return "zero2";
    case Strategy::Hsdp: return "hsdp";
  }
  return "?";
}

std::optional<Strategy> parse_strategy(std::string_view name) {
  for (Strategy s : kStrategies)
    if (name == strategy_name(s)) return s;
  return std::nullopt;
}

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
    case Recompute::SelectiveOp: return "selective_op";
  }
  return "?";
}

int ParallelLayout::degree(Dim d) const {
  switch (d) {
    case Dim::Tp: return tp;
    case Dim::Cp: return cp;
    case Dim::Dp: return dp;
    case Dim::Pp: return pp;
  }
  return 1;
}

int& MegatronCoord::operator[](Dim x) {
  switch (x) {
    case Dim::Tp: return t;
    case Dim::Cp: return c;
    case Dim::Dp: return d;
    case Dim::Pp: return s;
  }
  return t;
}

int MegatronCoord::operator[](Dim x) const { return const_cast<MegatronCoord&>(*this)[x]; }

int megatron_rank(const ParallelLayout& l, const MegatronCoord& x) {
  int rank = 0, stride = 1;
  for (Dim d : l.order) {
    SIM_CHECK(x[d] >= 0 && x[d] < l.degree(d), "Megatron coordinate out of range");
    rank += x[d] * stride;
    stride *= l.degree(d);
  }
  return rank;
}

MegatronCoord megatron_coord(const ParallelLayout& l, int rank) {
  SIM_CHECK(rank >= 0 && rank < l.size(), "rank outside the Megatron grid");
  MegatronCoord x;
  for (Dim d : l.order) {
    x[d] = rank % l.degree(d);
    rank /= l.degree(d);
  }
  return x;
}

PipelineSplit pipeline_split(const ParallelLayout& l, int layers) {
  int held = 0;
  for (int s = 0; s < l.split.pp(); ++s) held += l.split.stage_layers(s);
  if (l.split.pp() == l.pp && l.split.vp() == l.vp && held == layers) return l.split;
  return make_pipeline_split(layers, l.pp, l.vp, ParallelSpec{});
}

ParallelLayout make_layout(const ScenarioSpec& spec, const model::ModelShape& model, int world_size, int node_ranks) {
  const ParallelSpec& par = spec.parallel;
  ParallelLayout l;
  const auto strategy = parse_strategy(par.strategy);
  if (!strategy)
    throw SpecError("parallel.strategy", "unknown strategy '" + par.strategy +
                                             "' (expected zero3, zero2, zero1, fsdp, hsdp, ddp or megatron)");
  l.strategy = *strategy;
  l.recompute = parse_recompute(spec.training);
  l.recompute_stops_early = parse_recompute_stops_early(spec.training, l.strategy, l.recompute);
  l.checkpoint_every = parse_checkpoint_every(spec.training, l.strategy, l.recompute);
  l.megatron_loss = parse_megatron_loss(spec.training, l.strategy);
  l.micro_batch = std::max(1, spec.training.micro_batch);
  if (par.dp_shard > 0 && l.strategy != Strategy::Hsdp)
    throw SpecError("parallel.dp_shard",
                    "dp_shard is an HSDP option (expected strategy = \"hsdp\", got " + par.strategy + ")");
  // FSDP2's MixedPrecisionPolicy.reduce_dtype; DeepSpeed (communication_data_type), Megatron
  // (grad_reduce_in_fp32) and DDP have their own rules, which the steps follow.
  if (!spec.training.reduce_dtype.empty() && l.strategy != Strategy::Fsdp && l.strategy != Strategy::Hsdp)
    throw SpecError("training.reduce_dtype",
                    "reduce_dtype is FSDP2's MixedPrecisionPolicy.reduce_dtype (expected "
                    "strategy fsdp or hsdp, or no reduce_dtype under strategy " +
                        par.strategy + ")");
  if (l.strategy == Strategy::Megatron) {
    megatron_checks(spec, model, world_size, l);
    return l;
  }
  data_parallel_checks(spec, model, world_size, node_ranks, l);
  l.split = make_pipeline_split(model.layers, 1, 1, par);  // every layer on every rank
  l.grad_accum = derive_grad_accum(spec.training, l.dp);
  l.pipeline_micro_batches = l.grad_accum;
  return l;
}

}  // namespace models::workload
