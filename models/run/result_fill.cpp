// RunResult assembly (see result_fill.hpp).
#include "models/run/result_fill.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "models/hw/links.hpp"
#include "models/model/model_shape.hpp"
#include "models/run/breakdown.hpp"
#include "models/run/throughput.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "sim/check.hpp"

namespace models {

std::vector<int> timeline_ranks(const workload::StepExecutor& exec) {
  const auto& ranks = exec.ranks();
  const int n = int(ranks.size());
  std::vector<int> out;
  if (n <= 16) {
    for (int r = 0; r < n; ++r) out.push_back(r);
    return out;
  }
  // A straggler, or a variability draw, runs its program at another speed: its own row, as the
  // rank the others wait on (compared by bits, as scale::rank_classes tells speeds apart).
  std::set<std::pair<int, double>> seen;
  for (int r = 0; r < n; ++r)
    if (seen.insert({ranks[r].program, ranks[r].compute_scale}).second) out.push_back(r);
  if (out.back() != n - 1) out.push_back(n - 1);
  return out;
}

std::string timeline_ranks_why(int ranks, int shown) {
  if (shown >= ranks) return "every rank";
  return "the first rank of each program (pipeline stage, GPU kind) at each compute speed (stragglers), and the "
         "last rank";
}

std::vector<CollectiveUse> collectives_used(const workload::StepExecutor& exec, const World& world) {
  const auto& programs = exec.programs();
  const auto& groups = exec.groups();
  // Per program, its (group slot, op) pairs and the sizes launched on each, in program order.
  struct Launch {
    int slot;
    nccl::CollOp op;
    int64_t min_bytes, max_bytes;
  };
  std::vector<std::vector<Launch>> launches(programs.size());
  for (std::size_t p = 0; p < programs.size(); ++p)
    for (const auto& stream : programs[p].ops)
      for (const auto& op : stream) {
        if (op.kind != workload::OpKind::Collective) continue;
        auto& list = launches[p];
        auto it = std::find_if(list.begin(), list.end(),
                               [&](const Launch& l) { return l.slot == op.slot && l.op == op.coll; });
        if (it == list.end())
          list.push_back({op.slot, op.coll, op.bytes, op.bytes});
        else
          it->min_bytes = std::min(it->min_bytes, op.bytes), it->max_bytes = std::max(it->max_bytes, op.bytes);
      }
  std::vector<CollectiveUse> out;
  std::map<std::tuple<nccl::CollOp, std::string, std::size_t>, std::size_t> index;  // -> out
  for (const auto& rank : exec.ranks())
    for (const Launch& l : launches[rank.program]) {
      const int g = rank.group[l.slot];
      if (g < 0 || g >= int(groups.size())) continue;
      const collectives::Group& group = groups[g];
      const auto [it, added] = index.try_emplace({l.op, group.name, group.ranks.size()}, out.size());
      if (added) {
        CollectiveUse u;
        u.op = nccl::coll_op_name(l.op);
        u.group = group.name;
        u.ranks = group.ranks;
        std::set<int> nodes;
        for (int r : group.ranks) nodes.insert(world.rank(r).node);
        u.nodes = int(nodes.size());
        u.min_bytes = l.min_bytes;
        u.max_bytes = l.max_bytes;
        out.push_back(std::move(u));
      } else {
        CollectiveUse& u = out[it->second];
        u.min_bytes = std::min(u.min_bytes, l.min_bytes);
        u.max_bytes = std::max(u.max_bytes, l.max_bytes);
      }
    }
  return out;
}

// Pairs listed one by one for the topology picture, up to this many per transport: a cap over
// all of them let the first groups walked (a 4,096-GPU Megatron run's data-parallel rings over
// InfiniBand) fill the list, and the picture lost NVLink inside the node.
constexpr int kMaxListedPairsPerTransport = 1024;

std::vector<TransportCount> count_transports(const workload::StepExecutor& exec, const World& world,
                                             std::vector<PairTransport>& pairs) {
  // Every ring neighbour pair of every group and every point-to-point pair, in walk order (131,072
  // GPUs under Megatron: ~400 k pairs). Each distinct ordered pair counts once, at its first
  // appearance: the keys are sorted with their walk position, the first of each kept, and the
  // survivors visited in walk order again (a hash set node per pair was most of this function).
  std::vector<std::pair<uint64_t, uint32_t>> keys;  // (pair, walk position)
  auto add = [&](int a, int b) {
    if (a == b) return;
    keys.push_back({(uint64_t(uint32_t(a)) << 32) | uint32_t(b), static_cast<uint32_t>(keys.size())});
  };
  for (const auto& g : exec.groups()) {
    const auto& m = g.ranks;
    if (m.size() < 2) continue;
    for (std::size_t i = 0; i < m.size(); ++i) add(m[i], m[(i + 1) % m.size()]);
  }
  for (auto [a, b] : exec.p2p_pairs()) add(a, b);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
             keys.end());
  std::sort(keys.begin(), keys.end(), [](const auto& x, const auto& y) { return x.second < y.second; });

