// Tree all-reduce (tree.cpp) against its closed form on idle links, on the rig of rig.hpp:
//   T = kernel + 2 ((ppn-1) hop_intra + log2(nodes) hop_inter) + S / cap
#include <catch2/catch.hpp>

#include "models/collectives/comm_plan.hpp"
#include "rig.hpp"

using namespace collectives_test;

TEST_CASE("collectives: tree all-reduce when forced, and its closed form", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}});
  CollectiveRecord rec;
  const int64_t S = 64LL << 20;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Tree);
  // One node: a chain 0-1-2-3; every chain edge carries S up and S down. An interior GPU sends
  // S up and S down through its one NVLink tx port, whose usable total is eta B (the protocol's
  // efficiency is the port's), so each flow gets eta B / 2:
  // T = kernel + 2 (ppn-1) hop + 2 S / (eta B).
  const double e = eta(LinkClass::NVLink, Proto::Simple);
  CHECK(t ==
        Approx(P.kernel_latency_s + 2 * 3 * hop(LinkClass::NVLink, Proto::Simple) + 2.0 * S / (e * B)).epsilon(1e-6));
}

TEST_CASE("tree: all-reduce across nodes pays log2(nodes) network hops and moves S over each NIC", "[nccl]") {
  // 2 nodes x 2 GPUs: a chain of 2 GPUs in each node, the double binary tree over the 2
  // leaders: tree 0 sends up 1 -> 0, tree 1 (mirrored) 0 -> 1, each half the data, so each NIC
  // carries S one way (up half + down half). NVLink (450 GB/s) is far faster than the NIC.
  const double B_net = 12.5e9;
  Rig rig(2, 2, 450e9, B_net, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}});
  CollectiveRecord rec;
  const int64_t S = 256LL << 20;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Tree);
  const CommPlan plan = build_plan(rig.world, rig.net, rig.all().ranks);
  const double share = static_cast<double>(rec.channels) / plan.channels_ref;
  const double cap = eta(LinkClass::IB, Proto::Simple) * B_net * share;  // IB: no per-channel rate
  REQUIRE(cap <= B_net);
  // T = kernel + 2 ((ppn-1) hop_intra + log2(nodes) hop_inter) + S / cap, ppn = 2, nodes = 2
  const double lat =
      P.kernel_latency_s + 2 * (hop(LinkClass::NVLink, Proto::Simple) + hop(LinkClass::IB, Proto::Simple));
  CHECK(t == Approx(lat + S / cap).epsilon(1e-6));
}
