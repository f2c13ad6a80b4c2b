// Mixed instance groups in one cluster ([[cluster.groups]], models/world/node_kinds.hpp): each
// node is its own instance, between nodes each pair crosses its own nodes' NICs, and a ring's
// slowest NIC sets its pace. 2 x p5.48xlarge (8 x H100, 32 x 100 Gb/s EFA: 8 NIC groups of
// 4 x 12.5 GB/s, one per GPU) then 2 x p4d.24xlarge (8 x A100, 4 x 100 Gb/s EFA: 4 groups of
// 12.5 GB/s, one per two GPUs). NCCL keeps the communicator-wide minimum of channels: R = 4 rings,
// each leaving every node once; on a p4d node each ring leaves through its own 12.5 GB/s EFA,
// which binds (p5's 50 GB/s groups do not), so the ring runs as on four p4d nodes:
//   T_mixed ~ T_4xp4d = 2(n-1)/n S / (R x per-ring rate on a p4d EFA),  and far above T_4xp5.
#include <catch2/catch.hpp>

#include "models/collectives/collective.hpp"
#include "models/error.hpp"
#include "models/run/run.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using namespace models;

namespace {
ScenarioSpec groups(std::vector<NodeGroupSpec> g) {
  ScenarioSpec s;
  s.cluster.groups = std::move(g);
  s.cluster.instance = s.cluster.groups.front().instance;  // as the loader sets them
  s.cluster.nodes = 0;
  for (const auto& x : s.cluster.groups) s.cluster.nodes += x.nodes;
  return s;
}
ScenarioSpec p5_p4d() { return groups({{"p5.48xlarge", 2}, {"p4d.24xlarge", 2}}); }
std::vector<std::string> kind_link_names(const sim::FlowNetwork& net, const std::vector<sim::LinkId>& ids) {
  std::vector<std::string> out;
  for (auto id : ids) out.emplace_back(net.link_name(id));
  return out;
}
std::string key_of(const ScenarioSpec& s) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  try {
    World::build(s, net);
  } catch (const SpecError& e) {
    return e.key();
  }
  return "";
}
double ring_all_reduce(ScenarioSpec s, int64_t bytes) {
  s.collective = CollectiveSpec{"all_reduce", bytes, 1};
  s.nccl_env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}};
  return run_scenario(s).step_time_s;
}
}  // namespace

TEST_CASE("node kinds: each node is its group's instance, links and NIC groups its own", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto w = World::build(p5_p4d(), net);
  REQUIRE(w->size() == 32);
  CHECK(w->mixed());
  CHECK(w->node_of(1).name == "p5.48xlarge");
  CHECK(w->node_of(2).name == "p4d.24xlarge");
  CHECK(w->node().name == "p5.48xlarge");
  CHECK_THAT(w->describe(),
             Catch::StartsWith("2 x p5.48xlarge (8 x H100") && Catch::Contains(" + 2 x p4d.24xlarge (8 x A100-40GB"));
  // p5 GPU 0 (rank 0) -> p4d GPU 2 (rank 18): p5's NIC group 0 (4 EFA), p4d's EFA 1.
  std::vector<sim::LinkId> p;
  w->path(0, 18, p);
  const auto n = kind_link_names(net, p);
  REQUIRE(n.size() >= 4);
  CHECK(n.front() == "node0/gpu0/pcie.up");
  CHECK(n.back() == "node2/gpu2/pcie.down");
  std::size_t tx = 0, rx = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (n[i] == "node0/nic0-3.tx") tx = i;
    if (n[i] == "node2/nic1.rx") rx = i;
  }
  REQUIRE(tx > 0);
  REQUIRE(rx == tx + 1);  // non-blocking between nodes: NIC to NIC
  // Each NIC link carries its own generation's Simple efficiency: EFA v2 0.89, EFA v1 0.6.
  CHECK(net.link_capacity(p[tx]) == Approx(0.89 * 4 * 12.5e9));
  CHECK(net.link_capacity(p[rx]) == Approx(0.6 * 12.5e9));
  CHECK(w->raw_capacity(p[rx], net) == Approx(12.5e9));
  CHECK(w->transport(0, 18).label == "NET/Libfabric/0/GDRDMA");
  // Inside a p4d node: its own NVLink 3 (P2P read between A100s), not p5's NVLink 4.
  const Transport t = w->transport(16, 17);
  CHECK(t.kind == TransportKind::P2P);
  CHECK(t.p2p_read);
  CHECK_FALSE(w->transport(0, 1).p2p_read);
  CHECK(w->node_links(0).count != w->node_links(2).count);
}

