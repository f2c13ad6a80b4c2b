// GPU rotation (models/scale/gpu_rotation.hpp): moving every node's GPUs one on maps the World
// onto itself on catalog instances, found from node 0 and nodes 0-1 alone; checked here on pairs
// of other nodes (the one-pair argument), and refused where the nodes or links differ.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "models/spec.hpp"
#include "models/scale/gpu_rotation.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using namespace models;

namespace {
ScenarioSpec cluster_gpu_rotation(const std::string& instance, int nodes) {
  ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  s.collective = CollectiveSpec{"all_reduce", int64_t{1} << 30, 1};
  return s;
}
}  // namespace

TEST_CASE("gpu rotation: on p5, p5en and dgx-b200 every path and transport rotates with the GPUs", "[scale]") {
  for (const char* instance : {"p5.48xlarge", "p5en.48xlarge", "dgx-b200"}) {
    INFO(instance);
    const ScenarioSpec spec = cluster_gpu_rotation(instance, 13);
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    const auto world = World::build(spec, net);
    const scale::GpuRotation rot = scale::gpu_rotation(*world, net);
    REQUIRE(rot.applies());
    REQUIRE(rot.k == 8);
    // Pairs on nodes other than 0 and 1, and inside other nodes: path(rot a, rot b) is the
    // rotated path(a, b), link by link, with the same transport.
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> rank(0, world->size() - 1);
    int checked = 0;
    for (int t = 0; t < 400; ++t) {
      const int a = rank(rng),
                b = t % 4 == 0 ? rot.rank_at[world->rank(a).node][(world->rank(a).local_gpu + 3) % 8] : rank(rng);
      if (a == b) continue;
      for (int steps = 1; steps < 8; ++steps) {
        const int ra = rot.rotate(*world, a, steps), rb = rot.rotate(*world, b, steps);
        CHECK(world->rank(ra).node == world->rank(a).node);
        CHECK(world->rank(ra).local_gpu == (world->rank(a).local_gpu + steps) % 8);
        std::vector<sim::LinkId> p, q;
        world->path(a, b, p);
        world->path(ra, rb, q);
        REQUIRE(p.size() == q.size());
        for (std::size_t h = 0; h < p.size(); ++h) {
          uint32_t x = p[h].index;
          for (int s = 0; s < steps; ++s) x = rot.rotate_link(x);
          CHECK(x == q[h].index);
          CHECK(net.link_capacity(p[h]) == net.link_capacity(q[h]));
        }
        const Transport u = world->route(a, b), v = world->route(ra, rb);
        CHECK(u.kind == v.kind);
        CHECK(u.link_class == v.link_class);
        CHECK(u.gdr == v.gdr);
        ++checked;
      }
    }
    CHECK(checked > 2000);
    // Classes: each an orbit of 8 links of one node, all alike.
    std::map<uint32_t, std::vector<uint32_t>> members;
    for (uint32_t l = 0; l < rot.class_of_link.size(); ++l)
      if (rot.class_of_link[l] != sim::FlowNetwork::kNoClass) members[rot.class_of_link[l]].push_back(l);
    REQUIRE(members.size() == rot.model_of_class.size());
    for (const auto& [c, links] : members) {
      CHECK(links.size() == 8);
      for (uint32_t l : links) CHECK(net.link_capacity({l}) == net.link_capacity(rot.model_of_class[c]));
    }
  }
}

TEST_CASE("gpu rotation: on p4d the GPUs pair on PCIe switches and NICs, so they rotate two by two", "[scale]") {
  const ScenarioSpec spec = cluster_gpu_rotation("p4d.24xlarge", 3);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const auto world = World::build(spec, net);
  const scale::GpuRotation rot = scale::gpu_rotation(*world, net);
  REQUIRE(rot.applies());
  CHECK(rot.step == 2);
  CHECK(rot.order == 4);
  CHECK(world->rank(rot.rotate(*world, 9)).local_gpu == 3);  // node 1, GPU 1 -> GPU 3
}

TEST_CASE("gpu rotation: refused on one node, a slowed link, partial nodes and mixed instances", "[scale]") {
  const auto why = [](const ScenarioSpec& spec) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    const auto world = World::build(spec, net);
    return scale::gpu_rotation(*world, net).why_not;
  };
  CHECK(why(cluster_gpu_rotation("p5en.48xlarge", 1)) == "a single node");
  ScenarioSpec slow = cluster_gpu_rotation("p5en.48xlarge", 4);
  StragglerSpec st;
  st.link = "node2/nic4-5.tx";
  st.bandwidth_factor = 0.5;
  slow.stragglers.push_back(st);
  CHECK(why(slow).find("node2/nic4-5.tx differs") != std::string::npos);
  ScenarioSpec partial = cluster_gpu_rotation("p5en.48xlarge", 4);
  partial.placement.gpus_per_pod = 4;
  CHECK(why(partial) == "nodes not filled with ranks");
  ScenarioSpec fat = cluster_gpu_rotation("p5en.48xlarge", 4);  // paths between nodes climb the fabric's switches
  fat.cluster.fabric.topology = "fat_tree";
  fat.cluster.fabric.pod_nodes = 2;
  fat.cluster.fabric.oversubscription = 2;
  CHECK(why(fat) == "the fabric's links between nodes depend on the nodes");
  ScenarioSpec mixed = cluster_gpu_rotation("p5en.48xlarge", 3);
  mixed.cluster.groups = {{"p5en.48xlarge", 2}, {"p5.48xlarge", 1}};
  CHECK(why(mixed) == "nodes of several kinds");
}
