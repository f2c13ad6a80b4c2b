// The communicator plan's steps (comm_plan.cpp, graph_search.cpp) on the rig of rig.hpp and on a
// catalog instance: NCCL nodes, ring order, the tuner's view (compute capability from the
// catalog), rings per NIC group, tree sets.
#include <catch2/catch.hpp>

#include <numeric>
#include <set>
#include <string>

#include "models/collectives/comm_plan.hpp"
#include "models/hw/gpu.hpp"
#include "models/hw/instance.hpp"
#include "rig.hpp"

using namespace collectives_test;

namespace {
std::vector<int> all_ranks(const World& w) {
  std::vector<int> r;
  for (int i = 0; i < w.size(); ++i) r.push_back(i);
  return r;
}
}  // namespace

TEST_CASE("comm plan: one NVSwitch node is one NCCL node, one ring, 12 channels x 30 GB/s on H200", "[nccl]") {
  // H200: 450 GB/s = 18 NVLink links of 25 GB/s, which NCCL rates at 20.6 GB/s each (topo.h):
  // 370.8 GB/s, so the fastest speed that still gives 12 channels is 30 GB/s (as logged on
  // 4 x H200: scenarios/validation/h200x4/measured/nccl-tests/ar_g4_info.txt).
  Rig rig(1, 4, 450e9, 50e9);
  const CommPlan plan = build_plan(rig.world, rig.net, all_ranks(rig.world));
  CHECK(plan.view.nnodes == 1);
  CHECK(plan.view.intra_nvlink);
  CHECK(plan.view.bw_intra_gbs == 30);
  CHECK(plan.view.graph_channels == 12);
  CHECK(plan.ring == std::vector<int>{0, 1, 2, 3});
  REQUIRE(plan.rings.size() == 1);
  CHECK(plan.rings[0].size() == 4);
  REQUIRE(plan.trees.size() == 1);
  CHECK(plan.trees[0].chain_up.size() == 3);  // a chain of 4 GPUs
  CHECK(plan.trees[0].up[0].empty());         // no node to cross
  CHECK(plan.ring_merged.size() == 4);
}

