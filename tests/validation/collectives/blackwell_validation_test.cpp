// Blackwell validation against public all-reduce measurements (docs/hardware.md "Blackwell
// accuracy"), with the defaults a user gets: no profile, nothing fitted on these files. The NVLink
// rates are the H200's carried by the per-generation rule (comm_plan/link_params.hpp
// nvlink_channel_bandwidth_for), chosen from NCCL's tables before any of these runs was simulated:
// every point below is out of sample for it.
// Per size the measured time is the faster of out-of-place and in-place (bus bandwidth: the larger).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "models/calibrate/nccl_tests.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "scenarios/load/loader.hpp"

// Bounds: the accuracy as it stands (8 x B200 is in sample since Blackwell's NVLS efficiency, 0.72, was
// read off it: LinkParams::nvls_port_work) (docs/hardware.md "Blackwell accuracy"), asserted so that a
// change shows. One tray 2.2 % median (-7.1, -1.9, +2.2 %); one rack 8.8 % median (-21 % at 512 MiB
// to +0.2 % at 4 GiB and -9 % at 8 GiB; 14.9 % before NVLS's fixed time per chunk on NCCL's 64 KiB
// chunks up to 6 GiB, nvls.chunk_latency; 17.7 % before NVLS's latency and fill); two racks 13.6 % median, -15.6 ..
// -8.7 % (43.9 %, -58 .. -36 % before NVLSTree's NVLink leg ran at the switch's rate on NCCL's 32 heads and paid its
// loops' fill: nvls_tree.cpp); 8 x B200 -8 % (766 vs 830+ GB/s); 2 x 8 B200 -3.2 % (669 vs 690 GB/s; -2.4 %, 674,
// before NVLSTree's fill).
#ifndef BOUND_TRAY
constexpr double BOUND_TRAY = 0.05, BOUND_1RACK = 0.10, BOUND_2RACKS = 0.15, BOUND_B200 = 0.10, BOUND_B200X2 = 0.05;
#endif

namespace {
const std::string kDir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/";

models::calibrate::NcclTestsResult predict(const std::string& scenario, int64_t min_bytes, int64_t max_bytes) {
  const auto loaded = scenarios::load_scenario(kDir + scenario);
  models::calibrate::NcclTestsOptions o;
  o.op = models::nccl::CollOp::AllReduce;
  o.min_bytes = min_bytes;
  o.max_bytes = max_bytes;
  return models::calibrate::run_nccl_tests(loaded.spec, o);
}

double busbw_at(const models::calibrate::NcclTestsResult& r, int64_t size) {
  for (const auto& row : r.rows)
    if (row.size == size) return std::max(row.busbw_gbs, row.ip_busbw_gbs);
  FAIL("size " << size << " not predicted");
  return 0;
}

// |error| of the predicted time per size against a measured nccl-tests table (time ~ 1/busbw).
std::vector<double> errors_vs_table(const std::string& scenario, const std::string& table) {
  const auto runs = models::readers::parse_nccl_tests_files({kDir + table});
  REQUIRE(runs.size() == 1);
  const auto p = predict(scenario, runs[0].rows.front().size_bytes, runs[0].rows.back().size_bytes);
  std::vector<double> errs;
  for (const auto& m : runs[0].rows) {
    const double meas = m.ip ? std::min(m.oop.time_us, m.ip->time_us) : m.oop.time_us;
    auto it = std::find_if(p.rows.begin(), p.rows.end(), [&](const auto& r) { return r.size == m.size_bytes; });
    REQUIRE(it != p.rows.end());
    errs.push_back(it->best_time_us() / meas - 1);
    std::printf("%-28s %12lld B  measured %9.1f us  predicted %9.1f us (%s/%s, %d ch)  %+6.1f %%\n", scenario.c_str(),
                static_cast<long long>(m.size_bytes), meas, it->best_time_us(), it->algo.c_str(), it->proto.c_str(),
                it->channels, 100 * errs.back());
  }
  return errs;
}

double median_abs(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}
}  // namespace

