// Copy work per byte sent (copy_work.hpp) against the primitives' load/store count.
#include <catch2/catch.hpp>

#include "models/collectives/copy_work.hpp"

using namespace models;
using namespace models::nccl;
using namespace models::collectives;

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

TEST_CASE("collectives: a ring's channel rate over the 2-rank all-reduce's follows all-reduce's copy cost", "[nccl]") {
  // nvlink.channel_bandwidth is one channel of a 2-rank all-reduce, 3L + R = 5 per byte sent; an
  // n-rank ring costs (L(4n-2) + R(2n-2)) / (2n-2): 4 ranks 26/6, 8 ranks 58/14, towards 2L + R = 4.
  CHECK(ring_channel_gain(1) == 1.0);
  CHECK(ring_channel_gain(2) == Approx(1.0));
  CHECK(ring_channel_gain(4) == Approx(5.0 / (26.0 / 6)));
  CHECK(ring_channel_gain(8) == Approx(5.0 / (58.0 / 14)));
  double last = 1.0;
  for (int n : {3, 4, 8, 16, 32, 256, 4096}) {
    INFO(n << " ranks");
    CHECK(ring_channel_gain(n) > last);  // more ranks: a smaller share of reduce-and-copy steps
    CHECK(ring_channel_gain(n) < 1.25);  // never past 5 / 4
    last = ring_channel_gain(n);
  }
  CHECK(ring_channel_gain(4096) == Approx(1.25).epsilon(1e-3));
}