  struct Tally {
    int pairs = 0;
    std::string link_class;  // the label alone cannot tell NVLink from PCIe P2P
  };
  std::map<std::string, Tally> counts;
  for (const auto& [key, order] : keys) {
    const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xffffffffu);
    const Transport t = world.transport(a, b);
    Tally& tally = counts[t.label];
    tally.link_class = link_class_name(t.link_class);  // a label's class: its last pair's
    if (tally.pairs++ < kMaxListedPairsPerTransport) pairs.push_back({a, b, t.label, tally.link_class});
  }
  std::vector<TransportCount> out;
  for (auto& [label, tally] : counts) {
    TransportCount t;
    t.label = label;
    t.pairs = tally.pairs;
    t.link_class = tally.link_class;
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pairs > b.pairs; });
  return out;
}

RunResult fill_result(const workload::StepExecutor& exec, const sim::FlowNetwork& net, const World& world,
                      const ScenarioSpec& spec, const RunOptions& options,
                      const std::function<bool(std::string_view link_name)>& keep_link) {
  RunResult res;
  res.scenario = spec.name;
  // A run stopped by --time-limit reports how far it got (a lower bound of the step).
  const sim::Time step_end = exec.stopped() ? std::max(exec.end(), exec.now()) : exec.end();
  const double step = (step_end - exec.start()).seconds();
  res.step_time_s = step;
  res.steps = std::max(1, spec.training.steps);
  res.run_time_s = step * res.steps;
  res.partial = exec.stopped();
  const int n = int(exec.ranks().size());
  double sum_compute = 0, sum_comm = 0, sum_exposed = 0, sum_barrier = 0, sum_offload = 0, sum_host = 0;
  res.ranks.reserve(n);
  for (int r = 0; r < n; ++r) {
    const workload::RankAccount& a = exec.account(r);
    const RankInfo& info = world.rank(r);
    RankResult rr;
    rr.rank = r;
    rr.node = info.node;
    rr.pod = info.pod;
    rr.gpu = info.local_gpu;
    rr.compute_s = a.compute.seconds();
    rr.comm_s = a.comm.seconds();
    rr.exposed_comm_s = a.exposed.seconds();
    rr.offload_s = a.offload.seconds();
    rr.breakdown = rank_breakdown(exec, r, step_end);
    // One barrier wait per rank: the breakdown's (idle at a collective a member has not reached,
    // or done before the slowest rank), so `barrier_wait_s` and `breakdown.barrier_wait_s` agree.
    // A pipeline stage's idle wait for its send/recv peer is its bubble, not barrier wait.
    rr.barrier_wait_s = rr.breakdown.barrier_wait_s;
    if (options.audit && !res.partial) {
      // Accounts are parts of the rank's own span: none can exceed the step.
      const double eps = 1e-9 + 1e-9 * step;
      SIM_CHECK(rr.compute_s <= step + eps && rr.comm_s <= step + eps && rr.exposed_comm_s <= rr.comm_s + eps,
                "rank account exceeds the step time");
      SIM_CHECK(rr.exposed_comm_s + rr.offload_s <= step - rr.compute_s + eps + 1e-6 * step,
                "exposed time overlaps compute");
    }
    sum_compute += rr.compute_s;
    sum_comm += rr.comm_s;
    sum_exposed += rr.exposed_comm_s;
    sum_barrier += rr.barrier_wait_s;
    sum_offload += rr.offload_s;
    sum_host += a.busy_host.seconds();
    res.ranks.push_back(rr);
  }
  const double inv = n > 0 ? 1.0 / n : 0;
  res.breakdown["compute_s"] = sum_compute * inv;
  res.breakdown["comm_s"] = sum_comm * inv;
  res.breakdown["exposed_comm_s"] = sum_exposed * inv;
  res.breakdown["barrier_wait_s"] = sum_barrier * inv;
  res.breakdown["offload_s"] = sum_offload * inv;
  res.breakdown["cpu_adam_s"] = sum_host * inv;
  res.breakdown["collectives"] = double(exec.collectives_launched());
  // --time-limit: how much of one step was simulated (operations finished / operations).
  if (res.partial) res.breakdown["simulated_fraction"] = exec.progress();
  res.step_breakdown = mean_breakdown(res.ranks);

  // Every loaded link's figures, then the 32 most utilized (ties by name) as LinkResults: names
  // are copied for those only (a 131,072-GPU cluster has a million links).
  struct Loaded {
    double utilization, bytes;
    sim::Time busy;
    double capacity;
    uint32_t link;
  };
  std::vector<Loaded> loaded;
  for (std::size_t i = 0; i < net.link_count(); ++i) {
    const sim::LinkId l{uint32_t(i)};
    if (net.is_folded_link(l)) continue;
    // Simulated replicas (models/scale/step/replicas.hpp): a link also carried, at other instants than the
    // spanning collectives' traffic, its replica's own traffic, which ran on its class's folded link.
    // Bytes are whole numbers and busy times picoseconds: the sums are the full simulation's.
    const std::optional<sim::LinkId> folded = net.folded_link_of(l);
    const double bytes = net.link_bytes(l) + (folded ? net.link_bytes(*folded) : 0.0);
    if (bytes <= 0) continue;
    if (keep_link && !keep_link(net.link_name(l))) continue;
    const double capacity = world.raw_capacity(l, net);  // physical (an NVLink port's usable part is less)
    const double utilization = step > 0 && capacity > 0 ? bytes / (capacity * step) : 0;
    if (options.audit && !res.partial)
      SIM_CHECK(utilization <= 1.0 + 1e-6, "a link carried more than its capacity over the step");
    loaded.push_back({utilization, bytes, net.link_busy(l) + (folded ? net.link_busy(*folded) : sim::Time::zero()),
                      capacity, uint32_t(i)});
  }
  const auto busier = [&](const Loaded& a, const Loaded& b) {
    return a.utilization != b.utilization ? a.utilization > b.utilization
                                          : net.link_name({a.link}) < net.link_name({b.link});
  };
  // Per kind over every link, before the list is cut to the busiest.
  std::map<std::string, LinkClassResult> by_kind;
  for (const Loaded& x : loaded) {
    LinkClassResult& c = by_kind[std::string(net.link_kind({x.link}))];
    ++c.links;
    c.bytes += x.bytes;
    c.mean_utilization += x.utilization;  // a sum until divided below
    c.max_utilization = std::max(c.max_utilization, x.utilization);
  }
  for (auto& [kind, c] : by_kind) {
    c.kind = kind;
    c.mean_utilization /= double(std::max<int64_t>(1, c.links));
    res.link_classes.push_back(c);
  }
  std::stable_sort(
      res.link_classes.begin(), res.link_classes.end(),
      [](const LinkClassResult& a, const LinkClassResult& b) { return a.max_utilization > b.max_utilization; });
  const std::size_t shown = std::min<std::size_t>(loaded.size(), 32);
  std::partial_sort(loaded.begin(), loaded.begin() + static_cast<std::ptrdiff_t>(shown), loaded.end(), busier);
  for (std::size_t i = 0; i < shown; ++i) {
    const Loaded& x = loaded[i];
    LinkResult lr;
    lr.name = std::string(net.link_name({x.link}));
    lr.kind = net.link_kind({x.link});
    lr.bytes = x.bytes;
    lr.busy_s = x.busy.seconds();
    lr.capacity_bytes_per_s = x.capacity;
    lr.utilization = x.utilization;
    res.links.push_back(std::move(lr));
  }
  res.transports = count_transports(exec, world, res.pair_transports);
  res.timeline = exec.timeline();
  if (!res.timeline.empty()) {  // the ranks it has rows for (those recorded: every one has events)
    std::set<int> shown;
    for (const auto& e : res.timeline) shown.insert(e.rank);
    res.timeline_ranks.assign(shown.begin(), shown.end());
    res.timeline_ranks_why = timeline_ranks_why(n, int(shown.size()));
  }
  res.collectives_used = collectives_used(exec, world);
  return res;
}