TEST_CASE("comm plan: across nodes the network is rated at NIC speed, one graph channel per NIC", "[nccl]") {
  Rig rig(2, 4, 450e9, 12.5e9);
  const CommPlan plan = build_plan(rig.world, rig.net, all_ranks(rig.world));
  CHECK(plan.view.nnodes == 2);
  CHECK(plan.view.bw_inter_gbs == Approx(12.5));
  CHECK(plan.view.graph_channels == 1);  // one NIC per node
  CHECK(plan.node_of == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  REQUIRE(plan.rings.size() == 1);  // one NIC group: one ring
  // The ring leaves each node once: edges 3->4 and 7->0 cross the NICs.
  CHECK(plan.rings[0][3].link_class == LinkClass::IB);
  CHECK(plan.rings[0][7].link_class == LinkClass::IB);
  // Double binary tree over 2 leaders: tree 0 has 1 -> 0, tree 1 mirrors it (0 -> 1).
  REQUIRE(plan.trees.size() == 1);
  REQUIRE(plan.trees[0].up[0].size() == 1);
  CHECK(plan.trees[0].up[0][0].from == 4);
  CHECK(plan.trees[0].up[0][0].to == 0);
  CHECK(plan.trees[0].up[1][0].from == 0);
  CHECK(plan.trees[0].up[1][0].to == 4);
}

TEST_CASE("comm plan: one ring per NIC group, each leaving a node through a different GPU (p5, 2 nodes)", "[nccl]") {
  ScenarioSpec spec;
  spec.cluster.instance = "p5.48xlarge";
  spec.cluster.nodes = 2;
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  const CommPlan plan = build_plan(*world, net, all_ranks(*world));
  CHECK(plan.view.graph_channels == 8);  // node 0's GPUs leave it by 8 NIC groups
  REQUIRE(plan.rings.size() == 8);
  REQUIRE(plan.trees.size() == 8);
  std::set<int> leaving;
  for (const auto& ring : plan.rings)
    for (const Edge& e : ring)
      if (world->rank(e.from).node == 0 && world->rank(e.to).node == 1) {
        leaving.insert(e.from);
        CHECK(e.rings_sharing == 1);  // a NIC carries only the ring that leaves by it
      }
  CHECK(leaving.size() == 8);
}

TEST_CASE("comm plan: without P2P and SHM every GPU is its own NCCL node (ncclTopoTrimSystem)", "[nccl]") {
  ScenarioSpec spec;
  spec.cluster.instance = "p5.48xlarge";
  spec.nccl_env = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  const CommPlan plan = build_plan(*world, net, all_ranks(*world));
  CHECK(plan.view.nnodes == 8);
  CHECK(plan.view.nranks == 8);
  CHECK(plan.node_of == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(plan.trees.size() == 1);
  CHECK(plan.trees[0].chain_up.empty());   // one GPU per node: no chain
  CHECK(plan.trees[0].up[0].size() == 7);  // a binary tree over 8 leaders
}

TEST_CASE("comm plan: the tuner's compute capability is the catalog's, on every instance", "[nccl]") {
  const std::string instance = GENERATE(from_range(models::hw::instance_names()));
  models::ScenarioSpec spec;
  spec.cluster.instance = instance;
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  if (world->size() < 2) return;  // no communicator to plan on a one-GPU node
  std::vector<int> ranks(world->size());
  std::iota(ranks.begin(), ranks.end(), 0);
  const auto plan = models::collectives::build_plan(*world, net, ranks);
  INFO(instance << " (" << world->gpu_name() << ")");
  CHECK(plan.view.sm == models::hw::find_gpu(world->gpu_name()).sm);
}

TEST_CASE("comm plan: A100 is SM80, not SM86 as its name once suggested (A10 matched first)", "[nccl]") {
  models::ScenarioSpec spec;
  spec.cluster.instance = "p4d.24xlarge";
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  REQUIRE(world->gpu_name() == "A100-40GB");
  std::vector<int> ranks(world->size());
  std::iota(ranks.begin(), ranks.end(), 0);
  CHECK(models::collectives::build_plan(*world, net, ranks).view.sm == 80);
}

// Trees planned when first needed (the engine's plan cache builds rings only) are the trees
// built with the plan: the same edges, sharing counts and merged fractions, in the same order.
TEST_CASE("comm plan: trees planned on first need equal the trees built with the plan", "[nccl]") {
  Rig rig(4, 4, 450e9, 12.5e9);
  const CommPlan whole = build_plan(rig.world, rig.net, all_ranks(rig.world));
  CommPlan lazy = build_plan(rig.world, rig.net, all_ranks(rig.world), /*trees=*/false);
  CHECK(whole.trees_planned);
  CHECK_FALSE(lazy.trees_planned);
  CHECK(lazy.trees.empty());
  CHECK(lazy.tree_merged.empty());
  plan_trees(rig.world, rig.net, lazy);
  plan_trees(rig.world, rig.net, lazy);  // once
  REQUIRE(lazy.trees.size() == whole.trees.size());
  auto same = [](const Edge& a, const Edge& b) {
    return a.from == b.from && a.to == b.to && a.path == b.path && a.rings_sharing == b.rings_sharing &&
           a.raw_bandwidth == b.raw_bandwidth;
  };
  for (std::size_t t = 0; t < whole.trees.size(); ++t) {
    const auto &x = whole.trees[t], &y = lazy.trees[t];
    for (const auto& [p, q] :
         {std::pair{&x.chain_up, &y.chain_up}, std::pair{&x.chain_down, &y.chain_down}, std::pair{&x.up[0], &y.up[0]},
          std::pair{&x.up[1], &y.up[1]}, std::pair{&x.down[0], &y.down[0]}, std::pair{&x.down[1], &y.down[1]}}) {
      REQUIRE(p->size() == q->size());
      for (std::size_t i = 0; i < p->size(); ++i) CHECK(same((*p)[i], (*q)[i]));
    }
  }
  REQUIRE(lazy.tree_merged.size() == whole.tree_merged.size());
  CHECK_FALSE(whole.tree_merged.empty());
  for (std::size_t i = 0; i < whole.tree_merged.size(); ++i) {
    CHECK(same(lazy.tree_merged[i].edge, whole.tree_merged[i].edge));
    CHECK(lazy.tree_merged[i].bytes_frac == whole.tree_merged[i].bytes_frac);
    CHECK(lazy.tree_merged[i].share_frac == whole.tree_merged[i].share_frac);
  }
  CHECK(lazy.ring_merged.size() == whole.ring_merged.size());
}
