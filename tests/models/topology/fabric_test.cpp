// The fabric between nodes (models/topology/fabric.hpp): which shared links a flow crosses and
// their capacities, in closed form.
//   fat_tree: C_pod = pod_nodes x (NIC bandwidth of a node) / oversubscription, crossed up at the
//             sender's pod and down at the receiver's; nothing inside a pod.
//   rail:     NIC group i on rail leaf i: same pod and rail, nothing; another rail, that leaf's
//             uplink and the other's downlink (C_leaf = pod_nodes x rail bandwidth); another pod,
//             the pods' uplinks as well.
#include <catch2/catch.hpp>

#include <set>

#include "models/error.hpp"
#include "models/topology/fabric.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using models::topology::Fabric;
using models::topology::FabricKind;

namespace {
std::vector<std::string> names_fabric(const sim::FlowNetwork& net, const std::vector<sim::LinkId>& ids) {
  std::vector<std::string> out;
  for (auto id : ids) out.emplace_back(net.link_name(id));
  return out;
}
using V = std::vector<std::string>;
models::FabricSpec spec(const std::string& topology, double oversub, int pod_nodes, const std::string& spreading = "") {
  models::FabricSpec f;
  f.topology = topology;
  f.oversubscription = oversub;
  f.pod_nodes = pod_nodes;
  f.spreading = spreading;
  return f;
}
const std::vector<double> kFourEfa(4, 12.5e9);  // p4d: 4 x 100 Gb/s EFA, one per NIC group
}  // namespace

TEST_CASE("fabric: non-blocking adds no link (the default)", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  Fabric f(models::FabricSpec{}, 8, kFourEfa, models::hw::NicKind::Efa);
  f.add_links(net);
  REQUIRE(f.kind() == FabricKind::NonBlocking);
  CHECK(net.link_count() == 0);
  std::vector<sim::LinkId> p;
  f.path(0, 0, 7, 3, p);
  CHECK(p.empty());
  CHECK(f.describe().empty());
}

TEST_CASE("fabric: fat-tree pods share an oversubscribed uplink of pod_nodes x node NICs / ratio", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  // 4 nodes, pods of 2, 4:1 above the pod, sprayed (EFA SRD): C_pod = 2 x 4 x 12.5 / 4 = 25 GB/s.
  Fabric f(spec("fat_tree", 4, 2), 4, kFourEfa, models::hw::NicKind::Efa);
  f.add_links(net);
  REQUIRE(f.pods() == 2);
  CHECK(f.pod_uplink_bytes_per_s() == Approx(25e9));
  std::vector<sim::LinkId> p;
  f.path(0, 0, 1, 2, p);  // same pod: full bisection, no shared link
  CHECK(p.empty());
  f.path(1, 0, 2, 3, p);
  CHECK(names_fabric(net, p) == V{"fabric/pod0/up", "fabric/pod1/down"});
  CHECK(net.link_capacity(p[0]) == Approx(25e9));
  CHECK(net.link_kind(p[0]) == "fabric");
  // One switch traversal per link crossed (Ethernet under EFA: 1 us assumed).
  CHECK(net.link_latency(p[0]).seconds() ==
        Approx(models::topology::default_switch_latency_s(models::hw::NicKind::Efa)));
}

TEST_CASE("fabric: ECMP hashes each flow onto one of C/k uplinks, the same spine up and down", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  // 2 pods of 2 nodes, 2:1, ECMP: C_pod = 2 x 50 / 2 = 50 GB/s over round(50 / 12.5) = 4 uplinks.
  Fabric f(spec("fat_tree", 2, 2, "ecmp"), 4, kFourEfa, models::hw::NicKind::Efa);
  f.add_links(net);
  REQUIRE(f.pod_uplinks() == 4);
  std::set<std::string> used;
  for (int ra = 0; ra < 4; ++ra)
    for (int rb = 0; rb < 4; ++rb) {
      std::vector<sim::LinkId> p, again;
      f.path(0, ra, 3, rb, p);
      f.path(0, ra, 3, rb, again);
      REQUIRE(p.size() == 2);
      CHECK(p == again);  // deterministic
      CHECK(net.link_capacity(p[0]) == Approx(12.5e9));
      const std::string up(net.link_name(p[0])), down(net.link_name(p[1]));
      CHECK(up.back() == down.back());  // one spine: uplink k and downlink k
      used.insert(up);
    }
  // 16 flows over 4 uplinks: a hash spreads them over more than one, and may collide.
  CHECK(used.size() > 1);
}