namespace {
// MFU keeps Megatron-LM's FLOP count, whose attention runs every layer over the whole sequence;
// where layers attend over a window the step computes less, so the note gives the rate over what
// each layer computes beside it (throughput.hpp windowed_step_flops).
std::optional<std::string> windowed_mfu_note(const model::ModelShape& m, const ThroughputResult& t, double step_s,
                                             int gpus) {
  const model::LocalAttention& w = m.local;
  if (w.window <= 0 || w.layers <= 0 || w.window >= m.seq || step_s <= 0 || gpus <= 0 || t.peak_tflops_per_gpu <= 0)
    return std::nullopt;
  const double tflops = windowed_step_flops(m, t.samples_per_step) / step_s / gpus / 1e12;
  const int local = static_cast<int>(std::lround(double(m.layers) * w.layers / std::max(1, w.period)));
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "MFU: Megatron-LM's FLOP count takes every layer's attention over the whole sequence; %d of %d layers "
                "here attend over %s of %d tokens, so the step computes less: with each layer's own keys, %.0f "
                "TFLOP/s per GPU, MFU %.1f %% (against %.1f %%)",
                local, m.layers, w.chunked ? "chunks" : "a sliding window", w.window, tflops,
                100 * tflops / t.peak_tflops_per_gpu, 100 * t.mfu);
  return std::string(buf);
}

