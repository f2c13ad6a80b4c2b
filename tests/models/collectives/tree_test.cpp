// Tree all-reduce (tree.cpp) against its closed form on idle links, on the rig of rig.hpp:
//   T = kernel + 2 ((ppn-1) hop_intra + log2(nodes) hop_inter) + S / cap
#include <catch2/catch.hpp>

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
  // S up and S down through its one NVLink tx, so each flow gets B/2 (< eta B):
  // T = kernel + 2 (ppn-1) hop + 2 S / B.
  REQUIRE(B / 2 < eta(LinkClass::NVLink, Proto::Simple) * B);
  CHECK(t == Approx(P.kernel_latency_s + 2 * 3 * hop(LinkClass::NVLink, Proto::Simple) + 2.0 * S / B).epsilon(1e-6));
}