TEST_CASE("validation: GB200, one tray's 4 GPUs (Azure ND GB200 v6), all-reduce plateau", "[validation][nccl]") {
  // measured/azure_nd_gb200_v6_4gpu.csv: in-place busbw 593.5 / 646.9 / 679.6 GB/s at 256 MiB / 1 GiB / 8 GiB.
  const auto p = predict("gb200_nvl72/tray_4gpu.toml", int64_t{256} << 20, int64_t{8} << 30);
  const struct {
    int64_t size;
    double measured;
  } points[] = {{int64_t{256} << 20, 593.53}, {int64_t{1} << 30, 646.87}, {int64_t{8} << 30, 679.61}};
  std::vector<double> errs;
  for (const auto& pt : points) {
    const double e = pt.measured / busbw_at(p, pt.size) - 1;  // time error
    std::printf("gb200 tray 4 GPUs %12lld B  busbw measured %6.1f predicted %6.1f  %+6.1f %%\n",
                static_cast<long long>(pt.size), pt.measured, busbw_at(p, pt.size), 100 * e);
    errs.push_back(e);
  }
  CHECK(median_abs(errs) <= BOUND_TRAY);
}

TEST_CASE("validation: GB200 NVL72, one rack of 72 GPUs over MNNVL, 512 MiB - 8 GiB", "[validation][nccl]") {
  const auto e = errors_vs_table("gb200_nvl72/scenario.toml", "gb200_nvl72/measured/all_reduce_1rack.txt");
  CHECK(e.size() == 5);
  CHECK(median_abs(e) <= BOUND_1RACK);
}

TEST_CASE("validation: GB200 NVL72, two racks (144 GPUs), held out", "[validation][nccl]") {
  const auto e = errors_vs_table("gb200_nvl72/two_racks.toml", "gb200_nvl72/measured/all_reduce_2racks.txt");
  CHECK(e.size() == 6);
  CHECK(median_abs(e) <= BOUND_2RACKS);
}

TEST_CASE("validation: GB200 NVL72 twenty racks (1440 GPUs): the model is fast by a known margin",
          "[validation][nccl]") {
  // Not a pass: the known offset (docs/hardware.md), asserted so that a change shows. The measured
  // run moves half the bus bandwidth of the two racks' at 16 GiB (406 against 810 GB/s); the model
  // keeps the two racks' pace, so every size is fast: -59.6 % at 512 MiB to -55.5 % at 16 GiB.
  const auto e = errors_vs_table("gb200_nvl72/twenty_racks.toml", "gb200_nvl72/measured/all_reduce_20racks.txt");
  REQUIRE(e.size() == 6);
  for (double x : e) {
    CHECK(x < -0.50);  // -55.5 % at 16 GiB
    CHECK(x > -0.65);  // -59.6 % at 512 MiB
  }
}

TEST_CASE("validation: 8 x B200 in one machine (NVLS's Blackwell efficiency read off) and 2 x 8 over InfiniBand",
          "[validation][nccl]") {
  // measured/points.csv: 830+ GB/s (NVIDIA/nccl#1807) and 690.07 GB/s at 8 GiB (coreweave/nccl-tests#92).
  const double one = busbw_at(predict("b200x8/scenario.toml", int64_t{8} << 30, int64_t{8} << 30), int64_t{8} << 30);
  const double two = busbw_at(predict("b200x8/two_nodes.toml", int64_t{8} << 30, int64_t{8} << 30), int64_t{8} << 30);
  std::printf("b200 x8 busbw predicted %.1f (measured 830+), 2 x 8 predicted %.1f (measured 690.07)\n", one, two);
  CHECK(std::fabs(830 / one - 1) <= BOUND_B200);
  CHECK(std::fabs(690.07 / two - 1) <= BOUND_B200X2);
}

