// The data-parallel communication a step must move and the least time its links need (dp_comm_bound.hpp).
#include "models/plan/dp_comm_bound.hpp"

#include <algorithm>
#include <vector>

#include "models/plan/comm_bound.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/placement.hpp"
#include "models/topology/resolve.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "models/workload/steps/megatron.hpp"
#include "models/workload/steps/sharded_step.hpp"
#include "models/world/link_rates.hpp"

namespace models::plan {

namespace {

// One group's collectives as one of its ranks issues them, S summed by kind (dp_comm_bound.hpp
// says what each must move).
struct GroupTraffic {
  int n = 1;  // the group's ranks
  double reduce_scatter = 0, all_gather = 0, all_reduce = 0;
  std::vector<int> members;
  bool empty() const { return reduce_scatter == 0 && all_gather == 0 && all_reduce == 0; }
};

void add_collective(GroupTraffic& g, nccl::CollOp op, double bytes) {
  if (op == nccl::CollOp::ReduceScatter) g.reduce_scatter += bytes;
  if (op == nccl::CollOp::AllGather) g.all_gather += bytes;
  if (op == nccl::CollOp::AllReduce) g.all_reduce += bytes;
}

// The data-parallel strategies: every rank runs one program; its collectives by group slot, and
// the groups as strategy.cpp builds them (slot 0 all ranks, or HSDP's shard groups of dp_shard
// consecutive ranks; slot 1 HSDP's replicas, the ranks at one place of every shard group).
std::vector<GroupTraffic> data_parallel_grad_groups(const ScenarioSpec& spec, const model::ModelShape& m,
                                                    const workload::ParallelLayout& l,
                                                    const workload::ComputeRates& rates, int node_ranks) {
  const workload::DataParallelConfig c = workload::data_parallel_config(spec, m, l, rates, node_ranks, node_ranks);
  const workload::Program p = workload::build_data_parallel_program(c);
  const bool hsdp = l.strategy == workload::Strategy::Hsdp && l.dp_shard > 0 && l.dp_shard < l.dp;
  GroupTraffic slot[2];
  for (const auto& stream : p.ops)
    for (const workload::Op& op : stream)
      if (op.kind == workload::OpKind::Collective && op.slot <= workload::kReplicaSlot)
        add_collective(slot[op.slot], op.coll, double(op.bytes));
  std::vector<GroupTraffic> groups;
  if (!hsdp) {
    GroupTraffic g = slot[workload::kDpSlot];
    g.n = l.dp;
    for (int r = 0; r < l.dp; ++r) g.members.push_back(r);
    groups.push_back(std::move(g));
    return groups;
  }
  const int shard = l.dp_shard, replicas = l.dp / l.dp_shard;
  for (int k = 0; k < replicas; ++k) {
    GroupTraffic g = slot[workload::kDpSlot];
    g.n = shard;
    for (int s = 0; s < shard; ++s) g.members.push_back(k * shard + s);
    groups.push_back(std::move(g));
  }
  for (int s = 0; s < shard; ++s) {
    GroupTraffic g = slot[workload::kReplicaSlot];
    g.n = replicas;
    for (int k = 0; k < replicas; ++k) g.members.push_back(k * shard + s);
    groups.push_back(std::move(g));
  }
  return groups;
}

// Megatron: per stage, the dense gradients over dp x cp (per (t, s)) and the routed experts' over
// the expert-data-parallel ranks (per (te, e, s)), as megatron_groups.cpp forms those groups.
std::vector<GroupTraffic> megatron_grad_groups(const ScenarioSpec& spec, const model::ModelShape& m,
                                               const workload::ParallelLayout& l, const workload::ComputeRates& rates) {
  workload::MegatronConfig c;
  c.model = m;
  c.training = spec.training;
  c.layout = l;
  c.rates = rates;
  const double grad = workload::megatron_grad_bytes(spec.training);
  const double param = workload::megatron_param_bytes(spec.training);
  auto traffic = [&](int64_t params, int n) {
    GroupTraffic g;
    g.n = n;
    if (n <= 1 || params == 0) return g;
    if (l.distributed_optimizer) {
      add_collective(g, nccl::CollOp::ReduceScatter, double(params) * grad);
      add_collective(g, nccl::CollOp::AllGather, double(params) * param);
    } else {
      add_collective(g, nccl::CollOp::AllReduce, double(params) * grad);
    }
    return g;
  };
  std::vector<GroupTraffic> groups;
  const int edp = l.edp(), stage_size = l.tp * l.cp * l.dp;
  for (int s = 0; s < l.pp; ++s) {
    const workload::StageGradParams p = workload::megatron_stage_grad_params(c, s);
    for (int t = 0; t < l.tp; ++t) {
      GroupTraffic g = traffic(p.dense, l.dp * l.cp);
      if (g.empty()) break;
      for (int d = 0; d < l.dp; ++d)
        for (int k = 0; k < l.cp; ++k) g.members.push_back(workload::megatron_rank(l, {t, k, d, s}));
      groups.push_back(std::move(g));
    }
    if (!m.is_moe()) continue;
    for (int te = 0; te < l.etp; ++te)
      for (int e = 0; e < l.ep; ++e) {
        GroupTraffic g = traffic(p.experts, edp);
        if (g.empty()) break;
        for (int j = 0; j < edp; ++j) g.members.push_back(s * stage_size + te + l.etp * (e + l.ep * j));
        groups.push_back(std::move(g));
      }
  }
  return groups;
}

}  // namespace

DpCommBound dp_comm_bound(const ScenarioSpec& spec, const model::ModelShape& m, const workload::ParallelLayout& l,
                          const workload::ComputeRates& rates) {
  DpCommBound b;
  const hw::NodeSpec node = topology::resolve_node(spec.cluster);
  const topology::Placement place = topology::make_placement(spec.cluster, spec.placement, node.gpus);
  std::vector<GroupTraffic> groups;
  try {
    groups = l.strategy == workload::Strategy::Megatron
                 ? megatron_grad_groups(spec, m, l, rates)
                 : data_parallel_grad_groups(spec, m, l, rates, place.ranks_per_node());
  } catch (const std::exception&) {
    return b;  // a program the run would refuse too: no bound from it (0 is one)
  }
  const int world = place.size();
  std::vector<int> node_of(world);
  for (int r = 0; r < world; ++r) node_of[r] = place.rank(r).node;
  // The ranks' and the nodes' bytes per direction, summed over the groups each belongs to.
  std::vector<double> rank_out(world, 0), rank_in(world, 0);
  std::vector<double> node_out(place.nodes, 0), node_in(place.nodes, 0);
  std::vector<int> on_node(place.nodes, 0), touched;  // the group's ranks per node, and those nodes
  for (const GroupTraffic& g : groups) {
    if (g.n <= 1) continue;
    const double share = double(g.n - 1) / g.n;
    touched.clear();
    for (int r : g.members) {
      if (r < 0 || r >= world) continue;
      rank_out[r] += share * g.reduce_scatter + g.all_reduce;
      rank_in[r] += share * g.all_gather + g.all_reduce;
      if (on_node[node_of[r]]++ == 0) touched.push_back(node_of[r]);
    }
    for (int n : touched) {
      const double away = double(g.n - on_node[n]) / g.n;
      if (away > 0) {  // some of the group is elsewhere
        node_out[n] += away * g.reduce_scatter + g.all_reduce;
        node_in[n] += away * g.all_gather + g.all_reduce;
      }
      on_node[n] = 0;
    }
  }
  for (int r = 0; r < world; ++r)
    if (std::max(rank_out[r], rank_in[r]) > std::max(b.rank_out_bytes, b.rank_in_bytes))
      b.rank_out_bytes = rank_out[r], b.rank_in_bytes = rank_in[r];
  b.port_s = std::max(b.rank_out_bytes, b.rank_in_bytes) / gpu_port_bytes_per_s(spec);
  if (place.nodes > 1) {
    for (int n = 0; n < place.nodes; ++n)
      if (std::max(node_out[n], node_in[n]) > std::max(b.node_out_bytes, b.node_in_bytes))
        b.node_out_bytes = node_out[n], b.node_in_bytes = node_in[n];
    const topology::NodeGraph graph(node);
    const NodeLinkRates k = node_link_rates(spec, node, graph);
    const double capacity = graph.nics() * k.nic_bw * k.nic_eff + k.eth_bw;
    if (capacity > 0) b.network_s = std::max(b.node_out_bytes, b.node_in_bytes) / capacity;
  }
  return b;
}

}  // namespace models::plan
