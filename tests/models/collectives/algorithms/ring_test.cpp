// Ring algorithms (ring.cpp) against their closed forms on idle links, on the rig of rig.hpp:
//   all-reduce             T = kernel + 2(n-1) hop + 2(n-1)/n S / cap
//   all-gather, RS         T = kernel + (n-1) hop + (n-1)/n S / cap
//   broadcast, reduce      T = kernel + (n-1) hop + fill + S / cap, Simple's chain fill
//                          fill = (n-2) min(1, slice / (S / channels)) S / cap (pipeline_fill.hpp)
//   PAT                    T = kernel + ceil(log2 n) hop + (n-1)/n S / cap
#include <catch2/catch.hpp>

#include "models/collectives/copy_work.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

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
    CollectiveRecord rec;
    const double t = rig.run(CollOp::Broadcast, S, &rec);
    REQUIRE(rec.proto == Proto::Simple);
    // fill: 6 more edges than the slowest, each passing a 512 KiB slice (4 MiB / NCCL_STEPS)
    const double fill = 6 * (512.0 * 1024 * rec.channels / S) * S / (e * B);
    CHECK(t == Approx(P.kernel_latency_s + 7 * h + fill + S / (e * B)).epsilon(1e-6));
  }
}

TEST_CASE("collectives: a ring across nodes is paced by the network edge", "[nccl]") {
  // 2 nodes x 4 GPUs; NVLink 450 GB/s, NIC 12.5 GB/s: the two NET edges of the ring bound it.
  // Ring forced: on 2 nodes NCCL's tuner picks Tree for large all-reduces (tuning_two_nodes_test).
  Rig rig(2, 4, 450e9, 12.5e9, {{"NCCL_ALGO", "Ring"}});
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

TEST_CASE("ring: a step floor on the network edges holds every step of the ring", "[nccl]") {
  // ClassParams::step_floor_s: a net plugin's fixed cost per message. Every ring step
  // sends through both network edges of 2 nodes x 4 GPUs, so each of the ring's steps takes at
  // least the floor, not only the steps that cross the network: with F above the mean hop,
  //   T(F) - T(0) = steps x (F - mean hop),  mean hop = (6 NVLink + 2 network hops) / 8.
  const std::map<std::string, std::string> ring = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}};
  const double floor = 1e-3;
  const double mean_hop = (6 * hop(LinkClass::NVLink, Proto::Simple) + 2 * hop(LinkClass::IB, Proto::Simple)) / 8;
  REQUIRE(mean_hop < floor);
  const int64_t S = 1LL << 20;
  for (auto [op, steps] : {std::pair{CollOp::AllGather, 7}, std::pair{CollOp::AllReduce, 14}}) {
    Rig plain(2, 4, 450e9, 12.5e9, ring);
    Rig floored(2, 4, 450e9, 12.5e9, ring, 0, {{"ib.step_floor", floor}});
    CollectiveRecord rec;
    const double t0 = plain.run(op, S), t = floored.run(op, S, &rec);
    REQUIRE(rec.algo == Algo::Ring);
    CHECK(t - t0 == Approx(steps * (floor - mean_hop)).epsilon(1e-6));
  }
  // A floor below every network hop changes nothing.
  Rig plain(2, 4, 450e9, 12.5e9, ring), low(2, 4, 450e9, 12.5e9, ring, 0, {{"ib.step_floor", 1e-9}});
  CHECK(low.run(CollOp::AllReduce, S) == plain.run(CollOp::AllReduce, S));
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
    const std::string name(net.link_name(sim::LinkId{l}));
    if (name.rfind("node0/nic", 0) == 0 && name.size() > 3 && name.compare(name.size() - 3, 3, ".tx") == 0)
      nic_tx.push_back(net.link_bytes(sim::LinkId{l}));
  }
  REQUIRE(nic_tx.size() == 8);
  // Each of the 8 rings crosses the node boundary once each way: 2(n-1)/n x S / 8 per NIC group.
  const double expected = 2.0 * 15 / 16 * (1LL << 30) / 8;
  for (double b : nic_tx) CHECK(b == Approx(expected).epsilon(0.01));
}

