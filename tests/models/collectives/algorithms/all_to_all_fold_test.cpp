// The all-to-all fold (models/collectives/all_to_all_fold.hpp): the folded flows give the same
// completion time and the same bytes on every link as the n(n-1) pair flows (FlowNetwork with
// closed forms off: the engine starts the pairs), on the World of real instances, with fabrics
// that share links between nodes (fat-tree pods above an oversubscribed tier, rail leaves), with
// a group that is a sub-rectangle of the nodes (an MoE EP group), and where the fold must not
// apply (a straggler's NIC: pairs) or must turn back into pairs (another collective arrives).
// Closed form on the rig (rig.hpp, NICs the only shared links): each node's NIC sends every
// pair leaving the node, T = lat + g (n - g) S/n / B_net when that NIC is the bottleneck.
#include <catch2/catch.hpp>

#include "models/collectives/all_to_all_fold.hpp"
#include "models/collectives/collective.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace models;
using namespace models::collectives;

namespace {

struct Outcome {
  double t = 0;
  std::size_t flows_at_start = 0;
  std::vector<double> link_bytes;
};

// One all-to-all of S over `ranks` (all ranks when empty), folded or as pairs (closed forms
// off); `other`: an all-reduce over `other` ranks launched `other_at` seconds in.
Outcome run_a2a(const ScenarioSpec& spec, bool fold, int64_t S, std::vector<int> ranks = {},
                std::vector<int> other = {}, double other_at = 0) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  net.set_audit(true);  // byte conservation per rank and max-min checks, folded too
  net.set_closed_forms(fold);
  auto world = World::build(spec, net);
  auto engine = make_collective_engine(sim, net, *world, spec);
  Group g;
  g.id = 0;
  if (ranks.empty())
    for (int r = 0; r < world->size(); ++r) ranks.push_back(r);
  g.ranks = ranks;
  Outcome o;
  engine->launch(g, nccl::CollOp::AllToAll, S, [&](const CollectiveRecord&) { o.t = sim.now().seconds(); });
  o.flows_at_start = net.active_flows();
  if (!other.empty()) {
    sim.schedule_at(sim::Time::from_seconds(other_at), [&] {
      Group h;
      h.id = 1;
      h.ranks = other;
      engine->launch(h, nccl::CollOp::AllReduce, S, [](const CollectiveRecord&) {});
    });
  }
  sim.run();
  net.settle_blocks();
  for (uint32_t l = 0; l < net.link_count(); ++l) o.link_bytes.push_back(net.link_bytes(sim::LinkId{l}));
  return o;
}

ScenarioSpec cluster(const std::string& instance, int nodes) {
  ScenarioSpec spec;
  spec.cluster.instance = instance;
  spec.cluster.nodes = nodes;
  return spec;
}

void check_same(const Outcome& folded, const Outcome& pairs) {
  CHECK(folded.t == Approx(pairs.t).epsilon(1e-9));
  REQUIRE(folded.link_bytes.size() == pairs.link_bytes.size());
  for (std::size_t l = 0; l < pairs.link_bytes.size(); ++l) {
    INFO("link " << l);
    CHECK(folded.link_bytes[l] == Approx(pairs.link_bytes[l]).epsilon(1e-9).margin(64));
  }
}

}  // namespace

