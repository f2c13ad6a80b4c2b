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