TEST_CASE("fabric: rail-optimized, NIC group i of every node on rail i", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  Fabric f(spec("rail", 1, 0), 4, kFourEfa, models::hw::NicKind::Efa);  // one pod of 4 nodes
  f.add_links(net);
  std::vector<sim::LinkId> p;
  for (int r = 0; r < 4; ++r) {
    f.path(0, r, 3, r, p);  // the same rail: through its leaf alone
    CHECK(p.empty());
  }
  f.path(0, 1, 3, 2, p);  // rail 1 -> rail 2: up through the spine and down
  CHECK(names_fabric(net, p) == V{"fabric/pod0/rail1/up", "fabric/pod0/rail2/down"});
  // Full bisection below the pod tier: C_leaf = pod_nodes x rail bandwidth.
  CHECK(net.link_capacity(p[0]) == Approx(4 * 12.5e9));
}

TEST_CASE("fabric: rail across pods climbs the rail leaf and the pod tier", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  Fabric f(spec("rail", 7, 2), 4, kFourEfa, models::hw::NicKind::Efa);
  f.add_links(net);
  std::vector<sim::LinkId> p;
  f.path(0, 1, 2, 1, p);
  CHECK(names_fabric(net, p) == V{"fabric/pod0/rail1/up", "fabric/pod0/up", "fabric/pod1/down", "fabric/pod1/rail1/down"});
  // ~1:7 above the pod, as Meta's Llama 3 cluster: 2 x 50 GB/s / 7.
  CHECK(net.link_capacity(p[1]) == Approx(2 * 50e9 / 7));
  CHECK_THAT(f.describe(), Catch::Contains("rail-optimized"));
}

TEST_CASE("fabric: bad specs name their key", "[models]") {
  auto key_of = [](const models::FabricSpec& s) {
    try {
      Fabric f(s, 4, kFourEfa, models::hw::NicKind::Efa);
    } catch (const models::SpecError& e) {
      return e.key();
    }
    return std::string();
  };
  CHECK(key_of(spec("torus", 1, 0)) == "cluster.fabric.topology");
  CHECK(key_of(spec("fat_tree", 0.5, 0)) == "cluster.fabric.oversubscription");
  CHECK(key_of(spec("fat_tree", 1, 0, "random")) == "cluster.fabric.spreading");
}

TEST_CASE("fabric: a node without NICs gets no fabric links (its traffic is NET/Socket over eth)", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  Fabric f(spec("fat_tree", 4, 1), 2, {}, models::hw::NicKind::None);
  f.add_links(net);
  CHECK(net.link_count() == 0);
  std::vector<sim::LinkId> p;
  f.path(0, 0, 1, 0, p);
  CHECK(p.empty());
}

namespace {
// Three tiers: 8 nodes, pods of 2 nodes at 2:1 (C_pod = 2 x 50 / 2 = 50 GB/s), superpods of 4
// nodes (two pods) at 2:1 above them (C_sp = 2 x C_pod / 2 = 50 GB/s).
models::FabricSpec three_tier(const std::string& topology = "fat_tree", const std::string& spreading = "") {
  models::FabricSpec f = spec(topology, 2, 2, spreading);
  f.superpod_nodes = 4;
  f.superpod_oversubscription = 2;
  return f;
}
}  // namespace