// What a mixture-of-experts step assumes and what checks it (docs/limitations.md): one skew factor
// for every rank, balanced unless set, and no whole MoE training step measured.
std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string moe_caveat(const model::ModelShape& m) {
  const std::string routing =
      m.moe.token_skew > 1.0
          ? "model.token_skew = " + fmt_number(m.moe.token_skew) + " gives every rank the busiest one's tokens"
          : "tokens are routed evenly (model.token_skew = 1: each expert rank gets the average; real routers are "
            "uneven, so read this step as optimistic and set model.token_skew, the busiest rank's tokens over the "
            "average, and model.capacity_factor where a capacity caps it, to price it)";
  std::string capacity;
  if (m.moe.capacity_factor > 0 && m.moe.token_skew > m.moe.capacity_factor && !m.moe.pad_to_capacity)
    capacity = "; model.capacity_factor = " + fmt_number(m.moe.capacity_factor) + " caps the busiest experts at " +
               fmt_number(m.moe.capacity_factor) + "x their average tokens: they drop " +
               fmt_number(std::round(1000 * (1 - m.moe.capacity_factor / m.moe.token_skew)) / 10) +
               " % of theirs, which the time does not price (the loss may need more steps)";
  return "mixture of experts: " + routing + capacity +
         "; no measured multi-GPU MoE training step checks a whole step (only its all-to-alls are checked: "
         "docs/accuracy.md)";
}
// A calibration profile used away from where it was measured (its [fitted] table): on another GPU,
// or at a node count its network files did not run at. Its fit holds where it was measured; a
// profile fitted on 2 x p5.48xlarge did worse than the defaults at 4-32 nodes.
std::string profile_fit_caveat(const ScenarioSpec& spec, const World& world) {
  if (!spec.cluster.profile_fit) return "";
  const auto& fit = *spec.cluster.profile_fit;
  const std::string& gpu = world.node().gpu.name;
  const int nodes = world.nodes();
  const bool other_gpu = !fit.gpu.empty() && fit.gpu != gpu;
  const bool other_nodes =
      !fit.nodes.empty() && nodes > 1 && std::find(fit.nodes.begin(), fit.nodes.end(), nodes) == fit.nodes.end();
  if (!other_gpu && !other_nodes) return "";
  std::string where;
  for (std::size_t i = 0; i < fit.nodes.size(); ++i)
    where += (i ? (i + 1 == fit.nodes.size() ? " and " : ", ") : "") + std::to_string(fit.nodes[i]);
  return "calibration profile " + fit.file + " was fitted on " +
         (fit.instance.empty() ? std::string() : fit.instance + " ") + "(" + fit.gpu + ")" +
         (fit.nodes.empty() ? std::string() : ", its network at " + where + " node" + (where == "1" ? "" : "s")) +
         "; this run has " + (other_gpu ? gpu : std::string()) + (other_gpu && other_nodes ? " and " : "") +
         (other_nodes ? std::to_string(nodes) + " nodes" : std::string()) +
         ": its link parameters hold where they were measured (fitted on 2 x p5.48xlarge, a profile did worse than "
         "the defaults at 4-32 nodes: docs/measured-runs.md)";
}

}  // namespace

