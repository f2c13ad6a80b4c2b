// EFA clusters with the catalog's defaults, no profile (models/hw/efa_generations.cpp says where each
// EFA generation's parameters come from; docs/accuracy.md, first table and "EFA beyond p4d"):
//   - the sources of EFA v2's and v4's LL latencies reproduce: 2 x p5 at 16-128 B, median 68.7 us
//     (aws/aws-k8s-tester#585), 2 x p6-b200 at 8-256 B, median 55.1 us (dstackai/dstack#3961);
//   - the two validation files, their profiles removed: 2 x p5 (awesome-distributed-ai) and
//     2 x p4de (EFA v1, whose defaults no independent small-size curve could source);
//   - p5 on 2-32 nodes (crazyguitar/aws-gpu-communication-benchmark, aws-ofi-nccl's tuner loaded):
//     EFA v2's Simple efficiency is the ring plateau of its 4-16 node rows; the rest checks.
// The bounds are the accuracy as it stands, asserted so that a change shows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "models/calibrate/nccl_tests.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/validation/collectives/curve_files.hpp"
#include "tests/validation/jsonl_rows.hpp"

namespace {
const std::string kValidation = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/";

// The scenario with the catalog's defaults: whatever its profile set is removed.
models::ScenarioSpec defaults_of(const std::string& scenario) {
  auto spec = scenarios::load_scenario(kValidation + scenario).spec;
  spec.cluster.params.clear();
  return spec;
}

std::map<int64_t, double> predicted_us(const models::ScenarioSpec& spec, int64_t lo, int64_t hi) {
  models::calibrate::NcclTestsOptions o;
  o.op = models::nccl::CollOp::AllReduce;
  o.min_bytes = lo;
  o.max_bytes = hi;
  std::map<int64_t, double> out;
  for (const auto& r : models::calibrate::run_nccl_tests(spec, o).rows) out[r.size] = r.best_time_us();
  return out;
}

struct Ranges {
  std::vector<double> all, small, medium, large;  // |error|: every size, < 64 KiB, 1-64 MiB, >= 64 MiB
};

Ranges against_file(const std::string& dir) {
  Ranges r;
  for (const auto& [bytes, err] : validation::nccl_tests_errors(defaults_of(dir + "/scenario.toml"),
                                                                kValidation + dir + "/measured/all_reduce_perf.txt")) {
    const double e = std::fabs(err);
    r.all.push_back(e);
    if (bytes < (64 << 10)) r.small.push_back(e);
    if (bytes >= (int64_t{1} << 20) && bytes < (int64_t{64} << 20)) r.medium.push_back(e);
    if (bytes >= (int64_t{64} << 20)) r.large.push_back(e);
  }
  std::printf("%-16s defaults: median |error| %5.1f %%, < 64 KiB %5.1f %%, 1-64 MiB %5.1f %%, >= 64 MiB %5.1f %%\n",
              dir.c_str(), validation::median(r.all) * 100, validation::median(r.small) * 100,
              validation::median(r.medium) * 100, validation::median(r.large) * 100);
  return r;
}
}  // namespace

TEST_CASE("validation: EFA v2 and v4 LL latencies reproduce the small sizes they were read off", "[validation][nccl]") {
  models::ScenarioSpec p5 = defaults_of("p5_2node_efa/scenario.toml");
  const auto t5 = predicted_us(p5, 16, 128);
  for (const auto& [size, t] : t5) CHECK(t == Approx(68.7).epsilon(0.02));
  models::ScenarioSpec p6 = p5;
  p6.cluster.instance = "p6-b200.48xlarge";
  const auto t6 = predicted_us(p6, 8, 256);
  for (const auto& [size, t] : t6) CHECK(t == Approx(55.1).epsilon(0.02));
}

TEST_CASE("validation: 2 x p5 and 2 x p4de over EFA with the catalog's defaults", "[validation][nccl]") {
  // p5: 59.1 % before EFA v2 had parameters of its own (all sizes 2-2.5x fast below 64 MiB); now
  // 5.8 %: < 64 KiB 5.3 %, >= 64 MiB 3.8 %, 1-64 MiB 19.7 % (26.8 % before LL128's units of the
  // tree's fill, models/collectives/pipeline_fill.hpp; what is left: Tree/LL128 at 2-8 MiB and
  // Ring/LL128 at 16-32 MiB, 13-25 % fast).
  const Ranges p5 = against_file("p5_2node_efa");
  CHECK(p5.all.size() == 32);
  CHECK(validation::median(p5.all) <= 0.07);
  CHECK(validation::median(p5.small) <= 0.06);
  CHECK(p5.medium.size() == 6);
  CHECK(validation::median(p5.medium) <= 0.21);
  CHECK(validation::median(p5.large) <= 0.05);
  // p4de (EFA v1: EFA v2's step latencies, a lower bound, and p4dn's 0.6 with NCCL 2.9.9): 18.2 %
  // (36.8 % with NCCL's InfiniBand step latencies), too fast below 1 MiB, 35 % too slow from 64 MiB
  // (0.6 of the NICs where this run's plateau says 0.84).
  const Ranges p4de = against_file("p4de_2node_efa");
  CHECK(p4de.all.size() == 29);
  CHECK(validation::median(p4de.all) <= 0.19);
}

