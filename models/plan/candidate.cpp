// A candidate written into a scenario (candidate.hpp).
#include "models/plan/candidate.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace models::plan {

namespace {

// A ZeRO candidate overlaps its reduce-scatters and all-gathers with the backward pass
// (DeepSpeed's overlap_comm, recommended and on by default at stage 3, off at stages 1 and 2
// unless set), as a Megatron candidate takes Megatron-Core's recommended overlaps; a ZeRO base
// scenario keeps its own setting.
bool zero_overlap_comm(const ScenarioSpec& base) {
  return base.parallel.strategy.rfind("zero", 0) == 0 ? base.zero.overlap_comm : true;
}

}  // namespace

void drop_other_instance_price(ScenarioSpec& s, const std::string& instance) {
  if (s.cluster.instance == instance) return;
  s.cluster.price.reset();
  s.cluster.params.erase("price.gpu_hour");
}

ScenarioSpec apply_candidate(const ScenarioSpec& base, const Candidate& c) {
  ScenarioSpec s = base;
  drop_other_instance_price(s, c.instance);
  s.cluster.instance = c.instance;
  s.cluster.nodes = c.nodes;
  s.cluster.groups.clear();
  s.cluster.node.reset();
  s.placement.pods_per_node = c.pods_per_node;
  s.placement.gpus_per_pod = c.gpus_per_node / c.pods_per_node;
  s.placement.nics_per_pod = 0;
  ParallelSpec& p = s.parallel;
  p.strategy = c.strategy;
  p.tp = c.tp;
  p.pp = c.pp;
  p.cp = c.cp;
  p.ep = c.ep;
  p.vp = c.vp;
  p.dp = 0;
  p.dp_shard = 0;
  p.micro_batches = 0;
  p.pipeline_schedule = c.schedule;
  p.sequence_parallel = c.sequence_parallel;
  p.distributed_optimizer = c.distributed_optimizer;
  p.etp = c.etp;
  if (c.strategy == "megatron") {
    if (base.parallel.strategy != "megatron") {  // Megatron-Core's recommended overlaps with the distributed optimizer
      p.overlap_grad_reduce = true;
      p.overlap_param_gather = c.distributed_optimizer;
    }
    if (!c.distributed_optimizer) p.overlap_param_gather = false;  // Megatron needs the distributed optimizer
    if (!c.sequence_parallel) p.tp_comm_overlap = false;
    // The candidate's own split: uneven where its pp does not divide the layers (the scenario's
    // own first/last stages at its own pp), else even; a split the scenario wrote for another pp
    // would leave the other stages layers that need not divide.
    p.decoder_first_pipeline_num_layers = c.first_stage_layers;
    p.decoder_last_pipeline_num_layers = c.last_stage_layers;
    if (c.first_stage_layers > 0 || c.last_stage_layers > 0)
      p.account_for_embedding_in_pipeline_split = p.account_for_loss_in_pipeline_split = false;
  } else {  // the Megatron-only options a data-parallel strategy refuses (workload/layout.cpp)
    const ParallelSpec plain;
    p.overlap_grad_reduce = p.overlap_param_gather = p.tp_comm_overlap = false;
    p.scatter_gather_tensors_in_pipeline = false;
    p.overlap_p2p_comm.reset();
    p.vocab_parallel = plain.vocab_parallel;
    p.make_vocab_size_divisible_by = plain.make_vocab_size_divisible_by;
    p.async_tensor_model_parallel_allreduce = plain.async_tensor_model_parallel_allreduce;
    p.decoder_first_pipeline_num_layers = p.decoder_last_pipeline_num_layers = 0;
    p.account_for_embedding_in_pipeline_split = p.account_for_loss_in_pipeline_split = false;
    p.use_tp_pp_dp_mapping = false;
  }
  TrainingSpec& t = s.training;
  t.micro_batch = c.micro_batch;
  t.grad_accum = t.global_batch > 0 ? t.global_batch / (c.dp() * c.micro_batch) : 1;
  t.recompute = c.recompute;
  t.grad_checkpointing = c.recompute == "full";
  if (c.strategy == "zero1" || c.strategy == "zero2" || c.strategy == "zero3") {
    s.zero.stage = c.strategy.back() - '0';
    s.zero.offload_optimizer = c.offload ? "cpu" : "none";
    s.zero.offload_param = "none";
    s.zero.overlap_comm = zero_overlap_comm(base);
  }
  return s;
}