TEST_CASE("all-to-all fold: folded flows finish with the n(n-1) pairs, link by link", "[nccl]") {
  struct Case {
    const char* name;
    ScenarioSpec spec;
  };
  std::vector<Case> cases;
  for (int nodes : {2, 4, 16}) cases.push_back({"p5en nonblocking", cluster("p5en.48xlarge", nodes)});
  cases.push_back({"p5 x 3 nonblocking", cluster("p5.48xlarge", 3)});
  cases.push_back({"p4d x 2 nonblocking", cluster("p4d.24xlarge", 2)});
  // InfiniBand and RoCE spread by ECMP hashing by default, and a non-blocking fabric builds no
  // uplinks to hash over: they fold as EFA does.
  cases.push_back({"dgx-h100 (InfiniBand) x 4 nonblocking", cluster("dgx-h100", 4)});
  cases.push_back({"a3-ultragpu-8g (RoCE) x 2 nonblocking", cluster("a3-ultragpu-8g", 2)});
  {
    ScenarioSpec s = cluster("p5en.48xlarge", 8);  // EFA: sprayed over the uplinks
    s.cluster.fabric.topology = "fat_tree";
    s.cluster.fabric.pod_nodes = 2;
    s.cluster.fabric.oversubscription = 4;
    cases.push_back({"p5en x 8 fat_tree 4:1, pods of 2", s});
  }
  {
    ScenarioSpec s = cluster("p4d.24xlarge", 4);
    s.cluster.fabric.topology = "rail";
    s.cluster.fabric.pod_nodes = 2;
    s.cluster.fabric.oversubscription = 2;
    cases.push_back({"p4d x 4 rail, pods of 2, 2:1", s});
  }
  for (const Case& c : cases) {
    for (int64_t S : {int64_t{1} << 30, int64_t{1} << 16}) {
      INFO(c.name << " x " << c.spec.cluster.nodes << ", S = " << S);
      const Outcome folded = run_a2a(c.spec, true, S), pairs = run_a2a(c.spec, false, S);
      const std::size_t n = static_cast<std::size_t>(c.spec.cluster.nodes) * 8;  // 8 GPUs a node
      CHECK(pairs.flows_at_start == n * (n - 1));
      CHECK(folded.flows_at_start > 0);
      CHECK(folded.flows_at_start <= 4 * n);  // a few per rank, not n - 1
      check_same(folded, pairs);
    }
  }
}

TEST_CASE("all-to-all fold: an EP group of every other GPU on two nodes folds exactly", "[nccl]") {
  // mixtral_ep_128's EP group: ranks tp = 2 apart, GPUs 0, 2, 4, 6 of nodes 0 and 1.
  const ScenarioSpec spec = cluster("p5.48xlarge", 2);
  const std::vector<int> ep{0, 2, 4, 6, 8, 10, 12, 14};
  const int64_t S = 64 << 20;
  const Outcome folded = run_a2a(spec, true, S, ep), pairs = run_a2a(spec, false, S, ep);
  CHECK(pairs.flows_at_start == 56);
  CHECK(folded.flows_at_start < 56);
  check_same(folded, pairs);
}

TEST_CASE("all-to-all fold: a straggler's NIC breaks the symmetry, and the pairs run", "[nccl]") {
  ScenarioSpec spec = cluster("p5en.48xlarge", 4);
  StragglerSpec st;
  st.node = 1;
  st.nic_bandwidth_factor = 0.5;
  spec.stragglers.push_back(st);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  std::vector<int> all;
  for (int r = 0; r < world->size(); ++r) all.push_back(r);
  const FoldOrReason f = build_fold(*world, net, all);
  CHECK_FALSE(f.fold);
  INFO(f.reason);
  CHECK_FALSE(f.reason.empty());
  const Outcome a = run_a2a(spec, true, 1 << 30), b = run_a2a(spec, false, 1 << 30);
  CHECK(a.flows_at_start == 32 * 31);
  check_same(a, b);
}