TEST_CASE("fabric: three tiers, pod up, superpod up, superpod down, pod down between superpods", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  Fabric f(three_tier(), 8, kFourEfa, models::hw::NicKind::Efa);
  f.add_links(net);
  REQUIRE(f.pods() == 4);
  REQUIRE(f.superpods() == 2);
  CHECK(f.pod_uplink_bytes_per_s() == Approx(50e9));
  CHECK(f.superpod_uplink_bytes_per_s() == Approx(50e9));
  std::vector<sim::LinkId> p;
  f.path(0, 0, 1, 0, p);  // one pod: full bisection
  CHECK(p.empty());
  f.path(0, 0, 2, 0, p);  // another pod of the superpod: the pod tier only
  CHECK(names_fabric(net, p) == V{"fabric/pod0/up", "fabric/pod1/down"});
  p.clear();
  f.path(1, 2, 6, 3, p);  // another superpod: both tiers, up then down
  CHECK(names_fabric(net, p) == V{"fabric/pod0/up", "fabric/superpod0/up", "fabric/superpod1/down", "fabric/pod3/down"});
  CHECK(net.link_capacity(p[1]) == Approx(50e9));
  // Pairs no longer depend on pods alone (two other pods: this superpod or another).
  CHECK_FALSE(f.by_pod());
  CHECK_THAT(f.describe(), Catch::Contains("2 superpod(s) of 4 node(s); above a superpod 2:1, 50 GB/s"));
  // Rail: the leaves around the same two tiers.
  sim::FlowNetwork rail_net(sim);
  Fabric r(three_tier("rail"), 8, kFourEfa, models::hw::NicKind::Efa);
  r.add_links(rail_net);
  p.clear();
  r.path(0, 1, 7, 1, p);
  CHECK(names_fabric(rail_net, p) == V{"fabric/pod0/rail1/up", "fabric/pod0/up", "fabric/superpod0/up",
                                "fabric/superpod1/down", "fabric/pod3/down", "fabric/pod3/rail1/down"});
}

TEST_CASE("fabric: flows leaving a superpod share C_sp, closed form S / (C_sp / k) + 4 hops", "[models]") {
  // Nodes 0-3 (superpod 0) each send S to node n + 4 through their 50 GB/s of NICs: each pod's
  // uplink (50 GB/s) carries two flows, the superpod's uplink (50 GB/s) all four: it binds,
  //   rate = C_sp / 4 = 12.5 GB/s,  T = S / 12.5 GB/s + 4 switch traversals (+ NIC latency 0 here).
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  Fabric f(three_tier(), 8, kFourEfa, models::hw::NicKind::Efa);
  f.add_links(net);
  const int64_t S = 1 << 30;
  std::vector<double> done(4, 0);
  for (int n = 0; n < 4; ++n) {
    std::vector<sim::LinkId> p{net.add_link("nic" + std::to_string(n), "efa", 50e9, sim::Time::zero())};
    f.path(n, 0, n + 4, 0, p);
    REQUIRE(p.size() == 5);
    net.start(p, S, [&, n] { done[n] = sim.now().seconds(); });
  }
  sim.run();
  const double hop = models::topology::default_switch_latency_s(models::hw::NicKind::Efa);
  for (double t : done) CHECK(t == Approx(S / (50e9 / 4) + 4 * hop).epsilon(1e-9));
  // ~1:7 above a superpod (Meta's Llama 3 ratio above its 3,072-GPU pods): C_sp = 2 x 50 / 7.
  models::FabricSpec meta = three_tier();
  meta.superpod_oversubscription = 7;
  Fabric f7(meta, 8, kFourEfa, models::hw::NicKind::Efa);
  CHECK(f7.superpod_uplink_bytes_per_s() == Approx(2 * 50e9 / 7));
}

