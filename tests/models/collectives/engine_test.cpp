// The collective engine against its closed forms on idle links, and contention made real.
// A small fake World (n GPUs on one NVSwitch, or one GPU per node on a NIC) keeps these tests
// independent of the catalogs: B is the raw per-direction bandwidth of each GPU's links.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/collectives/collective.hpp"
#include "models/collectives/copy_work.hpp"
#include "models/collectives/link_params.hpp"
#include "models/nccl/env.hpp"

using namespace models;
using namespace models::nccl;
using namespace models::collectives;

namespace {
class FakeWorld final : public World {
 public:
  // nodes x gpus_per_node; inside a node P2P over NVLink (B), across nodes NET/IB (B_net).
  FakeWorld(sim::FlowNetwork& net, int nodes, int gpus_per_node, double B, double B_net)
      : nodes_(nodes), gpn_(gpus_per_node), placement_{nodes, 1, gpus_per_node} {
    node_.gpu = models::hw::find_gpu("H200");
    node_.gpus = gpus_per_node;
    for (int r = 0; r < nodes * gpus_per_node; ++r) {
      RankInfo info;
      info.rank = r;
      info.node = r / gpus_per_node;
      info.pod = info.node;
      info.local_gpu = r % gpus_per_node;
      info.pod_rank = info.local_gpu;
      ranks_.push_back(info);
      tx_.push_back(net.add_link("gpu" + std::to_string(r) + ".tx", "nvlink", B, sim::Time::zero()));
      rx_.push_back(net.add_link("gpu" + std::to_string(r) + ".rx", "nvlink", B, sim::Time::zero()));
    }
    for (int n = 0; n < nodes; ++n) {
      nic_tx_.push_back(net.add_link("nic" + std::to_string(n) + ".tx", "ib", B_net, sim::Time::zero()));
      nic_rx_.push_back(net.add_link("nic" + std::to_string(n) + ".rx", "ib", B_net, sim::Time::zero()));
    }
  }
  int size() const override { return static_cast<int>(ranks_.size()); }
  int nodes() const override { return nodes_; }
  const RankInfo& rank(int r) const override { return ranks_[r]; }
  Transport transport(int a, int b) const override {
    Transport t;
    if (ranks_[a].node == ranks_[b].node) {
      t.kind = TransportKind::P2P;
      t.link_class = LinkClass::NVLink;
      t.label = "P2P/CUMEM";
    } else {
      t.kind = TransportKind::NET;
      t.link_class = LinkClass::IB;
      t.label = "NET/IB/0/GDRDMA";
      t.gdr = true;
    }
    return t;
  }
  void path(int a, int b, std::vector<sim::LinkId>& out) const override {
    if (ranks_[a].node == ranks_[b].node) {
      out.push_back(tx_[a]);
      out.push_back(rx_[b]);
    } else {
      out.push_back(nic_tx_[ranks_[a].node]);
      out.push_back(nic_rx_[ranks_[b].node]);
    }
  }
  void host_to_gpu(int, std::vector<sim::LinkId>&) const override {}
  void gpu_to_host(int, std::vector<sim::LinkId>&) const override {}
  std::string describe() const override { return "fake"; }
  const models::topology::Placement& placement() const override { return placement_; }
  const models::hw::NodeSpec& node() const override { return node_; }
  const NcclEnv& nccl_env() const override { return env; }
  NcclEnv env;  // what World::build would have parsed from the scenario's [nccl.env]

 private:
  int nodes_, gpn_;
  std::vector<RankInfo> ranks_;
  std::vector<sim::LinkId> tx_, rx_, nic_tx_, nic_rx_;
  models::topology::Placement placement_;
  models::hw::NodeSpec node_;
};

struct Rig {
  sim::Simulator sim;
  sim::FlowNetwork net{sim};
  FakeWorld world;
  ScenarioSpec spec;
  std::unique_ptr<CollectiveEngine> engine;
  Rig(int nodes, int gpn, double B, double B_net, std::map<std::string, std::string> env = {})
      : world(net, nodes, gpn, B, B_net) {
    spec.nccl_env = std::move(env);
    world.env = parse_nccl_env(spec.nccl_env);
    net.set_audit(true);
    engine = make_collective_engine(sim, net, world, spec);
  }
  Group all() const {
    Group g;
    for (int r = 0; r < world.size(); ++r) g.ranks.push_back(r);
    return g;
  }
  // Runs one collective alone; returns its duration in seconds and the record.
  double run(CollOp op, int64_t bytes, CollectiveRecord* out = nullptr) {
    const double t0 = sim.now().seconds();
    double t1 = -1;
    engine->launch(all(), op, bytes, [&](const CollectiveRecord& r) {
      t1 = sim.now().seconds();
      if (out) *out = r;
    });
    sim.run();
    REQUIRE(t1 >= 0);
    return t1 - t0;
  }
};

const LinkParams P = LinkParams::defaults();
double hop(LinkClass c, Proto p) { return P.of(c).hop_latency_s[static_cast<int>(p)]; }
double eta(LinkClass c, Proto p) { return P.of(c).efficiency[static_cast<int>(p)]; }
}  // namespace

