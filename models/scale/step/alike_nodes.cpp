// Alike nodes (replicas.hpp, alike_nodes_fold): whether every node is alike to node 0,
// checked from the programs, rank set-ups, placement and links alone; the collectives' flows are
// checked by the engine at their first launch (collectives/node_orbits.cpp).
#include "models/scale/step/replicas.hpp"

namespace models::scale {

using workload::kMaxSlots;
using workload::Op;
using workload::OpKind;
using workload::Program;
using workload::RankSetup;

namespace {
StepFold refused(int nodes, std::string why) {
  StepFold q;
  q.replicas = nodes;
  q.node_orbits = true;  // tried
  q.why_not = std::move(why);
  return q;
}
}  // namespace

StepFold alike_nodes_fold(const World& world, const sim::FlowNetwork& net, const std::vector<Program>& programs,
                          const std::vector<collectives::Group>& groups, const std::vector<RankSetup>& ranks) {
  const int n = static_cast<int>(ranks.size()), nodes = world.nodes();
  if (nodes < 2 || n != world.size()) return refused(nodes, "a single node");
  for (const Program& p : programs)
    for (const auto& stream : p.ops)
      for (const Op& op : stream)
        if (op.kind == OpKind::Send || op.kind == OpKind::Recv)
          return refused(nodes, "point-to-point transfers are per rank pair");
  // Per node, its ranks in increasing order; rank r stands at position place[r] of its node.
  std::vector<std::vector<int>> on_node(nodes);
  std::vector<int> place(n);
  for (int r = 0; r < n; ++r) {
    auto& mine = on_node[world.rank(r).node];
    place[r] = static_cast<int>(mine.size());
    mine.push_back(r);
  }
  for (int k = 1; k < nodes; ++k)
    if (on_node[k].size() != on_node[0].size())
      return refused(nodes, "node " + std::to_string(k) + " holds " + std::to_string(on_node[k].size()) +
                                " ranks, node 0 " + std::to_string(on_node[0].size()));
  const int ppn = world.placement().pods_per_node;
  for (int r = 0; r < n; ++r) {
    const int s = on_node[0][place[r]];
    if (s == r) continue;
    const std::string who = "rank " + std::to_string(r);
    if (ranks[r].program != ranks[s].program) return refused(nodes, who + " runs another program");
    if (bits(ranks[r].compute_scale) != bits(ranks[s].compute_scale))
      return refused(nodes, who + " computes at " + speed_text(ranks[r].compute_scale) + ", rank " + std::to_string(s) +
                                " (its place on node 0) at " + speed_text(ranks[s].compute_scale));
    const RankInfo &a = world.rank(r), &b = world.rank(s);
    if (a.local_gpu != b.local_gpu || a.pod_rank != b.pod_rank || a.pod - a.node * ppn != b.pod - b.node * ppn)
      return refused(nodes, who + " sits elsewhere on its node");
    for (int slot = 0; slot < kMaxSlots; ++slot) {
      if (ranks[r].group[slot] != ranks[s].group[slot]) return refused(nodes, who + " is in a group of its own node");
      if (ranks[r].peer[slot] >= 0 || ranks[s].peer[slot] >= 0) return refused(nodes, who + " has a peer");
    }
  }
  const World::LinkRange first = world.node_links(0);
  if (first.count == 0) return refused(nodes, "the World does not lay its links out per node");
  for (int k = 1; k < nodes; ++k) {
    const World::LinkRange range = world.node_links(k);
    if (range.count != first.count) return refused(nodes, "node " + std::to_string(k) + " is another kind");
    for (uint32_t o = 0; o < range.count; ++o) {
      const sim::LinkId x{first.first + o}, y{range.first + o};
      if (net.link_capacity(x) != net.link_capacity(y) || net.link_latency(x) != net.link_latency(y) ||
          world.raw_capacity(x, net) != world.raw_capacity(y, net))
        return refused(nodes, std::string(net.link_name(y)) + " differs from " + std::string(net.link_name(x)));
    }
  }

  StepFold q;
  q.replicas = nodes;
  q.simulated_replicas = 1;
  q.simulated_ranks = static_cast<int>(on_node[0].size());
  q.node_orbits = true;
  q.rep.resize(n);
  q.weight.assign(n, 0);
  for (int r = 0; r < n; ++r) {
    q.rep[r] = on_node[0][place[r]];
    ++q.weight[q.rep[r]];
  }
  // Every group spans the nodes alike (each rank is in its node-0 image's groups): launched once,
  // as node orbits on the folded links.
  q.folded_group.assign(groups.size(), 1);
  q.launches.assign(groups.size(), 1);
  // Link classes: link o of every node.
  q.class_of_link.assign(net.link_count(), sim::FlowNetwork::kNoClass);
  for (uint32_t o = 0; o < first.count; ++o) q.model_of_class.push_back(sim::LinkId{first.first + o});
  for (int k = 0; k < nodes; ++k) {
    const World::LinkRange range = world.node_links(k);
    for (uint32_t o = 0; o < range.count; ++o) q.class_of_link[range.first + o] = o;
  }
  return q;
}

}  // namespace models::scale