TEST_CASE("validation: p5 on 2-32 nodes with the catalog's defaults and aws-ofi-nccl's tuner", "[validation][nccl]") {
  std::map<int, std::map<int64_t, double>> measured;  // nodes -> bytes -> us (the faster column)
  for (const auto& f : validation::csv_rows(kValidation + "p5_nodes_efa/measured/nccl_all_reduce.csv")) {
    REQUIRE(f.size() == 9);
    const int64_t bytes = std::stoll(f[2]) << 20;
    const double algbw = std::max(std::stod(f[5]), std::stod(f[7]));  // GB/s
    measured[std::stoi(f[0])][bytes] = bytes / algbw / 1e3;
  }
  REQUIRE(measured.size() == 5);
  std::vector<double> all;
  std::map<int, double> median_by_nodes;
  for (const auto& [nodes, rows] : measured) {
    models::ScenarioSpec spec = defaults_of("p5_nodes_efa/scenario.toml");
    spec.cluster.nodes = nodes;
    const auto pred = predicted_us(spec, rows.begin()->first, rows.rbegin()->first);
    std::vector<double> errs;
    for (const auto& [bytes, t] : rows) errs.push_back(std::fabs(pred.at(bytes) / t - 1));
    all.insert(all.end(), errs.begin(), errs.end());
    median_by_nodes[nodes] = validation::median(errs);
    std::printf("p5 x %2d nodes, 32 MiB - 8 GiB: median |error| %5.1f %%\n", nodes, median_by_nodes[nodes] * 100);
  }
  // As it stands: 2 nodes 4.2 %, 4 nodes 2.0 %, 8 and 16 nodes 9.3-9.4 % (Ring/LL128 at 1-2 GiB 9-12 %
  // fast; the rings' Simple plateaus within 1-4 %), 32 nodes 16 %: Tree/LL128
  // across 4-32 nodes (the plugin's pick up to 36-256 MiB) runs 13-33 % fast with the tree's CTA
  // split; NVLSTree with the plugin's 512 KiB chunks on 32 nodes 11-16 % fast at 512 MiB-1 GiB (29-41 %
  // with NCCL's own 64 KiB), on 2 nodes 4-5 % slow from 512 MiB (1-4 % fast with 128 KiB).
  CHECK(all.size() == 45);
  CHECK(validation::median(all) <= 0.11);
  CHECK(median_by_nodes[2] <= 0.05);
  CHECK(median_by_nodes[4] <= 0.03);
  CHECK(median_by_nodes[8] <= 0.10);
  CHECK(median_by_nodes[16] <= 0.10);
  CHECK(median_by_nodes[32] <= 0.17);
}

TEST_CASE("validation: p6-b200 and p6-b300 over EFA v4, public bus bandwidths", "[validation][nccl]") {
  // scenarios/validation/p6_efa/measured/points.csv (awsome-distributed-ai compute-test.md): EFA v4's
  // efficiency is the 4 x p6-b200 ring plateau (377 of 400 GB/s); 128 MiB - 1 GiB and 2 x p6-b300
  // check. As it stands: p6-b200 +11, -6, +4, +1, +0 % (time), p6-b300 -11, +0 %.
  std::vector<double> errs;
  for (const auto& row : validation::csv_rows(kValidation + "p6_efa/measured/points.csv")) {
    REQUIRE(row.size() == 4);
    const std::string &inst = row[0], &nodes = row[1], &size = row[2], &busbw = row[3];
    const std::string file = inst == "p6-b200.48xlarge" ? "p6_efa/b200_nodes.toml" : "p6_efa/b300_nodes.toml";
    const int64_t bytes = std::stoll(size);
    const int n = 8 * std::stoi(nodes);
    const double t_meas = bytes * 2.0 * (n - 1) / n / (std::stod(busbw) * 1e3);
    const double t = predicted_us(defaults_of(file), bytes, bytes).at(bytes);
    std::printf("%s x %s, %lld B: %.1f us predicted, %.1f measured\n", nodes.c_str(), inst.c_str(),
                static_cast<long long>(bytes), t, t_meas);
    errs.push_back(t / t_meas - 1);
    CHECK(std::fabs(t / t_meas - 1) < 0.15);
  }
  REQUIRE(errs.size() == 7);
  for (double& e : errs) e = std::fabs(e);
  CHECK(validation::median(errs) < 0.06);
}

TEST_CASE("validation: p5 all-to-all on 4 and 8 nodes, public bus bandwidths", "[validation][nccl]") {
  // scenarios/validation/p5_nodes_efa/measured/alltoall_points.csv (awsome-distributed-ai's
  // expert-parallelism comparison): 64 MiB and the sweep's peak (at 8 GiB). Nothing is fitted on
  // them. As it stands: 64 MiB 19 % and 17 % fast, the peak -6 % and +2 %.
  int rows = 0;
  for (const auto& row : validation::csv_rows(kValidation + "p5_nodes_efa/measured/alltoall_points.csv")) {
    REQUIRE(row.size() == 3);
    const std::string &nodes = row[0], &size = row[1], &busbw = row[2];
    auto spec = defaults_of("p5_nodes_efa/alltoall.toml");
    spec.cluster.nodes = std::stoi(nodes);
    models::calibrate::NcclTestsOptions o;
    o.op = models::nccl::CollOp::AllToAll;
    o.min_bytes = o.max_bytes = std::stoll(size);
    const auto r = models::calibrate::run_nccl_tests(spec, o).rows;
    REQUIRE(r.size() == 1);
    const int n = 8 * spec.cluster.nodes;
    const double t_meas = o.min_bytes * double(n - 1) / n / (std::stod(busbw) * 1e3);
    std::printf("%s x p5 all-to-all, %s B: %.1f us predicted, %.1f measured\n", nodes.c_str(), size.c_str(),
                r[0].best_time_us(), t_meas);
    CHECK(std::fabs(r[0].best_time_us() / t_meas - 1) < 0.22);
    ++rows;
  }
  CHECK(rows == 4);
}
