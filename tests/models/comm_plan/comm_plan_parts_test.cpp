// The plan's parts laid out on demand (comm_plan.hpp, PlanPart) are the plan built at once: every
// edge (ends, path, rating, rings_sharing) and every merged edge, whatever the order in which the
// engine asks for them. Covers NVLSTree's trees without their chains, whose inter-node edges still
// count the chains in rings_sharing: on PCIe-bound SHM chains a leader's chain edge and its
// inter-node edge share their bottleneck (its PCIe link), so the count differs if a chain is missed.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/comm_plan/comm_plan.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

namespace {

std::vector<int> all_ranks(const World& w) {
  std::vector<int> r;
  for (int i = 0; i < w.size(); ++i) r.push_back(i);
  return r;
}

void same_edge(const Edge& a, const Edge& b) {
  CHECK(a.from == b.from);
  CHECK(a.to == b.to);
  REQUIRE(a.path.size() == b.path.size());
  for (std::size_t i = 0; i < a.path.size(); ++i) CHECK(a.path[i].index == b.path[i].index);
  CHECK(a.link_class == b.link_class);
  CHECK(a.p2p_read == b.p2p_read);
  CHECK(a.raw_bandwidth == b.raw_bandwidth);
  CHECK(a.simple_raw_factor == b.simple_raw_factor);
  CHECK(a.bottleneck.index == b.bottleneck.index);
  CHECK(a.rings_sharing == b.rings_sharing);
  CHECK(a.fabric_latency_s == b.fabric_latency_s);
}

void same_edges(const std::vector<Edge>& a, const std::vector<Edge>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) same_edge(a[i], b[i]);
}

void same_merged(const std::vector<CommPlan::MergedEdge>& a, const std::vector<CommPlan::MergedEdge>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    same_edge(a[i].edge, b[i].edge);
    CHECK(a[i].bytes_frac == b[i].bytes_frac);  // exact: the same sums in the same order
    CHECK(a[i].share_frac == b[i].share_frac);
  }
}

// The trees' inter-node edges (all an NVLSTree plan keeps of them) against the whole plan's.
void same_inter_edges(const CommPlan& part, const CommPlan& whole) {
  REQUIRE(part.trees.size() == whole.trees.size());
  for (std::size_t r = 0; r < whole.trees.size(); ++r)
    for (int t = 0; t < 2; ++t) {
      same_edges(part.trees[r].up[t], whole.trees[r].up[t]);
      same_edges(part.trees[r].down[t], whole.trees[r].down[t]);
    }
}

ScenarioSpec parts_cluster(const std::string& instance, int nodes) {
  ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  return s;
}

}  // namespace

TEST_CASE("comm plan: parts laid out on demand, in any order, equal the plan built at once", "[nccl]") {
  struct Case {
    std::string name;
    ScenarioSpec spec;
  };
  std::vector<Case> cases;
  cases.push_back({"p5 x 3 (NVLSTree)", parts_cluster("p5.48xlarge", 3)});
  cases.push_back({"p5en x 5", parts_cluster("p5en.48xlarge", 5)});
  cases.push_back({"p4d x 3", parts_cluster("p4d.24xlarge", 3)});
  {
    ScenarioSpec s = parts_cluster("p5en.48xlarge", 6);
    s.cluster.fabric.topology = "rail";
    s.cluster.fabric.pod_nodes = 2;
    cases.push_back({"p5en x 6 rail, pods of 2", s});
  }
  {
    // Chains over SHM through PCIe, PCIe the narrowest link: a leader's chain edge down and its
    // inter-node edges share its PCIe uplink as bottleneck.
    ScenarioSpec s = parts_cluster("p5.48xlarge", 3);
    s.nccl_env = {{"NCCL_P2P_DISABLE", "1"}};
    s.cluster.params["pcie.bandwidth"] = 1e9;
    cases.push_back({"p5 x 3 SHM chains, PCIe-bound", s});
  }
  {
    ScenarioSpec s = parts_cluster("p5.48xlarge", 2);
    s.nccl_env = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
    cases.push_back({"p5 x 2, every GPU its own NCCL node", s});
  }
  const std::vector<std::vector<unsigned>> orders = {
      {kPlanNvlsTree, kPlanTrees, kPlanRings}, {kPlanTrees, kPlanNvlsTree, kPlanRings}, {kPlanRings, kPlanNvlsTree}};
  bool shared_with_chain = false;
  for (const Case& c : cases) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(c.spec, net);
    const std::vector<int> ranks = all_ranks(*world);
    const CommPlan whole = build_plan(*world, net, ranks);
    // Is some inter-node bottleneck also a chain edge's? (The case this test must cover.)
    for (const auto& ts : whole.trees)
      for (const auto* chain : {&ts.chain_up, &ts.chain_down})
        for (const Edge& e : *chain)
          for (const auto& other : whole.trees)
            for (const Edge& x : other.up[0]) shared_with_chain |= x.bottleneck.index == e.bottleneck.index;
    for (std::size_t o = 0; o < orders.size(); ++o) {
      INFO(c.name << ", order " << o);
      CommPlan plan = build_plan(*world, net, ranks, 0);
      CHECK(plan.rings.empty());
      CHECK(plan.trees.empty());
      for (unsigned part : orders[o]) {
        complete_plan(*world, net, plan, part);
        if (part == kPlanNvlsTree) {
          same_inter_edges(plan, whole);
          same_merged(plan.nvls_net_merged, whole.nvls_net_merged);
          same_merged(plan.nvls_switch, whole.nvls_switch);
        }
      }
      REQUIRE(plan.rings.size() == whole.rings.size());
      for (std::size_t r = 0; r < whole.rings.size(); ++r) same_edges(plan.rings[r], whole.rings[r]);
      same_merged(plan.ring_merged, whole.ring_merged);
      same_merged(plan.nvls_net_merged, whole.nvls_net_merged);
      same_merged(plan.nvls_switch, whole.nvls_switch);
      if (plan.built & kPlanTrees) {
        same_inter_edges(plan, whole);
        for (std::size_t r = 0; r < whole.trees.size(); ++r) {
          same_edges(plan.trees[r].chain_up, whole.trees[r].chain_up);
          same_edges(plan.trees[r].chain_down, whole.trees[r].chain_down);
        }
        same_merged(plan.tree_merged, whole.tree_merged);
      } else {
        CHECK(plan.tree_merged.empty());
        for (const auto& ts : plan.trees) CHECK(ts.chain_up.empty());  // NVLSTree alone: no chains kept
      }
    }
  }
  CHECK(shared_with_chain);
}