TEST_CASE("node kinds: groups must share GPUs per node and the network kind", "[models]") {
  CHECK(key_of(groups({{"p5.48xlarge", 1}, {"g6e.12xlarge", 1}})) == "cluster.groups.1.instance");    // 4 GPUs
  CHECK(key_of(groups({{"p4d.24xlarge", 1}, {"dgx-a100-80gb", 1}})) == "cluster.groups.1.instance");  // IB
  CHECK(key_of(groups({{"p5.48xlarge", 1}, {"p5.48xl", 1}})) == "cluster.groups.1.instance");         // unknown
  ScenarioSpec s = p5_p4d();
  s.cluster.nodes = 3;
  CHECK(key_of(s) == "cluster.nodes");
  s = p5_p4d();
  s.cluster.fabric.topology = "rail";  // 8 rails on p5, 4 on p4d
  CHECK(key_of(s) == "cluster.fabric.topology");
  s.cluster.fabric.topology = "fat_tree";
  CHECK(key_of(s).empty());
}

TEST_CASE("node kinds: a ring over p5 and p4d nodes runs at p4d's EFA, the slowest NIC", "[models]") {
  const int64_t S = int64_t{1} << 30;
  const double mixed = ring_all_reduce(p5_p4d(), S);
  const double p4d = ring_all_reduce(groups({{"p4d.24xlarge", 4}}), S);
  const double p5 = ring_all_reduce(groups({{"p5.48xlarge", 4}}), S);
  // The same four rings through the same 12.5 GB/s EFAs on the p4d nodes: the p4d cluster's time
  // (within the p5 nodes' lower latencies, under 1 % of the 1 GiB bandwidth term).
  CHECK(mixed == Approx(p4d).epsilon(0.01));
  // Four p5 nodes: eight rings over 50 GB/s groups, several times faster.
  CHECK(mixed > 3 * p5);
  // One group of one instance is the plain cluster, bit for bit.
  ScenarioSpec plain;
  plain.cluster.instance = "p4d.24xlarge";
  plain.cluster.nodes = 4;
  CHECK(ring_all_reduce(plain, S) == p4d);
}

TEST_CASE("node kinds: an all-reduce inside a p4d node of a mixed cluster is the p4d node's own", "[models]") {
  // Ranks 16-23 sit on the first p4d node: NVLink 3 with P2P read (A100: read costs no bandwidth,
  // hw::p2p_read_model(80)), NCCL's tuner on that node's graph, as on a p4d alone.
  auto time_on = [](const ScenarioSpec& spec, int first) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(spec, net);
    auto engine = collectives::make_collective_engine(sim, net, *world, spec);
    collectives::Group g;
    for (int r = first; r < first + 8; ++r) g.ranks.push_back(r);
    double t = 0;
    engine->launch(g, nccl::CollOp::AllReduce, int64_t{1} << 30,
                   [&](const collectives::CollectiveRecord&) { t = sim.now().seconds(); });
    sim.run();
    return t;
  };
  ScenarioSpec p4d;
  p4d.cluster.instance = "p4d.24xlarge";
  CHECK(time_on(p5_p4d(), 16) == Approx(time_on(p4d, 0)).epsilon(1e-9));
}
