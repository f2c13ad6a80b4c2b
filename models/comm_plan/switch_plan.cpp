// NVLS's and CollNet's parts of the plan (switch_plan.hpp). Heads: H per NCCL node, spread over its
// ranks the way the rings and tree sets are rotated (comm_plan.cpp rotation), so that on a node
// with one NIC per GPU every head has its own NIC (NCCL's NVLS and COLLNET_DIRECT graphs pick,
// per NIC, the GPU next to it: src/graph/search.cc ncclTopoSearchRecNet).
#include "models/comm_plan/switch_plan.hpp"

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "sim/check.hpp"

namespace models::collectives {

namespace {

// The position in its node (of `size` ranks) of head r of `heads`.
int head_position(int r, int heads, int size) { return (heads > 1 ? (r * size) / heads : 0) % size; }

// A one-link edge of rank g: the link `l` of a path g takes (its NVLink port, its NIC).
Edge one_link(const World& world, const sim::FlowNetwork& net, Edge e, sim::LinkId l, int g) {
  e.path.assign(1, l);
  e.from = e.to = g;
  e.bottleneck = l;
  e.raw_bandwidth = world.raw_capacity(l, net);
  e.rings_sharing = 1;
  e.fabric_latency_s = 0;
  return e;
}

// Per rank of every node, its NVLink port to the switch (tx: the first link of its path to a
// peer of its node) and from it (rx: the last link of a peer's path to it), with its head share.
void switch_ports(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                  int heads, std::vector<CommPlan::Port>& out) {
  for (const auto& m : members) {
    const int k = static_cast<int>(m.size());
    if (k < 2) continue;
    std::vector<double> head_frac(k, 0.0);
    for (int r = 0; r < heads; ++r) head_frac[head_position(r, heads, k)] += 1.0 / heads;
    for (int j = 0; j < k; ++j) {
      const int g = m[j], peer = m[(j + 1) % k];
      const Edge tx = make_edge(world, net, g, peer);
      const Edge rx = make_edge(world, net, peer, g);
      out.push_back({one_link(world, net, tx, tx.path.front(), g), true, head_frac[j], k});
      out.push_back({one_link(world, net, rx, rx.path.back(), g), false, head_frac[j], k});
    }
  }
}

bool is_nic(const sim::FlowNetwork& net, sim::LinkId l) {
  const std::string_view kind = net.link_kind(l);
  return kind == "ib" || kind == "efa";
}

// Per head (H per node), its NIC towards the SHARP switches (tx: the first NIC link of its path to
// the same head of the next node) and from them (rx: the last NIC link of the previous node's
// head's path to it); each moves its head share 1/H of S.
void sharp_ports(const World& world, const sim::FlowNetwork& net, const std::vector<std::vector<int>>& members,
                 int heads, std::vector<CommPlan::MergedEdge>& out) {
  const int nodes = static_cast<int>(members.size());
  if (nodes < 2) return;
  const auto head = [&](int node, int r) {
    const auto& m = members[node];
    return m[head_position(r, heads, static_cast<int>(m.size()))];
  };
  for (int i = 0; i < nodes; ++i)
    for (int r = 0; r < heads; ++r) {
      const int g = head(i, r);
      const Edge tx = make_edge(world, net, g, head((i + 1) % nodes, r));
      const Edge rx = make_edge(world, net, head((i + nodes - 1) % nodes, r), g);
      sim::LinkId up, down;
      bool found_up = false, found_down = false;
      for (sim::LinkId l : tx.path)
        if (!found_up && is_nic(net, l)) {
          up = l;
          found_up = true;
        }
      for (sim::LinkId l : rx.path)
        if (is_nic(net, l)) {
          down = l;
          found_down = true;
        }
      SIM_CHECK(found_up && found_down, "a SHARP head's path between nodes crosses no NIC");
      out.push_back({one_link(world, net, tx, up, g), 1.0 / heads, 1.0});
      out.push_back({one_link(world, net, rx, down, g), 1.0 / heads, 1.0});
    }
}

}  // namespace

void plan_nvls(const World& world, const sim::FlowNetwork& net, CommPlan& plan) {
  if (!plan.view.nvls || plan.view.nvls_heads < 1) return;
  switch_ports(world, net, plan.members, plan.view.nvls_heads, plan.nvls_ports);
  if (plan.view.collnet) sharp_ports(world, net, plan.members, plan.view.nvls_heads, plan.nvls_sharp);
}

void plan_collnet_direct(const World& world, const sim::FlowNetwork& net, CommPlan& plan) {
  if (!plan.view.collnet || plan.view.collnet_heads < 1) return;
  switch_ports(world, net, plan.members, plan.view.collnet_heads, plan.collnet_ports);
  sharp_ports(world, net, plan.members, plan.view.collnet_heads, plan.collnet_sharp);
}

void plan_collnet_chain(const World& world, const sim::FlowNetwork& net, CommPlan& plan) {
  if (!plan.view.collnet) return;
  const int sets = static_cast<int>(plan.trees.size());
  SIM_CHECK(sets > 0, "CollNetChain's plan needs the tree sets");
  // Merge identical (from, to) pairs in first-seen order (deterministic), as comm_plan.cpp does.
  std::unordered_map<uint64_t, std::size_t> index;
  for (const auto& ts : plan.trees)
    for (const auto* chain : {&ts.chain_up, &ts.chain_down})
      for (const Edge& e : *chain) {
        const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(e.from)) << 32) | static_cast<uint32_t>(e.to);
        auto [it, fresh] = index.try_emplace(key, plan.chain_merged.size());
        if (fresh)
          plan.chain_merged.push_back({e, 1.0 / sets, 1.0 / e.rings_sharing});
        else {
          plan.chain_merged[it->second].bytes_frac += 1.0 / sets;
          plan.chain_merged[it->second].share_frac += 1.0 / e.rings_sharing;
        }
      }
  // The sets' leaders are their heads (build_tree_sets rotates each set like its ring).
  sharp_ports(world, net, plan.members, sets, plan.chain_sharp);
}

}  // namespace models::collectives