TEST_CASE("fabric: three tiers with ECMP hash over C_sp / uplink links, bad superpods name their key", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  Fabric f(three_tier("fat_tree", "ecmp"), 8, kFourEfa, models::hw::NicKind::Efa);
  f.add_links(net);
  std::vector<sim::LinkId> p;
  f.path(0, 1, 5, 2, p);
  REQUIRE(p.size() == 4);
  CHECK(net.link_capacity(p[1]) == Approx(12.5e9));                 // one of round(50 / 12.5) = 4 superpod uplinks
  CHECK(net.link_name(p[1]).back() == net.link_name(p[2]).back());  // one core switch: up k, down k
  auto key_of = [](const models::FabricSpec& s) {
    try {
      Fabric bad(s, 8, kFourEfa, models::hw::NicKind::Efa);
    } catch (const models::SpecError& e) {
      return e.key();
    }
    return std::string();
  };
  models::FabricSpec s = three_tier();
  s.superpod_nodes = 3;  // not whole pods of 2
  CHECK(key_of(s) == "cluster.fabric.superpod_nodes");
  s = three_tier();
  s.pod_nodes = 0;  // every node in one pod: no superpod above it
  CHECK(key_of(s) == "cluster.fabric.superpod_nodes");
  s = three_tier();
  s.topology = "nonblocking";
  CHECK(key_of(s) == "cluster.fabric.superpod_nodes");
  s = three_tier();
  s.superpod_oversubscription = 0.5;
  CHECK(key_of(s) == "cluster.fabric.superpod_oversubscription");
}

TEST_CASE("fabric: uplinks set C_pod and the printed ratio, and beside an oversubscription they are refused",
          "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  // 2 pods of 2 p4d: 2 x 50 GB/s of NICs per pod over 2 uplinks of 12.5 GB/s: 4:1, C_pod 25 GB/s.
  models::FabricSpec s = spec("fat_tree", 1, 2, "ecmp");
  s.uplinks = 2;
  Fabric f(s, 4, kFourEfa, models::hw::NicKind::Efa);
  CHECK(f.pod_uplink_bytes_per_s() == Approx(25e9));
  CHECK(f.pod_ratio() == Approx(4));
  CHECK(f.describe() == "fat-tree, 2 pod(s) of 2 node(s); above a pod 4:1, 25 GB/s up per pod, ECMP over 2 uplinks");
  s.oversubscription = 2;
  try {
    Fabric both(s, 4, kFourEfa, models::hw::NicKind::Efa);
    FAIL("uplinks and oversubscription accepted together");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "cluster.fabric.oversubscription");
    CHECK(e.also() == V{"cluster.fabric.uplinks"});
    CHECK(std::string(e.what()) ==
          "cluster.fabric.oversubscription: 2 beside uplinks = 2, which set the capacity above a pod (expected one "
          "of the two keys: uplinks x uplink_bandwidth, or pod_nodes x the nodes' NICs / oversubscription)");
  }
}

TEST_CASE("fabric: ECMP links per pod from its own capacity and NIC rate (mixed instance groups)", "[models]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  // Pod 0: 2 p5-like nodes of 8 NIC groups of 50 GB/s (400 GB/s each); pod 1: 2 p4d, 4 x 12.5 GB/s
  // (50 GB/s). 2:1: C_pod 400 and 50 GB/s, in links of one NIC group each: 400 / 50 = 8 and
  // 50 / 12.5 = 4 (not pod 0's 8, which would make links of 6.25 GB/s, narrower than a p4d NIC).
  const std::vector<double> fast(8, 50e9);
  Fabric f(spec("fat_tree", 2, 2, "ecmp"), 4, fast, models::hw::NicKind::Efa, {400e9, 400e9, 50e9, 50e9},
           {50e9, 50e9, 12.5e9, 12.5e9});
  f.add_links(net);
  CHECK(f.pod_uplinks(0) == 8);
  CHECK(f.pod_uplinks(1) == 4);
  CHECK(f.pod_uplink_bytes_per_s(1) == Approx(50e9));
  for (int ra = 0; ra < 4; ++ra)
    for (int rb = 0; rb < 8; ++rb) {
      std::vector<sim::LinkId> p;
      f.path(2, ra, 0, rb, p);  // from the p4d pod: up one of its 4 links, down one of pod 0's 8
      REQUIRE(p.size() == 2);
      CHECK(net.link_capacity(p[0]) == Approx(12.5e9));
      CHECK(net.link_capacity(p[1]) == Approx(50e9));
    }
  CHECK(f.describe() ==
        "fat-tree, 2 pod(s) of 2 node(s); above a pod 2:1, 50-400 GB/s up per pod, ECMP over 4-8 uplinks");
}