TEST_CASE("collectives: ring all-reduce on idle NVLink equals its closed form", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9);
  CollectiveRecord rec;
  const int64_t S = 1LL << 30;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Ring);
  REQUIRE(rec.proto == Proto::Simple);
  REQUIRE(rec.channels == 24);
  // T = kernel + 2(n-1) hop + 2(n-1)/n S / (eta B): n = 4, all 24 channels (share 1).
  const double expected = P.kernel_latency_s + 6 * hop(LinkClass::NVLink, Proto::Simple) +
                          1.5 * S / (eta(LinkClass::NVLink, Proto::Simple) * B);
  CHECK(t == Approx(expected).epsilon(1e-6));
}

TEST_CASE("collectives: copy work per byte sent, relative to all-reduce (NCCL's ring primitives)", "[nccl]") {
  // Local load/store L = 1, store across NVLink R = 2. n = 2: all-reduce 3L + R = 5, all-gather
  // out of place and reduce-scatter 4L + R = 6, in place 5, broadcast L + R = 3, reduce
  // max(L + R, 3L) = 3.
  CHECK(copy_work_vs_all_reduce(CollOp::AllReduce, 2, false) == Approx(1.0));
  CHECK(copy_work_vs_all_reduce(CollOp::AllGather, 2, false) == Approx(6.0 / 5));
  CHECK(copy_work_vs_all_reduce(CollOp::ReduceScatter, 2, false) == Approx(6.0 / 5));
  CHECK(copy_work_vs_all_reduce(CollOp::AllGather, 2, true) == Approx(1.0));
  CHECK(copy_work_vs_all_reduce(CollOp::Broadcast, 2, false) == Approx(3.0 / 5));
  CHECK(copy_work_vs_all_reduce(CollOp::Reduce, 2, false) == Approx(3.0 / 5));
  // n = 8: all-reduce (30 + 28)/14, all-gather (16 + 14)/7, in place (15 + 14)/7, broadcast 4.
  const double ar8 = 58.0 / 14;
  CHECK(copy_work_vs_all_reduce(CollOp::AllGather, 8, false) == Approx(30.0 / 7 / ar8));
  CHECK(copy_work_vs_all_reduce(CollOp::AllGather, 8, true) == Approx(1.0));
  CHECK(copy_work_vs_all_reduce(CollOp::Broadcast, 8, false) == Approx(4 / ar8));
  CHECK(copy_work_vs_all_reduce(CollOp::AllToAll, 8, false) == Approx(1.0));
}

TEST_CASE("collectives: all-gather, reduce-scatter and broadcast closed forms", "[nccl]") {
  const double B = 450e9;
  const int64_t S = 256LL << 20;
  const double e = eta(LinkClass::NVLink, Proto::Simple), h = hop(LinkClass::NVLink, Proto::Simple);
  // Over NVLink the rate scales with 1/w, w = copy_work_vs_all_reduce (never above eta B).
  SECTION("all-gather: (n-1) steps of S/n") {
    Rig rig(1, 8, B, 50e9);
    const double w = copy_work_vs_all_reduce(CollOp::AllGather, 8, false);
    REQUIRE(w > 1);
    // T = kernel + (n-1) hop + (n-1)/n S / (eta B / w)
    CHECK(rig.run(CollOp::AllGather, S) ==
          Approx(P.kernel_latency_s + 7 * h + 7.0 / 8 * S * w / (e * B)).epsilon(1e-6));
  }
  SECTION("reduce-scatter is the same on the wire") {
    Rig rig(1, 8, B, 50e9);
    const double w = copy_work_vs_all_reduce(CollOp::ReduceScatter, 8, false);
    CHECK(rig.run(CollOp::ReduceScatter, S) ==
          Approx(P.kernel_latency_s + 7 * h + 7.0 / 8 * S * w / (e * B)).epsilon(1e-6));
  }
  SECTION("broadcast: a pipelined chain of n-1 hops carrying S (less work than all-reduce: capped at eta B)") {
    Rig rig(1, 8, B, 50e9);
    REQUIRE(copy_work_vs_all_reduce(CollOp::Broadcast, 8, false) < 1);
    CHECK(rig.run(CollOp::Broadcast, S) == Approx(P.kernel_latency_s + 7 * h + S / (e * B)).epsilon(1e-6));
  }
}

