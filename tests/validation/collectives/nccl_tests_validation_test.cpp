// What `commsim calibrate` reaches on the real nccl-tests curves of the 4 x H200 (in sample; the
// same curves with the defaults: scripts/accuracy_ranges.py --check) machine
// (scenarios/validation/h200x4/measured/nccl-tests/, NCCL 2.28.9, all_reduce_perf -g 4), with
// the profile scenarios/validation/h200x4.profile.toml fitted from them by `commsim calibrate`.
// Per size the measured time is the faster of out-of-place and in-place (noise only adds time).
//
// Targets: median |error| <= 5 %, none worse than 25 %. Measured truth, asserted
// below as it stands: P2P and SHM meet the median; P2P's first ten sizes of ar_g4.txt (8 B -
// 4 KiB) ran ~30 % slower than the same sizes in ar_g4_info.txt (a sweep's slow start), so
// their error reaches 32 %. Socket: median 7.0 % (12.7 % before the tuner saw what NCCL sees --
// one NCCL node per GPU, the Socket plugin's 10 Gb/s, 2.28's network latencies, the tree
// correction and ring plateau -- and before a step paid its per-message latency once per
// channel); max 42.6 % on the smallest sizes (8-64 B ran 42 us, 128 B-1 KiB 60-66 us, all
// Tree/LL on one channel per NCCL's log, and 32 B 103 us): misses both targets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/calibrate/nccl_tests.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "scenarios/load/loader.hpp"