TEST_CASE("all-to-all fold: a slow link breaks the symmetry and the pairs run, every pod's alike keeps it", "[nccl]") {
  // [[stragglers]] link = "..." (models/world/link_stragglers.hpp): one GPU's NVLink port, or one
  // pod's uplink, at half rate makes that rank's (pod's) folded flows unlike the others': pairs.
  // The same factor on every pod's uplinks leaves the network symmetric: the fold runs, exactly.
  ScenarioSpec base = cluster("p5en.48xlarge", 4);
  base.cluster.fabric.topology = "fat_tree";
  base.cluster.fabric.pod_nodes = 2;
  base.cluster.fabric.oversubscription = 2;
  for (const char* pattern : {"node1/gpu3/nvlink.tx", "fabric/pod1/up", "fabric/pod*/up"}) {
    INFO(pattern);
    ScenarioSpec spec = base;
    StragglerSpec st;
    st.link = pattern;
    st.bandwidth_factor = 0.5;
    spec.stragglers.push_back(st);
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(spec, net);
    std::vector<int> all;
    for (int r = 0; r < world->size(); ++r) all.push_back(r);
    const bool symmetric = std::string(pattern) == "fabric/pod*/up";
    CHECK(build_fold(*world, net, all).fold.has_value() == symmetric);
    const Outcome a = run_a2a(spec, true, 1 << 30), b = run_a2a(spec, false, 1 << 30);
    CHECK((a.flows_at_start == 32 * 31) == !symmetric);
    check_same(a, b);
  }
}

TEST_CASE("all-to-all fold: NVL72 racks fold on InfiniBand's default spreading", "[nccl]") {
  for (int nodes : {1, 2}) {
    INFO(nodes << " racks");
    const ScenarioSpec spec = cluster("gb200-nvl72", nodes);
    for (int64_t S : {int64_t{1} << 30, int64_t{1} << 16}) {
      const Outcome folded = run_a2a(spec, true, S), pairs = run_a2a(spec, false, S);
      const std::size_t n = static_cast<std::size_t>(nodes) * 72;  // 72 GPUs a rack
      CHECK(pairs.flows_at_start == n * (n - 1));
      CHECK(folded.flows_at_start <= 4 * n);
      check_same(folded, pairs);
    }
  }
}

TEST_CASE("all-to-all fold: ECMP over several uplinks hashes pairs apart, and the pairs run", "[nccl]") {
  ScenarioSpec spec = cluster("p5en.48xlarge", 4);
  spec.cluster.fabric.topology = "fat_tree";
  spec.cluster.fabric.pod_nodes = 2;
  spec.cluster.fabric.spreading = "ecmp";
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  std::vector<int> all;
  for (int r = 0; r < world->size(); ++r) all.push_back(r);
  CHECK_FALSE(build_fold(*world, net, all).fold);
}

TEST_CASE("all-to-all fold: a collective arriving on its links turns it back into pairs", "[nccl]") {
  // An all-reduce over node 0's GPUs joins the NVLink ports a quarter of the way in.
  const ScenarioSpec spec = cluster("p5en.48xlarge", 2);
  const std::vector<int> node0{0, 1, 2, 3, 4, 5, 6, 7};
  const int64_t S = int64_t{1} << 30;
  const Outcome alone = run_a2a(spec, false, S);
  for (double at : {0.0, alone.t / 4, alone.t / 2}) {
    INFO("all-reduce at " << at << " s of " << alone.t);
    const Outcome folded = run_a2a(spec, true, S, {}, node0, at), pairs = run_a2a(spec, false, S, {}, node0, at);
    check_same(folded, pairs);
  }
}

TEST_CASE("all-to-all fold: on the rig, the NIC's closed form g (n - g) S/n / B_net", "[nccl]") {
  // 2 nodes x 4 GPUs, NICs of 5 GB/s (the bottleneck: NVLink moves 3 x S/8 per port at ~350 GB/s).
  using namespace collectives_test;
  const double B_net = 5e9;
  const int64_t S = int64_t{1} << 30;
  Rig rig(2, 4, 450e9, B_net);
  const double t = rig.run(CollOp::AllToAll, S);
  CHECK(rig.net.active_flows() == 0);
  // T = kernel + max hop (NET) + 4 GPUs x 4 peers x S/8 / B_net
  const double expected = P.kernel_latency_s + hop(LinkClass::IB, Proto::Simple) + 4.0 * 4 * S / 8 / B_net;
  CHECK(t == Approx(expected).epsilon(1e-6));
}
