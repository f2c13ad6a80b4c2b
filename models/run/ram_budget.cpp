#include "models/run/ram_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include "models/error.hpp"
#include "models/topology/resolve.hpp"
#include "models/model/model_shape.hpp"

namespace models {

namespace {
constexpr double kBaseBytes = 32.0 * 1024 * 1024;
constexpr double kPerRankBytes = 8.0 * 1024;
constexpr double kPerFlowBytes = 512;
constexpr double kPerOpBytes = 160;
// Ops per unit and micro-step, the largest any strategy builds (ZeRO-3 with both offloads and
// checkpointing); ram_budget_test.cpp measures it and fails if a program exceeds the bound.
constexpr double kOpsPerUnitStep = 40;

bool is_alltoall(const ScenarioSpec& spec) {
  return spec.collective && (spec.collective->op == "alltoall" || spec.collective->op == "all_to_all");
}

// Folded flows per rank at most (models/collectives/all_to_all_fold.hpp): one per peer on its
// node, and per local GPU of the other nodes one per relation (same pod, another pod).
constexpr double kFoldFlowsPerGpu = 3;

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

std::string count(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 1e6 ? "%.0f" : "%.3g", v);
  return buf;
}
}  // namespace

bool alltoall_folds(const ScenarioSpec& spec, bool full) {
  if (full) return false;
  for (const StragglerSpec& st : spec.stragglers)
    if (st.nic_bandwidth_factor != 1 || !st.link.empty()) return false;  // the nodes or pods differ: pairs
  const auto net = spec.nccl_env.find("NCCL_NET");
  if (net != spec.nccl_env.end() && net->second == "Socket") return false;  // no sender/receiver split
  const auto gdr = spec.nccl_env.find("NCCL_NET_GDR_LEVEL");
  if (gdr != spec.nccl_env.end() && (gdr->second == "LOC" || gdr->second == "0"))
    return false;  // no GPUDirect RDMA: a host-staged path crosses a link twice, which the fold refuses
  hw::NodeSpec node;
  try {
    node = topology::resolve_node(spec.cluster);
  } catch (const std::exception&) {
    return false;  // the World reports it
  }
  if (spec.cluster.nodes > 1 && (node.nics == 0 || node.nic_kind == hw::NicKind::Eth))
    return false;  // Socket between nodes
  if (node.nic_kind == hw::NicKind::Efa && !spec.placement.efa_plugin_ok &&
      spec.cluster.nodes * spec.placement.pods_per_node > 1)
    return false;  // aws-ofi-nccl finds no provider: NET runs over Socket (nccl/transport.cpp)
  const FabricSpec& f = spec.cluster.fabric;
  if (f.topology == "nonblocking") return true;
  const bool spray = f.spreading == "spray" || (f.spreading.empty() && node.nic_kind == hw::NicKind::Efa);
  const bool even_pods = f.pod_nodes <= 0 || spec.cluster.nodes % f.pod_nodes == 0;
  const bool two_tiers = f.superpod_nodes <= 0 || spec.cluster.nodes <= f.superpod_nodes;  // Fabric::by_pod
  return spray && even_pods && two_tiers;  // ECMP hashes pairs; an uneven pod breaks the symmetry
}

namespace {
// estimate_program_ops on `ranks` GPUs (0: any). With training.global_batch the micro-steps are
// global_batch / (micro_batch x dp), dp = ranks / (tp x cp x pp) as the layout derives it
// (layout.cpp, derive_grad_accum); without the GPU count dp = 1, the bound for any count.
ProgramOps program_ops(const ScenarioSpec& spec, int ranks) {
  ProgramOps p;
  if (spec.collective) {
    // sendrecv: a send, a receive and two joins (record + wait each) per iteration (steps/strategy.cpp).
    const bool sendrecv = spec.collective->op == "sendrecv";
    p.programs = 1;
    p.ops = (sendrecv ? 6 : 1) * std::max(1.0, double(spec.collective->iterations));
    return p;
  }
  if (!spec.model) return p;
  double layers = spec.model->layers;
  if (layers <= 0) {
    try {
      layers = model::resolve_model(*spec.model).layers;
    } catch (const SpecError&) {
      return p;  // the strategy step reports the model's own error
    }
  }
  const double pp = std::max(1, spec.parallel.pp);
  double micro =
      spec.parallel.micro_batches > 0 ? spec.parallel.micro_batches : std::max(1, spec.training.grad_accum);
  if (spec.parallel.micro_batches <= 0 && spec.training.global_batch > 0) {
    // global_batch / (micro_batch x dp), as layout.cpp's derive_grad_accum (an uneven split is its error)
    const double model_parallel =
        double(std::max(1, spec.parallel.tp)) * std::max(1, spec.parallel.cp) * std::max(1, spec.parallel.pp);
    const double dp = ranks > 0 ? std::max(1.0, std::floor(ranks / model_parallel)) : 1.0;
    micro = std::max(1.0, std::floor(spec.training.global_batch / (std::max(1, spec.training.micro_batch) * dp)));
  }
  p.programs = spec.parallel.strategy == "megatron" ? pp : 1;
  p.ops = kOpsPerUnitStep * (layers + 2 * pp) * micro;
  return p;
}

// One byte per event of its program on every rank (StepExecutor's per-rank event flags).
double rank_event_bytes(const RunRamEstimate& e, double ranks) { return ranks * kEventsPerOp * e.ops / e.programs; }
}  // namespace