void complete_result(RunResult& result, const ScenarioSpec& spec, const World& world, const workload::StepPlan& plan,
                     MemoryFill memory) {
  const std::vector<std::string>& notes = plan.notes;
  const int iterations = plan.iterations;
  result.notes.insert(result.notes.begin(), notes.begin(), notes.end());
  for (std::string caveat : {world.network_note(), world.nvlink_note()})
    if (!caveat.empty()) result.caveats.push_back(std::move(caveat));
  if (const std::string fit = profile_fit_caveat(spec, world); !fit.empty()) {
    result.notes.push_back(fit);
    result.caveats.push_back(fit);
  }
  if (spec.model && plan.layout && workload::offloads_to_host(spec, *plan.layout)) {
    result.notes.push_back(workload::kOffloadCaveat);
    result.caveats.push_back(workload::kOffloadCaveat);
  }
  if (plan.shape && plan.shape->is_moe()) {
    const std::string moe = moe_caveat(*plan.shape);
    result.notes.push_back(moe);
    result.caveats.push_back(moe);
  }
  if (std::any_of(result.transports.begin(), result.transports.end(),
                  [](const TransportCount& t) { return t.link_class == link_class_name(LinkClass::Socket); })) {
    // The level is the default (calibrate sets it) or one the scenario or its profile sets.
    std::string note = hw::kSocketRateNote;
    if (const auto it = spec.cluster.params.find("socket.efficiency.simple"); it != spec.cluster.params.end())
      note = hw::kSocketRateNoteGiven + fmt_number(it->second) +
             ", given): measured on another boot of its host it may be 25 % off (docs/accuracy.md, TCP steps)";
    result.notes.push_back(note);
    result.caveats.push_back(note);
  }
  result.memory = std::move(memory.memory);
  for (std::size_t r = 0; r < memory.rank_peak_bytes.size() && r < result.ranks.size(); ++r)
    result.ranks[r].memory_peak_bytes = memory.rank_peak_bytes[r];
  if (!spec.collective && spec.model) {
    SIM_CHECK(plan.shape && plan.layout, "a training step's plan carries its model and layout");
    const model::ModelShape& shape = *plan.shape;
    const workload::ParallelLayout& layout = *plan.layout;
    const int micro_batches = layout.strategy == workload::Strategy::Megatron ? layout.pipeline_micro_batches
                                                                              : layout.grad_accum;
    result.micro_batches = micro_batches;
    result.micro_batch_size = layout.micro_batch;
    // MFU against the GPUs the ranks run on: their mean peak ([[cluster.groups]] may mix GPUs).
    double peak_sum = 0;
    for (int r = 0; r < world.size(); ++r) peak_sum += world.node_of(world.rank(r).node).gpu.bf16_flops;
    result.throughput =
        make_throughput(shape, samples_per_step(spec, layout.dp, micro_batches), result.step_time_s, world.size(),
                        peak_sum / std::max(1, world.size()), workload::checkpointing(layout));
    if (auto note = windowed_mfu_note(shape, result.throughput, result.step_time_s, world.size()))
      result.notes.push_back(*note);
  }
  if (spec.collective) {
    result.step_time_s /= iterations;
    result.run_time_s = result.step_time_s * iterations;
    result.steps = iterations;
    // Every per-rank and per-link figure is per iteration too, so a rank's communication is never
    // shown as 20 iterations' beside one iteration's step.
    const double per = 1.0 / std::max(1, iterations);
    for (auto& r : result.ranks) {
      r.breakdown = scaled(r.breakdown, iterations);
      for (double* f : {&r.compute_s, &r.comm_s, &r.exposed_comm_s, &r.barrier_wait_s, &r.offload_s}) *f *= per;
    }
    for (auto& l : result.links) {  // utilisation (bytes over capacity x time) is unchanged
      l.bytes *= per;
      l.busy_s *= per;
    }
    result.step_breakdown = scaled(result.step_breakdown, iterations);
  }
}

}  // namespace models