TEST_CASE("collectives: tree all-reduce when forced, and its closed form", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}});
  CollectiveRecord rec;
  const int64_t S = 64LL << 20;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Tree);
  // One node: a chain 0-1-2-3; every chain edge carries S up and S down. An interior GPU sends
  // S up and S down through its one NVLink tx, so each flow gets B/2 (< eta B):
  // T = kernel + 2 (ppn-1) hop + 2 S / B.
  REQUIRE(B / 2 < eta(LinkClass::NVLink, Proto::Simple) * B);
  CHECK(t == Approx(P.kernel_latency_s + 2 * 3 * hop(LinkClass::NVLink, Proto::Simple) + 2.0 * S / B).epsilon(1e-6));
}

TEST_CASE("collectives: a ring across nodes is paced by the network edge", "[nccl]") {
  // 2 nodes x 4 GPUs; NVLink 450 GB/s, NIC 12.5 GB/s: the two NET edges of the ring bound it.
  Rig rig(2, 4, 450e9, 12.5e9);
  CollectiveRecord rec;
  const int64_t S = 1LL << 30;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Ring);
  const int n = 8;
  const double edge_bytes = 2.0 * (n - 1) / n * S;
  const double share = static_cast<double>(rec.channels) / 2;  // channels_ref = 2 x 1 NIC
  const double net_rate = std::min(12.5e9, eta(LinkClass::IB, Proto::Simple) * 12.5e9 * share);
  CHECK(t > edge_bytes / net_rate);
  CHECK(t < edge_bytes / net_rate * 1.01 + 1e-3);
}

TEST_CASE("collectives: two all-reduces on the same links share them (contention is real)", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9);
  const int64_t S = 1LL << 30;
  const double alone = rig.run(CollOp::AllReduce, S);
  // Two at once: each flow is capped at eta B = 350 GB/s, two share 450 GB/s -> 225 each.
  double t_a = -1, t_b = -1;
  const double t0 = rig.sim.now().seconds();
  rig.engine->launch(rig.all(), CollOp::AllReduce, S,
                     [&](const CollectiveRecord&) { t_a = rig.sim.now().seconds() - t0; });
  rig.engine->launch(rig.all(), CollOp::AllReduce, S,
                     [&](const CollectiveRecord&) { t_b = rig.sim.now().seconds() - t0; });
  rig.sim.run();
  const double expected = P.kernel_latency_s + 6 * hop(LinkClass::NVLink, Proto::Simple) + 1.5 * S / (B / 2);
  CHECK(t_a == Approx(expected).epsilon(1e-6));
  CHECK(t_b == Approx(expected).epsilon(1e-6));
  CHECK(t_a > alone * 1.4);
}

TEST_CASE("collectives: send/recv and all-to-all deliver over the pair's path", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9);
  double t = -1;
  rig.engine->send_recv(0, 1, 1 << 30, [&](const CollectiveRecord&) { t = rig.sim.now().seconds(); });
  rig.sim.run();
  // T = kernel + hop + S / (eta B)
  CHECK(t == Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple) +
                    (1 << 30) / (eta(LinkClass::NVLink, Proto::Simple) * B))
                 .epsilon(1e-6));
  // All-to-all of S per rank: each GPU sends 3 x S/4 through its own tx link (shared by 3 flows).
  const int64_t S = 1LL << 30;
  const double t_a2a = rig.run(CollOp::AllToAll, S);
  CHECK(t_a2a == Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple) + 0.75 * S / B).epsilon(1e-6));
}