std::string layout_text(const Candidate& c) {
  std::string s = c.strategy;
  if (c.offload && c.offload_params)
    s += "+offload(optimizer, params)";
  else if (c.offload_params)
    s += "+offload(params)";
  else if (c.offload)
    s += "+offload";
  if (c.strategy == "megatron") {
    s += fmt::format(" tp{} pp{}", c.tp, c.pp);
    // An uneven split: "pp16 (first 3, last 2 layers)", the other stages an even share.
    if (c.first_stage_layers > 0 && c.last_stage_layers > 0)
      s += fmt::format(" (first {}, last {} layers)", c.first_stage_layers, c.last_stage_layers);
    else if (c.first_stage_layers > 0)
      s += fmt::format(" (first {} layers)", c.first_stage_layers);
    else if (c.last_stage_layers > 0)
      s += fmt::format(" (last {} layers)", c.last_stage_layers);
    if (c.vp > 1) s += fmt::format(" vp{}", c.vp);
    if (c.cp > 1) s += fmt::format(" cp{}", c.cp);
    if (c.ep > 1) s += fmt::format(" ep{}", c.ep);
    if (c.etp > 0 && c.etp != c.tp) s += fmt::format(" etp{}", c.etp);
    s += fmt::format(" dp{}", c.dp());
    if (c.pp > 1 && c.schedule != "1f1b") s += " " + c.schedule;
    if (c.sequence_parallel) s += " sp";
    if (c.distributed_optimizer) s += " dist-opt";
  } else {
    s += fmt::format(" dp{}", c.dp());
  }
  s += fmt::format(" mb{}", c.micro_batch);
  if (c.recompute != "none") s += " recompute=" + c.recompute;
  if (c.pods_per_node > 1) {
    const int per_pod = c.gpus_per_node / c.pods_per_node;
    s += fmt::format(", {} pods of {} GPU{} per node", c.pods_per_node, per_pod, per_pod == 1 ? "" : "s");
  }
  if (c.node_gpus > c.gpus_per_node) s += fmt::format(", {} of {} GPUs per node", c.gpus_per_node, c.node_gpus);
  return s;
}

ScenarioOverrides candidate_overrides(const ScenarioSpec& base, const Candidate& c) {
  ScenarioOverrides o;
  auto set = [&](const std::string& k, const std::string& v) { o.set.push_back(k + "=" + v); };
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  o.remove = {"cluster.groups", "cluster.node", "placement.nics_per_pod", "parallel.dp", "parallel.dp_shard",
              "parallel.micro_batches", "parallel.etp"};
  if (base.cluster.instance != c.instance)  // the scenario's own price is its instance's
    for (const char* k : kOwnPriceKeys) o.remove.push_back(k);
  set("cluster.instance", "\"" + c.instance + "\"");
  set("cluster.nodes", std::to_string(c.nodes));
  set("placement.pods_per_node", std::to_string(c.pods_per_node));
  set("placement.gpus_per_pod", std::to_string(c.gpus_per_node / c.pods_per_node));
  set("parallel.strategy", "\"" + c.strategy + "\"");
  if (c.strategy == "megatron") {
    set("parallel.tp", std::to_string(c.tp));
    set("parallel.pp", std::to_string(c.pp));
    set("parallel.cp", std::to_string(c.cp));
    set("parallel.ep", std::to_string(c.ep));
    if (c.etp > 0) set("parallel.etp", std::to_string(c.etp));
    set("parallel.vp", std::to_string(c.vp));
    set("parallel.pipeline_schedule", "\"" + c.schedule + "\"");
    set("parallel.sequence_parallel", flag(c.sequence_parallel));
    set("parallel.distributed_optimizer", flag(c.distributed_optimizer));
    if (base.parallel.strategy != "megatron") {
      set("parallel.overlap_grad_reduce", "true");
      set("parallel.overlap_param_gather", flag(c.distributed_optimizer));
    }
    if (!c.distributed_optimizer) set("parallel.overlap_param_gather", "false");
    if (!c.sequence_parallel) set("parallel.tp_comm_overlap", "false");
    for (const auto& [k, n] : {std::pair{"parallel.decoder_first_pipeline_num_layers", c.first_stage_layers},
                               std::pair{"parallel.decoder_last_pipeline_num_layers", c.last_stage_layers}})
      if (n > 0)
        set(k, std::to_string(n));
      else
        o.remove.push_back(k);
    if (c.first_stage_layers > 0 || c.last_stage_layers > 0)
      for (const char* k :
           {"parallel.account_for_embedding_in_pipeline_split", "parallel.account_for_loss_in_pipeline_split"})
        o.remove.push_back(k);
  } else {
    for (const char* k : {"tp", "pp", "cp", "vp", "ep", "sequence_parallel", "distributed_optimizer",
                          "overlap_param_gather", "tp_comm_overlap", "scatter_gather_tensors_in_pipeline",
                          "overlap_p2p_comm", "pipeline_schedule", "overlap_grad_reduce", "vocab_parallel",
                          "make_vocab_size_divisible_by", "async_tensor_model_parallel_allreduce",
                          "decoder_first_pipeline_num_layers",
                          "decoder_last_pipeline_num_layers", "account_for_embedding_in_pipeline_split",
                          "account_for_loss_in_pipeline_split", "use_tp_pp_dp_mapping"})
      o.remove.push_back(std::string("parallel.") + k);
  }
  set("training.micro_batch", std::to_string(c.micro_batch));
  if (base.training.global_batch > 0)
    set("training.grad_accum", std::to_string(base.training.global_batch / (c.dp() * c.micro_batch)));
  set("training.recompute", "\"" + c.recompute + "\"");
  set("training.grad_checkpointing", flag(c.recompute == "full"));
  // Another strategy than DeepSpeed's reads no [zero] table: a DeepSpeed file left there (the
  // seeds' stage-3 JSON with its CPU offload) would read as if this layout used it.
  const bool zero = c.strategy == "zero1" || c.strategy == "zero2" || c.strategy == "zero3";
  if (!zero) o.remove.push_back("zero");
  if (zero) {
    set("zero.stage", std::string(1, c.strategy.back()));
    set("zero.offload_optimizer", c.offload ? "\"cpu\"" : "\"none\"");
    set("zero.offload_param", "\"none\"");
    set("zero.overlap_comm", flag(zero_overlap_comm(base)));  // DeepSpeed's default is off at stages 1 and 2
  }
  return o;
}

}  // namespace models::plan