namespace {
struct CurveAccuracy {
  double median = 0, max = 0;
  int points = 0;
};

CurveAccuracy compare_nccl_tests_validation(const std::string& measured_file, const std::vector<std::string>& sets) {
  const auto loaded =
      scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.toml", sets);
  const auto runs = models::readers::parse_nccl_tests_files(
      {std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/nccl-tests/" + measured_file});
  REQUIRE(runs.size() == 1);
  models::calibrate::NcclTestsOptions o;
  o.min_bytes = 8;
  o.max_bytes = runs[0].rows.back().size_bytes;
  const auto predicted = models::calibrate::run_nccl_tests(loaded.spec, o);
  std::vector<double> errs;
  for (const auto& m : runs[0].rows) {
    auto it = std::find_if(predicted.rows.begin(), predicted.rows.end(),
                           [&](const auto& r) { return r.size == m.size_bytes; });
    REQUIRE(it != predicted.rows.end());
    const double meas = m.ip ? std::min(m.oop.time_us, m.ip->time_us) : m.oop.time_us;
    errs.push_back(std::fabs(it->best_time_us() / meas - 1));
  }
  std::sort(errs.begin(), errs.end());
  CurveAccuracy a;
  a.points = static_cast<int>(errs.size());
  a.median = errs.size() % 2 ? errs[errs.size() / 2] : 0.5 * (errs[errs.size() / 2 - 1] + errs[errs.size() / 2]);
  a.max = errs.back();
  std::printf("%-16s %2d sizes: median |error| %5.1f %%, max %5.1f %%\n", measured_file.c_str(), a.points,
              a.median * 100, a.max * 100);
  return a;
}
// One all-reduce size of a validation scenario (scenarios/validation/FILE), its row as nccl-tests
// prints it; `nodes` > 0 sets cluster.nodes.
models::calibrate::NcclTestsRow one_all_reduce(const std::string& file, int nodes, int64_t bytes) {
  std::vector<std::string> sets;
  if (nodes > 0) sets.push_back("cluster.nodes=" + std::to_string(nodes));
  const auto loaded = scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/" + file, sets);
  models::calibrate::NcclTestsOptions o;
  o.op = models::nccl::CollOp::AllReduce;
  o.min_bytes = o.max_bytes = bytes;
  const auto r = models::calibrate::run_nccl_tests(loaded.spec, o);
  REQUIRE(r.rows.size() == 1);
  return r.rows[0];
}
}  // namespace

TEST_CASE("calibrated (the profile fitted on these files): all-reduce over NVLink P2P (ar_g4.txt) within 5 % median",
          "[validation][nccl]") {
  const CurveAccuracy a = compare_nccl_tests_validation("ar_g4.txt", {});
  CHECK(a.points == 28);
  CHECK(a.median <= 0.05);
  CHECK(a.max <= 0.35);  // the 8 B - 4 KiB slow start, see the header
}

TEST_CASE(
    "calibrated (the profile fitted on these files): all-reduce through host memory (ar_g4_shm.txt, "
    "NCCL_P2P_DISABLE=1) within 5 % median",
    "[validation][nccl]") {
  const CurveAccuracy a = compare_nccl_tests_validation("ar_g4_shm.txt", {"nccl.env.NCCL_P2P_DISABLE=\"1\""});
  CHECK(a.points == 26);
  CHECK(a.median <= 0.05);
  CHECK(a.max <= 0.25);
}

TEST_CASE(
    "calibrated (the profile fitted on these files): all-reduce over TCP sockets (ar_g4_sock.txt) within 8 % median",
    "[validation][nccl]") {
  const CurveAccuracy a = compare_nccl_tests_validation(
      "ar_g4_sock.txt", {"nccl.env.NCCL_P2P_DISABLE=\"1\"", "nccl.env.NCCL_SHM_DISABLE=\"1\""});
  CHECK(a.points == 24);
  CHECK(a.median <= 0.08);  // misses the 5 % target: see the header
  CHECK(a.max <= 0.45);
}

TEST_CASE("validation: the profile in the repository is what calibrate fits today", "[validation][nccl]") {
  // A stale profile would make every prediction on this machine drift from the data silently.
  const auto loaded = scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.toml");
  CHECK(loaded.spec.cluster.params.count("nvlink.efficiency.simple") == 1);
  // Simple over NVLink reaches ~78 % of 18 x 26.5625 GB/s raw: 354 GB/s busbw at 1 GiB (ar_g4.txt).
  CHECK(loaded.spec.cluster.params.at("nvlink.efficiency.simple") == Approx(354.4 / 478.1).epsilon(0.06));
}

TEST_CASE("validation: p4d over EFA, 1 GiB all-reduce on 3 and 4 nodes (public nccl-tests numbers)",
          "[validation][nccl]") {
  // github.com/NVIDIA/nccl/issues/527 (p4dn.24xlarge, 8 GPUs + 4 x 100 Gb/s EFA per node):
  // 64782 us on 3 nodes, 70253 us on 4. In sample: the EFA Simple efficiency (0.6) comes from
  // these two numbers (models/comm_plan/link_params.cpp); this pins that the engine turns it back into
  // them through the multi-node rings spread over the four NIC groups.
  for (const auto& [nodes, measured_us] : {std::pair{3, 64782.0}, std::pair{4, 70253.0}}) {
    const auto row = one_all_reduce("p4d_nodes_allreduce.toml", nodes, int64_t{1} << 30);
    INFO(nodes << " nodes: predicted " << row.time_us << " us, measured " << measured_us << " us");
    CHECK(std::fabs(row.time_us / measured_us - 1) < 0.10);
  }
}

TEST_CASE("validation: p4d, 1 GiB all-reduce on 1 and 2 nodes of the same public run", "[validation][nccl]") {
  // github.com/NVIDIA/nccl/issues/527, the same p4dn.24xlarge run: 8142.6 us on one node (NVLink
  // rings alone: out of sample), 35215 us on two (Tree over EFA: EFA v1's efficiency is read off
  // the 3- and 4-node points). As it stands: -1.7 % (8002 us) and +4.8 %.
  for (const auto& [nodes, measured_us] : {std::pair{1, 8142.6}, std::pair{2, 35215.0}}) {
    const auto row = one_all_reduce("p4d_nodes_allreduce.toml", nodes, int64_t{1} << 30);
    INFO(nodes << " nodes: predicted " << row.time_us << " us, measured " << measured_us << " us");
    CHECK(std::fabs(row.time_us / measured_us - 1) < 0.08);
  }
}

TEST_CASE("validation: 2 x DGX A100 over 8 x HDR, ring all-reduce bus bandwidth (NVIDIA's published figure)",
          "[validation][nccl]") {
  // github.com/NVIDIA/nccl/issues/812: "On an Nvidia DGX-A100 system we have 8x200Gbit/s IB cards
  // and we measure 192GB/s AllReduce BusBW". Nothing is fitted on it. Every GPU sends through a NIC
  // of its own (two GPUs and two NICs under each PCIe switch): with one NIC pair per switch as one
  // group, rings entered and left each pair through one GPU's PCIe link and moved half of it.
  const auto row = one_all_reduce("dgx_a100_nodes_allreduce.toml", 0, int64_t{8} << 30);
  std::printf("2 x DGX A100: bus bandwidth %.1f GB/s predicted, 192 measured\n", row.busbw_gbs);
  CHECK(std::fabs(row.busbw_gbs / 192.0 - 1) < 0.10);
}

TEST_CASE("validation: 1, 2 and 4 HGX H100 nodes over 8 x NDR, all-reduce bus bandwidth (public nccl-tests run)",
          "[validation][nccl]") {
  // github.com/NVIDIA/nccl-tests/issues/309 (Dell XE9680, 8 x H100 + 8 x CX-7 NDR, NCCL 2.26.2):
  // the largest bus bandwidth of 1 node 480 GB/s (NVLS), 2 nodes 470 (NVLSTree), 4 nodes 365.84
  // (rings). Nothing is fitted on them. As it stands: 440 (-8.3 %), 468 (-0.4 %), 358 (-2.2 %).
  for (const auto& [nodes, measured] : {std::pair{1, 480.0}, std::pair{2, 470.0}, std::pair{4, 365.84}}) {
    const auto row = one_all_reduce("hgx_h100_nodes_allreduce.toml", nodes, int64_t{8} << 30);
    std::printf("%d x HGX H100: bus bandwidth %.1f GB/s predicted, %.2f measured\n", nodes, row.busbw_gbs, measured);
    CHECK(std::fabs(row.busbw_gbs / measured - 1) < 0.10);
  }
}

TEST_CASE("validation: 8 x A100 on one node, all-reduce bus bandwidth (public nccl-tests run)", "[validation][nccl]") {
  // github.com/NVIDIA/nccl-tests/issues/175: one node of 8 x A100 SXM on NVSwitch, all_reduce_perf
  // -b 8 -e 4G -g 8: 232.54 GB/s. Nothing is fitted on it (NVLink 4's efficiency, carried to NVLink 3, is the 4 x H200
  // machine's). As it stands: 236.5 GB/s, 1.7 % above (221.5 with every generation at 0.74).
  const auto row = one_all_reduce("dgx_a100_nodes_allreduce.toml", 1, int64_t{4} << 30);
  std::printf("8 x A100: bus bandwidth %.1f GB/s predicted, 232.54 measured\n", row.busbw_gbs);
  CHECK(std::fabs(row.busbw_gbs / 232.54 - 1) < 0.08);
}