TEST_CASE("collectives: fewer channels (NCCL_MAX_NCHANNELS) cap a ring at channels x per-channel rate", "[nccl]") {
  const double B = 450e9;
  Rig full(1, 4, B, 50e9);
  Rig limited(1, 4, B, 50e9, {{"NCCL_MAX_NCHANNELS", "6"}});
  const int64_t S = 1LL << 30;
  const double t_full = full.run(CollOp::AllReduce, S);
  const double t_lim = limited.run(CollOp::AllReduce, S);
  // Full: cap = eta B. Limited: cap = min(eta B, 6 x per-channel rate) (one channel moves
  // ~20.6 GB/s on H200, measured with NCCL_MAX_NCHANNELS=4): the bandwidth terms scale by
  // eta B / (6 x 20.6 GB/s), not by 24/6 -- channels are not a fixed slice of the link.
  // One channel at the default 4 MiB NCCL_BUFFSIZE: 1 / (1/channel_bandwidth + rtt/buffsize).
  const auto& nv = P.of(LinkClass::NVLink);
  const double per_channel = 1.0 / (1.0 / nv.channel_bandwidth + nv.flow_control_rtt_s / double(1 << 22));
  const double ratio = eta(LinkClass::NVLink, Proto::Simple) * B / (6 * per_channel);
  CHECK(t_lim / t_full == Approx(ratio).epsilon(0.02));
  CHECK(ratio < 4.0);
}

TEST_CASE("collectives: across nodes every NIC group carries its share of a ring (p5, 2 nodes)", "[nccl]") {
  // NCCL's channels leave a node through different GPUs and so different NICs: on p5 (8 GPUs, 4
  // EFA each) the 1 GiB ring all-reduce must load all 8 NIC groups of a node equally, not one.
  ScenarioSpec spec;
  spec.cluster.instance = "p5.48xlarge";
  spec.cluster.nodes = 2;
  spec.nccl_env = {{"NCCL_ALGO", "Ring"}};
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  net.set_audit(true);
  auto world = World::build(spec, net);
  auto engine = make_collective_engine(sim, net, *world, spec);
  Group g;
  for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
  engine->launch(g, CollOp::AllReduce, 1LL << 30, [](const CollectiveRecord&) {});
  sim.run();
  std::vector<double> nic_tx;
  for (uint32_t l = 0; l < net.link_count(); ++l) {
    const std::string& name = net.link_name(sim::LinkId{l});
    if (name.rfind("node0/nic", 0) == 0 && name.size() > 3 && name.compare(name.size() - 3, 3, ".tx") == 0)
      nic_tx.push_back(net.link_bytes(sim::LinkId{l}));
  }
  REQUIRE(nic_tx.size() == 8);
  // Each of the 8 rings crosses the node boundary once each way: 2(n-1)/n x S / 8 per NIC group.
  const double expected = 2.0 * 15 / 16 * (1LL << 30) / 8;
  for (double b : nic_tx) CHECK(b == Approx(expected).epsilon(0.01));
}

TEST_CASE("collectives: P2P read mode applies its bandwidth factor and handshake latency", "[nccl]") {
  // p4d: A100 NVLink pairs run P2P/CUMEM/read. With read factor f, the ring's bandwidth term
  // scales by 1/f: T(f) - L = (T(1) - L) / f, with L = kernel + 2(n-1) (hop + read handshake).
  auto run = [](double factor) {
    ScenarioSpec spec;
    spec.cluster.instance = "p4d.24xlarge";
    spec.cluster.params["p2p.read.bandwidth_factor"] = factor;
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(spec, net);
    REQUIRE(world->transport(0, 1).p2p_read);
    auto engine = make_collective_engine(sim, net, *world, spec);
    Group g;
    for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
    engine->launch(g, CollOp::AllReduce, 1LL << 30, [](const CollectiveRecord&) {});
    sim.run();
    return sim.now().seconds();
  };
  const LinkParams d = LinkParams::defaults();
  const double L = d.kernel_latency_s + 14 * (hop(LinkClass::NVLink, Proto::Simple) + d.p2p_read_extra_latency_s);
  const double full = run(1.0), half = run(0.5);
  CHECK(half - L == Approx(2 * (full - L)).epsilon(1e-4));
}
