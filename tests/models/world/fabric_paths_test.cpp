// The World puts [cluster.fabric]'s shared links between the sender's and the receiver's NIC.
#include <catch2/catch.hpp>

#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {
std::vector<std::string> names(const sim::FlowNetwork& net, const std::vector<sim::LinkId>& ids) {
  std::vector<std::string> out;
  for (auto id : ids) out.emplace_back(net.link_name(id));
  return out;
}
models::ScenarioSpec p4d_fabric_paths(int nodes, const std::string& topology) {
  models::ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = nodes;
  s.cluster.fabric.topology = topology;
  return s;
}
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("world: rail mapping, GPU g's NIC i reaches NIC i of another node through its rail leaf only", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto w = models::World::build(p4d_fabric_paths(2, "rail"), net);
  std::vector<sim::LinkId> p;
  // p4d: GPUs 2k and 2k+1 share EFA k (aws-ofi-nccl p4d-24xl-topo.xml). Rank 8 is node 1's GPU 0.
  w->path(0, 8, p);
  CHECK(names(net, p) == V{"node0/gpu0/pcie.up", "node0/nic0.tx", "node1/nic0.rx", "node1/gpu0/pcie.down"});
  p.clear();
  // GPU 0 (rail 0) to node 1's GPU 2 (rail 1): up through rail 0's leaf, down rail 1's.
  w->path(0, 10, p);
  CHECK(names(net, p) == V{"node0/gpu0/pcie.up", "node0/nic0.tx", "fabric/pod0/rail0/up", "fabric/pod0/rail1/down",
                           "node1/nic1.rx", "node1/gpu2/pcie.down"});
  CHECK_THAT(w->describe(), Catch::Contains("rail-optimized"));
}

TEST_CASE("world: the default fabric adds no link and keeps the description", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork a(sim), b(sim);
  auto plain = models::World::build(p4d_fabric_paths(2, "nonblocking"), a);
  auto fat = models::World::build(p4d_fabric_paths(2, "fat_tree"), b);  // one pod of every node: no shared link
  CHECK(a.link_count() == b.link_count());
  CHECK(plain->describe() == fat->describe().substr(0, plain->describe().size()));
  CHECK(plain->describe().find("fabric") == std::string::npos);
}