TEST_CASE("ring: reduce is broadcast's chain, n-1 hops carrying S", "[nccl]") {
  const double B = 450e9;
  const int64_t S = 256LL << 20;
  Rig rig(1, 8, B, 50e9);
  // Less copy work than all-reduce (the busiest rank's 2L + R per byte against all-reduce's
  // (30L + 14R) / 14 at n = 8): capped at eta B, as broadcast.
  REQUIRE(copy_work_vs_all_reduce(CollOp::Reduce, 8, false) < 1);
  const double h = hop(LinkClass::NVLink, Proto::Simple), e = eta(LinkClass::NVLink, Proto::Simple);
  // T = kernel + (n-1) hop + fill + S / (eta B), fill = (n-2) x (one 512 KiB slice per channel) / rate
  CollectiveRecord rec;
  const double t = rig.run(CollOp::Reduce, S, &rec);
  REQUIRE(rec.proto == Proto::Simple);
  const double fill = 6 * (512.0 * 1024 * rec.channels / S) * S / (e * B);
  CHECK(t == Approx(P.kernel_latency_s + 7 * h + fill + S / (e * B)).epsilon(1e-6));
}

TEST_CASE("ring: PAT pays ceil(log2 n) hops for the ring's bytes", "[nccl]") {
  // 4 nodes x 1 GPU on IB (B_net each way): one ring over the 4 NICs.
  const double B_net = 25e9;
  Rig rig(4, 1, 450e9, B_net, {{"NCCL_ALGO", "PAT"}, {"NCCL_PROTO", "Simple"}});
  CollectiveRecord rec;
  const int64_t S = 256LL << 20;
  const double t = rig.run(CollOp::AllGather, S, &rec);
  REQUIRE(rec.algo == Algo::PAT);
  // IB has no measured per-channel rate: cap = eta B_net x channels / default channels.
  const CommPlan plan = build_plan(rig.world, rig.net, rig.all().ranks);
  const double share = static_cast<double>(rec.channels) / plan.channels_ref;
  const double cap = eta(LinkClass::IB, Proto::Simple) * B_net * share;
  REQUIRE(cap <= B_net);
  // T = kernel + ceil(log2 4) hop + (n-1)/n S / cap
  CHECK(t == Approx(P.kernel_latency_s + 2 * hop(LinkClass::IB, Proto::Simple) + 0.75 * S / cap).epsilon(1e-6));
}

TEST_CASE("ring: a rooted collective enters every rotated ring at the root (byte audit)", "[nccl]") {
  // Across nodes (and where NCCL nodes split a host) each ring is rotated to leave every node by
  // a different GPU. Broadcast and reduce must still run each ring's chain from the one root:
  // before the fix each ring was cut before its own first rank, so the roots differed, the root
  // received data and other ranks missed their share; the byte audit (every rank but the root
  // receives exactly S) aborted. Cases: p5 x 2 nodes (8 rings over 8 NIC groups), and the one
  // that exposed it, p4d.24xlarge with NCCL_P2P_DISABLE=1, an 8-byte broadcast over 8 GPUs.
  struct Case {
    const char* instance;
    int nodes;
    std::map<std::string, std::string> env;
    int64_t bytes;
  };
  for (const Case& c : {Case{"p5.48xlarge", 2, {}, 1LL << 30}, Case{"p4d.24xlarge", 1, {{"NCCL_P2P_DISABLE", "1"}}, 8}})
    for (CollOp op : {CollOp::Broadcast, CollOp::Reduce}) {
      ScenarioSpec spec;
      spec.cluster.instance = c.instance;
      spec.cluster.nodes = c.nodes;
      spec.nccl_env = c.env;
      sim::Simulator sim;
      sim::FlowNetwork net(sim);
      net.set_audit(true);
      auto world = World::build(spec, net);
      auto engine = make_collective_engine(sim, net, *world, spec);
      Group g;
      for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
      const CommPlan plan = build_plan(*world, net, g.ranks);
      INFO(c.instance << " " << coll_op_name(op) << ": " << plan.rings.size() << " rings");
      if (c.nodes > 1) REQUIRE(plan.rings.size() > 1);
      bool done = false;
      engine->launch(g, op, c.bytes, [&](const CollectiveRecord&) { done = true; });
      sim.run();  // the audit aborts if a rank is left without its data or the root receives
      CHECK(done);
    }
}
