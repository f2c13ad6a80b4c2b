// nccl-tests on one group of a step (NcclTestsOptions::ranks): the communicator is those ranks,
// in that order. One node's 8 GPUs of a 2-node p4d cluster replay exactly as the 1-node
// cluster's whole world does (their NVSwitch and nothing else), and the table numbers the
// group's ranks from 0.
#include <catch2/catch.hpp>

#include "models/calibrate/nccl_tests.hpp"

using namespace models;

namespace {
ScenarioSpec p4d_nodes(int nodes) {
  ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = nodes;
  s.placement.pods_per_node = 1;
  s.placement.gpus_per_pod = 8;
  return s;
}
}  // namespace

TEST_CASE("nccl-tests on a group: one node's ranks of two nodes replay as one node's cluster", "[nccl]") {
  for (auto op : {nccl::CollOp::AllGather, nccl::CollOp::AllReduce}) {
    calibrate::NcclTestsOptions o;
    o.op = op;
    o.min_bytes = 1024;
    o.max_bytes = int64_t{1} << 28;
    o.factor = 16;
    o.iters = 1;
    const auto one_node = calibrate::run_nccl_tests(p4d_nodes(1), o);
    o.ranks = {8, 9, 10, 11, 12, 13, 14, 15};  // the second node's GPUs
    const auto group = calibrate::run_nccl_tests(p4d_nodes(2), o);
    CHECK(group.nranks == 8);
    CHECK(group.link_classes == one_node.link_classes);
    REQUIRE(group.rank_lines.size() == 8);
    CHECK(group.rank_lines[0].rfind("#  Rank  0 Group  0", 0) == 0);
    CHECK(group.rank_lines[0].find(" on      node1 device  0") != std::string::npos);
    REQUIRE(group.rows.size() == one_node.rows.size());
    for (std::size_t i = 0; i < group.rows.size(); ++i) {
      INFO(group.rows[i].size);
      CHECK(group.rows[i].size == one_node.rows[i].size);
      CHECK(group.rows[i].time_us == one_node.rows[i].time_us);
      CHECK(group.rows[i].busbw_gbs == one_node.rows[i].busbw_gbs);
    }
    // Over both nodes (every rank) the same sizes cross EFA: slower at 256 MiB.
    o.ranks.clear();
    const auto both = calibrate::run_nccl_tests(p4d_nodes(2), o);
    CHECK(both.nranks == 16);
    CHECK(both.rows.back().busbw_gbs < group.rows.back().busbw_gbs);
  }
}
