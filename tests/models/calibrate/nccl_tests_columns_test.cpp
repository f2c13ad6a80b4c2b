// The nccl-tests table's columns as nccl-tests prints them (models/calibrate/nccl_tests.hpp):
// the count is what one rank passes to NCCL (src/common.cu setupArgs: paramcount, the size / ranks
// elements for all_gather, reduce_scatter and alltoall), and "# Avg bus bandwidth" is the mean of
// the out-of-place and the in-place busBw of every row (BenchTime adds both runs' busBw).
#include <catch2/catch.hpp>

#include "models/calibrate/nccl_tests.hpp"

using namespace models;

namespace {
calibrate::NcclTestsResult on_h200x4(nccl::CollOp op) {
  ScenarioSpec s;
  s.cluster.instance = "h200x4";
  calibrate::NcclTestsOptions o;
  o.op = op;
  o.min_bytes = 1 << 10;
  o.max_bytes = 1 << 26;
  o.factor = 8;
  return calibrate::run_nccl_tests(s, o);
}
}  // namespace

TEST_CASE("nccl-tests columns: a gather's count is one rank's, an all-reduce's the whole", "[nccl]") {
  for (const auto op : {nccl::CollOp::AllGather, nccl::CollOp::ReduceScatter, nccl::CollOp::AllToAll}) {
    const auto r = on_h200x4(op);
    REQUIRE(r.nranks == 4);
    for (const auto& row : r.rows) CHECK(row.count * 4 * 4 == row.size);  // 4 ranks x 4-byte floats
  }
  for (const auto& row : on_h200x4(nccl::CollOp::AllReduce).rows) CHECK(row.count * 4 == row.size);
}

TEST_CASE("nccl-tests columns: the average bus bandwidth takes both columns of every row", "[nccl]") {
  // all_gather's in-place run skips the local copy, so its column differs from out-of-place.
  const auto r = on_h200x4(nccl::CollOp::AllGather);
  double sum = 0, out_of_place = 0;
  for (const auto& row : r.rows) sum += row.busbw_gbs + row.ip_busbw_gbs, out_of_place += row.busbw_gbs;
  CHECK(r.avg_busbw_gbs == Approx(sum / (2.0 * r.rows.size())));
  CHECK(r.avg_busbw_gbs != Approx(out_of_place / r.rows.size()));
}
