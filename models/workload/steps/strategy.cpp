// The strategy step of run_scenario: scenario + World -> programs, groups and rank slots.
#include "models/workload/steps/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "models/error.hpp"
#include "models/params.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/steps/megatron.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/steps/sharded_step.hpp"

namespace models::workload {

namespace {

// A bare collective repeated `iterations` times over every rank (the engine's end-to-end run).
void bare_collective(const ScenarioSpec& spec, int n, StepPlan& plan) {
  const CollectiveSpec& c = *spec.collective;
  nccl::CollOp op;
  if (!nccl::parse_coll_op(c.op, op))
    throw SpecError("collective.op", "unknown collective '" + c.op +
                                         "' (expected all_reduce, all_gather, reduce_scatter, "
                                         "broadcast, reduce, alltoall or sendrecv)");
  if (c.bytes <= 0)
    throw SpecError("collective.bytes", "collective size is not positive (expected a size such as \"1 GiB\")");
  if (c.iterations < 1)
    throw SpecError("collective.iterations", "iterations = " + std::to_string(c.iterations) + " (expected at least 1)");
  plan.iterations = c.iterations;
  plan.ranks.assign(n, RankSetup{});
  if (op == nccl::CollOp::SendRecv) {
    if (n < 2) throw SpecError("collective.op", "sendrecv on 1 rank (expected at least 2 ranks)");
    // As nccl-tests' sendrecv_perf: every rank sends to the next and receives from the previous
    // at once (one ncclGroupStart/End), each iteration after the last: the send and the receive
    // on streams of their own, joined both ways at the end of each iteration.
    Program p({"send", "recv"});
    for (int i = 0; i < c.iterations; ++i) {
      p.send(0, 0, c.bytes, "send");
      p.recv(1, 1, c.bytes, "recv");
      p.join(0, 1);
      p.join(1, 0);
    }
    plan.programs = {std::move(p)};
    collectives::Group world{{}, 0, "world"};  // the communicator, as nccl-tests' (its p2p channels per peer)
    for (int r = 0; r < n; ++r) {
      world.ranks.push_back(r);
      plan.ranks[r].peer[0] = (r + 1) % n;
      plan.ranks[r].peer[1] = (r + n - 1) % n;
      plan.ranks[r].peer_comm[0] = plan.ranks[r].peer_comm[1] = 0;
    }
    plan.groups.push_back(std::move(world));
  } else {
    Program p({"compute"});
    for (int i = 0; i < c.iterations; ++i) p.collective(0, 0, op, c.bytes, std::string(nccl::coll_op_name(op)));
    plan.programs = {std::move(p)};
    collectives::Group world{{}, 0, "world"};
    for (int r = 0; r < n; ++r) {
      world.ranks.push_back(r);
      plan.ranks[r].group[0] = 0;
    }
    plan.groups.push_back(std::move(world));
  }
  plan.notes.push_back("bare " + c.op + " of " + std::to_string(c.bytes) + " B over " + std::to_string(n) + " ranks, " +
                       std::to_string(c.iterations) + " iterations back to back");
}

// The pipeline schedule as the notes name it (pipeline_schedule.hpp).
std::string schedule_name(const ParallelLayout& l) {
  if (l.zero_bubble) return "ZB-H1";
  if (l.interleaved()) return "interleaved 1F1B (vp " + std::to_string(l.vp) + ")";
  return "1F1B";
}

void megatron_step(const ScenarioSpec& spec, const model::ModelShape& shape, const ParallelLayout& layout,
                   const ComputeRates& rates, StepPlan& plan) {
  MegatronConfig c;
  c.model = shape;
  c.training = spec.training;
  c.layout = layout;
  c.rates = rates;
  plan.programs = build_megatron_programs(c);
  megatron_layout(c, plan.groups, plan.ranks);
  plan.replica.resize(plan.ranks.size());
  for (std::size_t r = 0; r < plan.ranks.size(); ++r) plan.replica[r] = megatron_coord(layout, int(r)).d;
  const ParallelLayout& l = layout;
  std::string what = "Megatron TP " + std::to_string(l.tp) + (l.cp > 1 ? " x CP " + std::to_string(l.cp) : "") +
                     " x PP " + std::to_string(l.pp) + " x DP " + std::to_string(l.dp) + ", " + schedule_name(l) +
                     " over " + std::to_string(l.pipeline_micro_batches) + " micro-batches of " +
                     std::to_string(l.micro_batch) + " x " + std::to_string(shape.seq) + " tokens; recompute " +
                     recompute_name(l.recompute);
  if (l.sequence_parallel) what += "; sequence parallel";
  if (l.tp_comm_overlap) what += " with TP comm overlap";
  if (l.distributed_optimizer) what += "; distributed optimizer";
  if (l.overlap_grad_reduce) what += "; overlapped grad reduce";
  if (l.overlap_param_gather) what += "; overlapped param gather";
  if (l.interleaved() && l.overlap_p2p_comm) what += "; overlapped p2p";
  plan.notes.push_back(what);
  plan.notes.insert(plan.notes.end(), l.notes.begin(), l.notes.end());
}

// HSDP's groups (init_device_mesh(("replicate", "shard")): rank = r x dp_shard + s): slot 0 the
// shard group of dp_shard consecutive ranks, slot 1 the replica group of the ranks at the same
// place in every shard group. Each shard group is a data-parallel replica (replicas.hpp).
void hsdp_groups(int n, int dp_shard, StepPlan& plan) {
  const int replicas = n / dp_shard;
  for (int g = 0; g < replicas; ++g) {
    collectives::Group shard{{}, int(plan.groups.size()), "shard"};
    for (int s = 0; s < dp_shard; ++s) {
      shard.ranks.push_back(g * dp_shard + s);
      plan.ranks[g * dp_shard + s].group[kDpSlot] = int(plan.groups.size());
    }
    plan.groups.push_back(std::move(shard));
  }
  if (replicas < 2) return;
  for (int s = 0; s < dp_shard; ++s) {
    collectives::Group rep{{}, int(plan.groups.size()), "replicate"};
    for (int g = 0; g < replicas; ++g) {
      rep.ranks.push_back(g * dp_shard + s);
      plan.ranks[g * dp_shard + s].group[kReplicaSlot] = int(plan.groups.size());
    }
    plan.groups.push_back(std::move(rep));
  }
  plan.replica.resize(n);
  for (int r = 0; r < n; ++r) plan.replica[r] = r / dp_shard;
}

// DeepSpeed's CPU-Adam held to fewer threads than the host's memory bandwidth could feed: one per
// rank under torchrun with several processes in a pod (OMP_NUM_THREADS=1), or training.cpu_threads.
// The step's host work is then the threads' (zero3_host_step_seconds), which a user changes with one
// environment variable, so the note says what the rank's share of the host would give.
std::optional<std::string> cpu_adam_threads_note(const DataParallelConfig& c, const model::ModelShape& m,
                                                 const ParallelLayout& l) {
  if (!l.deepspeed() || c.zero.offload_optimizer != "cpu") return std::nullopt;
  const double shard = double(m.total_params()) / std::max(1, c.dp);
  const double now = zero3_host_step_seconds(shard, c.launcher_procs, c.node_ranks, c.rates, c.cpu_threads);
  const double best = zero3_host_step_seconds(shard, 1, c.node_ranks, c.rates, 0);
  if (now <= 1.05 * best || c.rates.core_bytes_per_s <= 0) return std::nullopt;
  const int threads = c.cpu_threads > 0 ? c.cpu_threads : 1;
  const double share = c.rates.host_rate() / std::max(1, c.node_ranks);
  const int enough = std::max(threads + 1, int(std::ceil(share / c.rates.core_bytes_per_s)));
  const std::string why = c.cpu_threads > 0 ? "training.cpu_threads = " + std::to_string(c.cpu_threads)
                                            : "torchrun sets OMP_NUM_THREADS=1 for each of a pod's " +
                                                  std::to_string(c.launcher_procs) + " processes";
  char buf[480];
  std::snprintf(buf, sizeof buf,
                "host: DeepSpeed's CPU-Adam runs %d thread%s per rank (%s): %.3g s of host work per step at "
                "%.3g GB/s per thread; with %d per rank (training.cpu_threads, OMP_NUM_THREADS in the pod), where "
                "the host's memory bandwidth shared by the node's %d rank%s binds, about %.3g s",
                threads, threads == 1 ? "" : "s", why.c_str(), now, c.rates.core_bytes_per_s / 1e9, enough,
                c.node_ranks, c.node_ranks == 1 ? "" : "s", best);
  return std::string(buf);
}

void data_parallel_step(const ScenarioSpec& spec, const World& world, const model::ModelShape& shape,
                        const ParallelLayout& layout, const ComputeRates& rates, StepPlan& plan) {
  const int n = layout.dp;
  // One launcher (torchrun) per pod.
  const DataParallelConfig c = data_parallel_config(spec, shape, layout, rates, world.placement().ranks_per_node(),
                                                    world.placement().ranks_per_pod());
  plan.programs = {build_data_parallel_program(c)};
  plan.ranks.assign(n, RankSetup{});
  if (layout.strategy == Strategy::Hsdp) {
    hsdp_groups(n, layout.dp_shard, plan);
  } else {
    collectives::Group dp{{}, 0, "dp"};
    for (int r = 0; r < n; ++r) {
      dp.ranks.push_back(r);
      plan.ranks[r].group[0] = 0;
    }
    plan.groups.push_back(std::move(dp));
  }
  std::string over = std::to_string(n) + " ranks";
  if (layout.strategy == Strategy::Hsdp)
    over += " (" + std::to_string(n / layout.dp_shard) + " replicas x shard groups of " +
            std::to_string(layout.dp_shard) + ")";
  plan.notes.push_back(spec.parallel.strategy + " over " + over + ", " + std::to_string(layout.grad_accum) +
                       " micro-batch(es) of " + std::to_string(spec.training.micro_batch) + " x " +
                       std::to_string(shape.seq) + " tokens per step");
  if (auto note = cpu_adam_threads_note(c, shape, layout)) plan.notes.push_back(*note);
  if (layout.deepspeed() && !spec.zero.unmodelled.empty()) {
    std::string keys;
    for (const auto& k : spec.zero.unmodelled) keys += (keys.empty() ? "" : ", ") + k;
    plan.notes.push_back("zero: " + keys + (spec.zero.unmodelled.size() == 1 ? " is" : " are") +
                         " set but not modelled (simulated as DeepSpeed's default)");
  }
}

// A head whose rows per rank are not a 16-byte multiple (GPT-2's 50257 in PyTorch) runs its GEMMs
// in cuBLAS's fallback kernels (compute/gemm.hpp): the cheapest fix a user has is to pad the
// vocabulary, so the note says what padding it to a multiple of 128 rows per rank would save per
// step (the padded head's extra logits included).
std::optional<std::string> misaligned_head_note(const ScenarioSpec& spec, const model::ModelShape& m,
                                                const ParallelLayout& l, const ComputeRates& rates) {
  const bool megatron = l.strategy == Strategy::Megatron;
  const int split = megatron && l.vocab_parallel ? l.tp : 1;
  const int64_t vocab = output_layer_rows(m, l);
  if ((vocab / split) % compute::gemm_alignment_elements(compute::Precision::Bf16) == 0) return std::nullopt;
  const int64_t padded = megatron_padded_vocab(vocab, split);
  const RankStepWork w = rank_step_work(spec, m, l, rates);
  const int64_t tokens = int64_t(spec.training.micro_batch) * m.seq;
  auto head_s = [&](int64_t v) {
    const HeadKernels k = head_kernels(m, tokens, tokens, split, rates, v, l.megatron_loss);
    return k.logits.fwd + k.logits.bwd() + k.loss_fwd + k.loss_bwd;
  };
  const double saved = w.micro * (head_s(vocab) - head_s(padded));
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "compute: the LM head's %lld rows%s are not a multiple of 8, so cuBLAS runs its GEMMs in fallback "
                "kernels (models/compute/gemm.hpp); model.vocab = %lld would save about %.3g ms per step",
                static_cast<long long>(vocab / split), split > 1 ? " per rank" : "", static_cast<long long>(padded),
                saved * 1e3);
  return std::string(buf);
}
}  // namespace