ProgramOps estimate_program_ops(const ScenarioSpec& spec) { return program_ops(spec, 0); }

RunRamEstimate estimate_run_ram(const ScenarioSpec& spec, int ranks, bool full) {
  const double n = ranks;
  RunRamEstimate e;
  if (spec.collective && is_alltoall(spec) && alltoall_folds(spec, full)) {
    int gpus = 8;
    try {
      gpus = topology::resolve_node(spec.cluster).gpus;
    } catch (const std::exception&) {  // the World reports it
    }
    e.peak_flows = std::min(n * (n - 1), kFoldFlowsPerGpu * gpus * n);
  } else if (spec.collective) {
    e.peak_flows = is_alltoall(spec) ? n * (n - 1) : 4 * n;
  } else {
    e.peak_flows = 8 * n;
  }
  const ProgramOps ops = program_ops(spec, ranks);
  e.ops = ops.ops;
  e.programs = ops.programs;
  e.bytes =
      kBaseBytes + n * kPerRankBytes + e.peak_flows * kPerFlowBytes + e.ops * kPerOpBytes + rank_event_bytes(e, n);
  return e;
}

void check_ram_budget(const ScenarioSpec& spec, int ranks, bool full) {
  const RunRamEstimate e = estimate_run_ram(spec, ranks, full);
  if (e.bytes <= kRamBudgetBytes) return;
  const std::string head = std::to_string(ranks) + " ranks would need about " + gib(e.bytes) + " (" +
                           count(e.peak_flows) + " flows at once, " + count(e.ops) + " program operations), over the " +
                           gib(kRamBudgetBytes) + " limit";
  // What dominates decides the key to change.
  const double ops_bytes = e.ops * kPerOpBytes + rank_event_bytes(e, ranks);
  const double flow_bytes = e.peak_flows * kPerFlowBytes;
  if (ops_bytes > flow_bytes && ops_bytes > ranks * kPerRankBytes) {
    if (spec.collective)
      throw SpecError("collective.iterations",
                      head + " (expected fewer collective.iterations: results are per iteration, a few suffice)");
    const bool accum = spec.parallel.micro_batches <= 0 && spec.training.grad_accum > 1;
    if (spec.parallel.micro_batches > 0)
      throw SpecError("parallel.micro_batches", head + " (expected fewer parallel.micro_batches)");
    if (spec.training.global_batch > 0)
      throw SpecError("training.global_batch",
                      head + " (expected a smaller training.global_batch: each of its micro-batches repeats the "
                             "step's operations)");
    throw SpecError(accum ? "training.grad_accum" : "model.layers",
                    head + (accum ? " (expected fewer training.grad_accum: each micro-batch repeats the step's "
                                    "operations)"
                                  : " (expected fewer model.layers)"));
  }
  if (is_alltoall(spec) && !alltoall_folds(spec, full)) {
    // Largest n with base + n*per_rank + n(n-1)*per_flow <= budget.
    const double a = kPerFlowBytes, b = kPerRankBytes - kPerFlowBytes, c = kBaseBytes - kRamBudgetBytes;
    const int fit = static_cast<int>(std::floor((-b + std::sqrt(b * b - 4 * a * c)) / (2 * a)));
    throw SpecError("collective.op",
                    head + ": alltoall opens a flow per ordered pair of ranks" +
                        (full ? " under --full"
                              : " where NIC or link stragglers, NET/Socket (an EFA plugin without a provider "
                                "included), GPUDirect RDMA off, ECMP or uneven pods keep it from folding") +
                        " (expected at most " + std::to_string(fit) +
                        " ranks, e.g. fewer cluster.nodes, or all_gather)");
  }
  throw SpecError("cluster.nodes", head + " (expected fewer cluster.nodes)");
}

}  // namespace models
