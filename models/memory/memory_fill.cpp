// Per-rank GPU memory of a training step on its World (see memory_fill.hpp).
#include "models/memory/memory_fill.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "models/hw/gpu_memory.hpp"
#include "models/params.hpp"
#include "models/memory/memory_peak.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "sim/check.hpp"

namespace models {

namespace {

// NCCL buffer bytes of every rank over its communicators and point-to-point peers.
std::vector<double> nccl_bytes_per_rank(const World& world, const workload::StepPlan& plan,
                                        const collectives::CollectiveEngine& engine) {
  const int n = world.size();
  const double buffsize = double(world.nccl_env().buffsize);
  std::vector<double> bytes(n, 0.0);
  std::map<std::pair<std::size_t, int>, int> channels_by_shape;  // (size, nodes spanned) -> channels
  for (const auto& g : plan.groups) {
    if (g.ranks.size() < 2) continue;
    std::set<int> nodes;
    for (int r : g.ranks) nodes.insert(world.rank(r).node);
    const auto key = std::make_pair(g.ranks.size(), int(nodes.size()));
    auto it = channels_by_shape.find(key);
    if (it == channels_by_shape.end()) {
      // The ring/tree channels NCCL connects; NVLS runs on its own nvlsChannels (its multicast
      // buffers are not counted here), so where it takes the large all-reduce, an all-gather's.
      collectives::CollectiveRecord rec = engine.choose(g, nccl::CollOp::AllReduce, int64_t{1} << 30);
      if (rec.algo == nccl::Algo::NVLS) rec = engine.choose(g, nccl::CollOp::AllGather, int64_t{1} << 30);
      it = channels_by_shape.emplace(key, std::max(1, rec.channels)).first;
    }
    const double b = memory::nccl_buffer_bytes(it->second, 2, buffsize);
    for (int r : g.ranks) bytes[r] += b;
  }
  for (int r = 0; r < n && r < int(plan.ranks.size()); ++r) {
    std::set<int> peers;
    for (int p : plan.ranks[r].peer)
      if (p >= 0 && p != r) peers.insert(p);
    bytes[r] += double(peers.size()) * kP2pChannelsPerPeer * buffsize;
  }
  return bytes;
}

MemoryTerm term(const memory::Term& t) { return MemoryTerm{t.name, t.bytes}; }

}  // namespace

memory::MemoryInputs step_memory_inputs(const ScenarioSpec& spec, const model::ModelShape& shape,
                                        const workload::ParallelLayout& layout) {
  memory::MemoryInputs in;
  in.model = shape;
  in.strategy = layout.strategy;
  in.tp = layout.tp;
  in.pp = layout.pp;
  in.dp = layout.dp;
  if (layout.strategy == workload::Strategy::Hsdp) in.shard_group = layout.dp_shard;
  in.ep = layout.ep;
  in.etp = layout.etp;
  in.cp = layout.cp;
  in.vp = layout.vp;
  in.zero_bubble = layout.zero_bubble;
  if (layout.strategy == workload::Strategy::Megatron) in.split = workload::pipeline_split(layout, shape.layers);
  in.sequence_parallel = layout.sequence_parallel;
  in.distributed_optimizer = layout.distributed_optimizer;
  in.vocab_shards = layout.strategy == workload::Strategy::Megatron && layout.vocab_parallel ? layout.tp : 1;
  // The layout's recompute mode (training.recompute, or grad_checkpointing = full).
  in.recompute = layout.recompute == workload::Recompute::Full          ? memory::Recompute::Full
                 : layout.recompute == workload::Recompute::Selective   ? memory::Recompute::Selective
                 : layout.recompute == workload::Recompute::SelectiveOp ? memory::Recompute::SelectiveOp
                                                                        : memory::Recompute::None;
  in.micro_batch = spec.training.micro_batch;
  in.micro_batches = layout.strategy == workload::Strategy::Megatron ? layout.pipeline_micro_batches
                                                                     : layout.grad_accum;
  in.compute_bytes = workload::dtype_bytes(spec.training.dtype);
  in.fp16 = spec.training.dtype == "fp16";
  in.param_bytes =
      spec.training.param_dtype.empty() ? in.compute_bytes : workload::dtype_bytes(spec.training.param_dtype);
  in.reduce_bytes = workload::fsdp_reduce_bytes(spec.training);
  in.optimizer_bytes =
      spec.training.optimizer_dtype.empty() ? 0 : workload::dtype_bytes(spec.training.optimizer_dtype);
  // The optimizer the step runs (its time: workload/compute.hpp optimizer_plan), and so its temporary.
  in.adamw = workload::optimizer_plan(spec.training, layout.strategy).impl;
  in.megatron_without_master = layout.strategy == workload::Strategy::Megatron && !spec.training.param_dtype.empty();
  // Unfused attention keeps its scores for the backward under every strategy (memory_peak.cpp
  // stage_block_activation_bytes_per_token: the one place they are counted).
  in.unfused_attention = spec.training.attention_backend == "unfused";
  in.repeat_kv = spec.training.repeat_kv;
  in.keep_logits = spec.training.keep_logits;
  in.megatron_loss = layout.megatron_loss;
  in.checkpoint_every = layout.checkpoint_every;
  in.zero = spec.zero;
  in.framework_overhead_bytes =
      param_or(spec.cluster.params, "memory.framework_overhead", param_default("memory.framework_overhead"));
  return in;
}

MemoryFill estimate_step_memory(const ScenarioSpec& spec, const World& world, const workload::StepPlan& plan,
                                const collectives::CollectiveEngine& engine) {
  MemoryFill out;
  if (spec.collective || !spec.model) return out;
  SIM_CHECK(plan.shape && plan.layout, "a training step's plan carries its model and layout");
  const model::ModelShape& shape = *plan.shape;
  const workload::ParallelLayout& layout = *plan.layout;
  memory::MemoryInputs in = step_memory_inputs(spec, shape, layout);

  const std::vector<double> nccl = nccl_bytes_per_rank(world, plan, engine);
  const int n = world.size();

  MemoryResult& m = out.memory;
  m.estimated = true;
  m.recompute = memory::recompute_name(in.recompute);
  out.rank_peak_bytes.assign(n, 0.0);
  // Ranks of one stage differ only in their NCCL buffers: estimate each distinct pair once.
  std::map<std::pair<int, double>, memory::RankEstimate> cache;
  for (int r = 0; r < n; ++r) {
    const int stage = layout.strategy == workload::Strategy::Megatron ? workload::megatron_coord(layout, r).s : 0;
    auto key = std::make_pair(stage, nccl[r]);
    auto it = cache.find(key);
    if (it == cache.end()) {
      in.stage = stage;
      in.nccl_bytes = nccl[r];
      it = cache.emplace(key, memory::estimate_rank(in)).first;
    }
    const double peak = it->second.peak_bytes();
    out.rank_peak_bytes[r] = peak;
    // What a process can allocate on this rank's GPU, not the datasheet's figure
    // (hw/gpu_memory.hpp). The rank shown is the one with the least room left: on one kind of GPU
    // the largest peak; with [[cluster.groups]] of several, against each rank's own GPU.
    const hw::GpuSpec& gpu = world.node_of(world.rank(r).node).gpu;
    const double capacity = hw::usable_memory(gpu).bytes;
    if (r == 0 || peak - capacity > m.peak_bytes - m.capacity_bytes) {
      m.gpu = gpu.name;
      m.capacity_bytes = capacity;
      m.peak_bytes = peak;
      m.peak_rank = r;
      const memory::Phase& ph = it->second.peak_phase();
      m.phase = ph.name;
      m.terms.clear();
      for (const auto& t : ph.terms) m.terms.push_back(term(t));
    }
  }
  std::stable_sort(m.terms.begin(), m.terms.end(),
                   [](const MemoryTerm& a, const MemoryTerm& b) { return a.bytes > b.bytes; });
  m.fits = m.peak_bytes <= m.capacity_bytes;
  return out;
}

}  // namespace models