StepPlan plan_step(const ScenarioSpec& spec, const World& world, const hw::NodeSpec* machine) {
  StepPlan plan;
  if (spec.collective) {
    bare_collective(spec, world.size(), plan);
    return plan;
  }
  if (!spec.model) throw SpecError("model", "a scenario needs [model] (a training step) or [collective]");
  const model::ModelShape shape = model::resolve_model(*spec.model);
  const hw::NodeSpec& node = machine ? *machine : world.node();
  const compute::Precision precision = training_precision(spec.training);
  const ParallelLayout layout = make_layout(spec, shape, world.size(), world.placement().ranks_per_node());
  const ComputeRates rates =  // compute.hpp
      step_rates(spec, node.gpu, node.host_mem_bytes_per_s > 0 ? node.host_mem_bytes_per_s : 200e9, shape, layout);
  plan.overlap_slowdown = rates.overlap_slowdown;
  plan.comm_overlap_slowdown =
      param_or(spec.cluster.params, "comm.overlap_slowdown", param_default("comm.overlap_slowdown"));
  plan.shape = shape;
  plan.layout = layout;
  if (layout.strategy == Strategy::Megatron)
    megatron_step(spec, shape, layout, rates, plan);
  else
    data_parallel_step(spec, world, shape, layout, rates, plan);
  const compute::GemmLaw& g = rates.gpu.gemm;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "compute: %s %s GEMMs t = %.2f us + F / %.0f TFLOP/s + 2mn B / %.2f TB/s (%.3f of peak), "
                "x %.3f under the power limit; memory-bound kernels by kind, AdamW by implementation "
                "(models/compute)",
                node.gpu.name.c_str(), compute::precision_name(precision), g.fixed_s * 1e6, g.flops_per_s / 1e12,
                g.output_bytes_per_s / 1e12, g.flops_per_s / compute::peak_flops(node.gpu, precision),
                rates.gemm_stretch);
  plan.notes.emplace_back(buf);
  if (auto note = misaligned_head_note(spec, shape, layout, rates)) plan.notes.push_back(*note);
  if (compute::quantized(precision))
    plan.notes.push_back(std::string("memory: as under training.dtype = ") + spec.training.dtype + ", not " +
                         compute::precision_name(precision) +
                         ": Transformer Engine's quantized weight copies (1-2 B per linear-layer parameter) "
                         "are not added, nor the linear layers' inputs saved in 1 byte subtracted "
                         "(docs/limitations.md)");
  return plan;
}

}  // namespace models::workload
