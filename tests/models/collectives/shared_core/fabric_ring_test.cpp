// A ring all-reduce crossing an oversubscribed fabric tier (models/topology/fabric.hpp).
// 2 x p4d (4 EFA of 12.5 GB/s each), fat-tree with pods of 1 node and ratio x: every ring edge
// between the nodes crosses its pod's uplink C_pod = 4 x 12.5 GB/s / x. The R = 4 rings (one per
// NIC group) each move 2(n-1)/n S / R over their edge, sharing C_pod max-min fair (C_pod / R each):
//   T = latency + 2(n-1)/n S / C_pod,  whenever C_pod / R is below a ring edge's own cap.
#include <catch2/catch.hpp>

#include "models/collectives/collective.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using namespace models;
using namespace models::collectives;

namespace {
struct Result {
  double t = 0, up_bytes = 0;
  int rings = 0;
};
Result all_reduce_fabric_ring(double oversubscription, int64_t S, const std::string& topology = "fat_tree") {
  ScenarioSpec spec;
  spec.cluster.instance = "p4d.24xlarge";
  spec.cluster.nodes = 2;
  spec.cluster.fabric.topology = topology;
  spec.cluster.fabric.pod_nodes = 1;
  spec.cluster.fabric.oversubscription = oversubscription;
  spec.nccl_env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}};
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  net.set_audit(true);
  auto world = World::build(spec, net);
  auto engine = make_collective_engine(sim, net, *world, spec);
  Group g;
  for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
  Result res;
  res.rings = static_cast<int>(build_plan(*world, net, g.ranks).rings.size());
  engine->launch(g, nccl::CollOp::AllReduce, S, [&](const CollectiveRecord&) { res.t = sim.now().seconds(); });
  sim.run();
  for (uint32_t l = 0; l < net.link_count(); ++l)
    if (net.link_name(sim::LinkId{l}) == "fabric/pod0/up") res.up_bytes = net.link_bytes(sim::LinkId{l});
  return res;
}
}  // namespace

TEST_CASE("fabric: a ring crossing a 4:1 tier runs at C_pod, 2(n-1)/n S / C_pod", "[nccl]") {
  const int64_t S = 1LL << 30;
  const int n = 16;
  const Result r4 = all_reduce_fabric_ring(4, S);
  REQUIRE(r4.rings == 4);
  const double c_pod = 4 * 12.5e9 / 4;
  const double bw_term = 2.0 * (n - 1) / n * S / c_pod;
  // Latency (16 steps x a few us) is under 1 % of the 161 ms bandwidth term.
  CHECK(r4.t == Approx(bw_term).epsilon(0.01));
  CHECK(r4.t > bw_term);
  // The uplink carries the R rings' node0 -> node1 edges: 2(n-1)/n S in all.
  CHECK(r4.up_bytes == Approx(2.0 * (n - 1) / n * S).epsilon(1e-6));
}

TEST_CASE("fabric: full bisection (1:1) leaves the ring bound by its NICs, as non-blocking", "[nccl]") {
  const int64_t S = 1LL << 30;
  const Result r1 = all_reduce_fabric_ring(1, S), flat = all_reduce_fabric_ring(1, S, "nonblocking"),
               r4 = all_reduce_fabric_ring(4, S);
  // C_pod = the node's 4 NICs: the uplink never binds; only its switch traversals add latency
  // (2 per step, 1 us each on EFA's Ethernet), far below the 1 GiB bandwidth term.
  CHECK(r1.t > flat.t);
  CHECK(r1.t == Approx(flat.t).epsilon(0.01));
  // 4:1 binds: the ring slows to C_pod where each NIC's flow cap bound it before.
  CHECK(r4.t > 2 * r1.t);
}

TEST_CASE("fabric: a ring crossing a 4:1 third tier runs at C_sp, 2(n-1)/n S / C_sp", "[nccl]") {
  // 4 x p4d (n = 32), pods of 1 node at full bisection (C_pod = 50 GB/s), superpods of 2 nodes at
  // 4:1 above them: C_sp = 2 x C_pod / 4 = 25 GB/s. The ring (nodes 0, 1, 2, 3) leaves superpod 0
  // on its node 1 -> node 2 edges: the R = 4 rings' 2(n-1)/n S / R each share C_sp.
  ScenarioSpec spec;
  spec.cluster.instance = "p4d.24xlarge";
  spec.cluster.nodes = 4;
  spec.cluster.fabric.topology = "fat_tree";
  spec.cluster.fabric.pod_nodes = 1;
  spec.cluster.fabric.superpod_nodes = 2;
  spec.cluster.fabric.superpod_oversubscription = 4;
  spec.nccl_env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}};
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  net.set_audit(true);
  auto world = World::build(spec, net);
  auto engine = make_collective_engine(sim, net, *world, spec);
  Group g;
  for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
  const int64_t S = 1LL << 30;
  const int n = 32;
  double t = 0;
  engine->launch(g, nccl::CollOp::AllReduce, S, [&](const CollectiveRecord&) { t = sim.now().seconds(); });
  sim.run();
  const double c_sp = 2 * 50e9 / 4;
  const double bw_term = 2.0 * (n - 1) / n * S / c_sp;
  CHECK(t > bw_term);
  CHECK(t == Approx(bw_term).epsilon(0.01));
  for (uint32_t l = 0; l < net.link_count(); ++l)
    if (net.link_name(sim::LinkId{l}) == "fabric/superpod0/up")
      CHECK(net.link_bytes(sim::LinkId{l}) == Approx(2.0 * (n - 1) / n * S).epsilon(1e-6));
  CHECK_THAT(world->describe(), Catch::Contains("2 superpod(s) of 2 node(s)"));
}