TEST_CASE("validation: Blackwell's NVLS plateau on 8-64 GPUs does not depend on the heads (five systems, held out)",
          "[validation][nccl]") {
  // Algorithm bandwidth of a large NVLS all-reduce, measured (scenarios/validation/blackwell_nvls/):
  // 8 GPUs (H = 8 heads) on an HGX B300 (OCI, 8 GiB) and two GCP A4X trays of one NVL72 domain
  // (16 GiB); 32 and 64 GPUs (H = 32) of that domain. The port law ((1 + 1/H) S per port at eta) made
  // 8 GPUs 9 % slower than 32-64; the measurements differ by 1-4 %, as the switch's law (S per GPU at
  // eta: LinkParams::nvls_port_work) has it.
  const auto algbw = [](const std::string& scenario, int vms, int64_t size) {
    auto loaded = scenarios::load_scenario(kDir + scenario);
    if (vms > 0) loaded.spec.placement.pods_per_node = vms;
    models::calibrate::NcclTestsOptions o;
    o.op = models::nccl::CollOp::AllReduce;
    o.min_bytes = o.max_bytes = size;
    const auto r = models::calibrate::run_nccl_tests(loaded.spec, o);
    REQUIRE(r.rows.size() == 1);
    return static_cast<double>(size) / r.rows[0].best_time_us() / 1e3;  // GB/s
  };
  const int64_t G = int64_t{1} << 30;
  const struct {
    const char* what;
    const char* scenario;
    int vms;
    int64_t size;
    double measured;  // GB/s of algorithm bandwidth
  } points[] = {{"HGX B300, 8 GPUs", "blackwell_nvls/b300_1node.toml", 0, 8 * G, 477.05},
                {"A4X, 8 GPUs", "blackwell_nvls/a4x_domain.toml", 2, 16 * G, 839.54 / 1.75},
                {"A4X, 32 GPUs", "blackwell_nvls/a4x_domain.toml", 8, 16 * G, 908.80 / (2 * 31.0 / 32)},
                {"A4X, 64 GPUs", "blackwell_nvls/a4x_domain.toml", 16, 16 * G, 909.96 / (2 * 63.0 / 64)}};
  for (const auto& pt : points) {
    const double p = algbw(pt.scenario, pt.vms, pt.size);
    std::printf("%-18s algbw measured %6.1f predicted %6.1f GB/s  %+5.1f %%\n", pt.what, pt.measured, p,
                100 * (pt.measured / p - 1));
    CHECK(std::fabs(pt.measured / p - 1) < 0.035);  // time error: -2.6 .. +0.4 %
  }
}

TEST_CASE(
    "validation: an NVL72 rack's NVLink step (read off two GB200 racks' smallest sizes, two GB300 trays check it)",
    "[validation][nccl]") {
  // models/hw/instance_build.hpp kRackNvlinkStepExtra: 0.68 us more per NVLink step than NCCL's
  // HGX table, read off OCI's two-rack GB200-v3 curve at 8-64 B (NVLS off: Tree/LL, 126 NVLink steps
  // per call); NCCL's 0.6 us made those sizes 46 % fast. In sample there; held out: the curve's 128 B
  // - 512 KiB and two GB300 trays' Ring/LL at 512 KiB - 2 MiB (8 ranks, 14 steps: 36-27 % fast before).
  const auto v3 =
      errors_vs_table("blackwell_nvls/oci_gb200_v3_2racks.toml", "blackwell_nvls/measured/oci_gb200_v3_2racks.txt");
  REQUIRE(v3.size() == 33);
  // 8 B - 512 KiB: -3.1 .. +13.9 % (2-128 KiB carry 9-14 %: the model's Tree/LL steps grow with the
  // data from 1 KiB where the measured times stay flat to 128 KiB), median 2.3 %.
  const std::vector<double> small(v3.begin(), v3.begin() + 17);
  for (double e : small) CHECK(std::fabs(e) < 0.15);
  CHECK(median_abs(small) < 0.04);
  auto two = scenarios::load_scenario(kDir + "gb300_oci/scenario.toml");
  two.spec.placement.pods_per_node = 2;
  models::calibrate::NcclTestsOptions o;
  o.op = models::nccl::CollOp::AllReduce;
  o.min_bytes = 512 << 10;
  o.max_bytes = 2 << 20;
  const auto pred = models::calibrate::run_nccl_tests(two.spec, o);
  const double measured[] = {29.6, 29.9, 34.8};  // in place, gb300_oci/measured/all_reduce_2hosts.txt
  REQUIRE(pred.rows.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    std::printf("gb300 two trays %8lld B  measured %5.1f us  predicted %5.1f us\n",
                static_cast<long long>(pred.rows[i].size), measured[i], pred.rows[i].best_time_us());
    CHECK(std::fabs(pred.rows[i].best_time_us() / measured[i] - 1) < 0.12);  // -10.4, -2.8, -1.4 %
  }
}
