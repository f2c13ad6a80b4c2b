// Public curves added to check the defaults again, nothing read off them (each file's header says
// whose and how):
//   - HGX H100 over NDR InfiniBand at 2, 4 and 8 nodes, another user's cluster in nccl-tests#309
//     (scenarios/validation/ib_nodes_h100): its 8-node ring plateau is 320 GB/s of bus bandwidth
//     (0.80 of the NICs) where the model's InfiniBand efficiency gives 356, and at 1-64 MiB NCCL's
//     algorithm crossovers fall elsewhere than the model's (Tree/LL128 -> NVLSTree at 8-16 MiB);
//   - two of Google's GKE all_gather runs on 2 x GCP A4 (B200, RoCE), which disagree with each other
//     by 50 % at 1 KiB (54 against 36 us) and 12 % at 8 GiB;
//   - Oracle's GB300 NVL72 racks (scenarios/validation/gb300_oci): one host, two hosts, one and two
//     racks.
// The bounds are the accuracy as it stands, asserted so that a change shows.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "models/hw/instance_build.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/validation/collectives/curve_files.hpp"
#include "tests/validation/jsonl_rows.hpp"

namespace {
const std::string kVal = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/";

// A shipped scenario with its node count set (one file, several node counts of one machine).
models::ScenarioSpec at_nodes(const std::string& scenario, int nodes) {
  models::ScenarioSpec s = scenarios::load_scenario(kVal + scenario).spec;
  s.cluster.nodes = nodes;
  return s;
}

double median_error(models::ScenarioSpec spec, const std::string& file, models::nccl::CollOp op) {
  std::vector<double> all;
  for (const auto& [bytes, err] : validation::nccl_tests_errors(spec, kVal + file, op)) all.push_back(std::fabs(err));
  std::printf("%-44s median |error| %5.1f %% (%zu sizes)\n", file.c_str(), validation::median(all) * 100, all.size());
  return validation::median(all);
}
}  // namespace

TEST_CASE("validation: HGX H100 over InfiniBand at 2, 4 and 8 nodes, another cluster's curves, defaults",
          "[validation][nccl]") {
  auto nodes = [](int n) { return at_nodes("ib_nodes_h100/scenario.toml", n); };
  using models::nccl::CollOp;
  CHECK(median_error(nodes(2), "ib_nodes_h100/measured/nodes2.txt", CollOp::AllReduce) < 0.06);  // 4.8 %
  CHECK(median_error(nodes(4), "ib_nodes_h100/measured/nodes4.txt", CollOp::AllReduce) < 0.16);  // 14.6 %
  CHECK(median_error(nodes(8), "ib_nodes_h100/measured/nodes8.txt", CollOp::AllReduce) < 0.13);  // 11.5 %
}

TEST_CASE("validation: two of Google's all_gather runs on 2 x GCP A4, defaults", "[validation][nccl]") {
  const models::ScenarioSpec a4 = scenarios::load_scenario(kVal + "gcp_2node/a4.toml").spec;
  using models::nccl::CollOp;
  CHECK(median_error(a4, "gcp_2node/measured/a4_allgather_gke_a.txt", CollOp::AllGather) < 0.29);  // 27.3 %
  CHECK(median_error(a4, "gcp_2node/measured/a4_allgather_gke_b.txt", CollOp::AllGather) < 0.11);  // 9.7 %
}

// A what-if, not the defaults: both runs step from ~47 to ~80 us at 1 MiB and then climb as
// Ring/Simple does, where NCCL's own tuner runs Ring/LL128 (Google's gIB images load a tuner of their
// own, whose file is not public). NCCL's example tuner with that choice
// (gcp_2node/a4_allgather_simple_tuner.csv) shows the miss at 1-64 MiB is the protocol.
TEST_CASE("validation: Google's two A4 all_gather runs with a tuner that picks Ring/Simple from 1 MiB (what-if)",
          "[validation][nccl]") {
  const models::ScenarioSpec a4 =
      scenarios::load_scenario(kVal + "gcp_2node/a4.toml", {"nccl.env.NCCL_TUNER_PLUGIN=\"example\"",
                                                            "nccl.env.NCCL_TUNER_CONFIG_FILE=\"" + kVal +
                                                                "gcp_2node/a4_allgather_simple_tuner.csv\""})
          .spec;
  const auto mid_sizes = [&](const std::string& file) {
    std::vector<double> mid;
    for (const auto& [bytes, err] : validation::nccl_tests_errors(a4, kVal + file, models::nccl::CollOp::AllGather))
      if (bytes >= (1 << 20) && bytes < (64 << 20)) mid.push_back(std::fabs(err));
    return validation::median(mid);
  };
  CHECK(mid_sizes("gcp_2node/measured/a4_allgather_gke_a.txt") < 0.05);  // 3.8 % (24.2 % with NCCL's own choice)
  CHECK(mid_sizes("gcp_2node/measured/a4_allgather_gke_b.txt") < 0.06);  // 4.5 % (31.3 %)
  using models::nccl::CollOp;
  CHECK(median_error(a4, "gcp_2node/measured/a4_allgather_gke_a.txt", CollOp::AllGather) < 0.11);   // 9.9 % (27.3)
  CHECK(median_error(a4, "gcp_2node/measured/a4_allgather_gke_b.txt", CollOp::AllGather) < 0.095);  // 8.4 % (9.7)
}

TEST_CASE("validation: OCI GB300 NVL72 racks (Oracle's runs, NCCL 2.28.7), defaults", "[validation][nccl]") {
  // One rack of 16 hosts (64 GPUs, NVLS): 5.5 % (26.2 % before NVLS's fixed time per chunk,
  // nvls.chunk_latency); within 8 % from 8 MiB but at 512 MiB (13 %), and 38-51 % fast at 512 KiB -
  // 2 MiB, where its NVLS runs at 66 us and the model charges 32-44 us. Two hosts of the rack (8
  // GPUs): 2.1 % (11.4 % before). Two racks: a flat ~490 us
  // from 512 KiB to 16 MiB (NVLSTree's in the model: 46-166 us) and 20-24 % fast from 1 GiB.
  auto racks = [](int n) { return at_nodes("gb300_oci/scenario.toml", n); };
  using models::nccl::CollOp;
  CHECK(median_error(racks(1), "gb300_oci/measured/all_reduce_1rack.txt", CollOp::AllReduce) < 0.07);  // 5.5 %
  models::ScenarioSpec hosts = at_nodes("gb300_oci/scenario.toml", 1);
  hosts.placement.pods_per_node = 2;
  CHECK(median_error(hosts, "gb300_oci/measured/all_reduce_2hosts.txt", CollOp::AllReduce) < 0.03);  // 2.1 %
  // 40.0 % since the GPUs reach their ConnectX-8 at PCIe Gen6 (36.9 % when Grace's Gen5 held them).
  CHECK(median_error(racks(2), "gb300_oci/measured/all_reduce_2racks.txt", CollOp::AllReduce) < 0.41);  // 40.0 %
  // All-to-all, 5.3 % (27.4 % before point-to-point's LL limit, waves and H200's per-CTA rates:
  // point_to_point.cpp): from 64 MiB within 7 % (the chunk fill and two waves), at 32 MiB one CTA's
  // LL rate within 12 %; at 512 KiB - 4 MiB 26-53 % fast (~17 us per call not modelled).
  CHECK(median_error(racks(1), "gb300_oci/measured/alltoall_1rack.txt", CollOp::AllToAll) < 0.07);
  const auto a2a =
      validation::nccl_tests_errors(racks(1), kVal + "gb300_oci/measured/alltoall_1rack.txt", CollOp::AllToAll);
  for (const auto& [bytes, err] : a2a)
    if (bytes >= int64_t{64} << 20) CHECK(std::fabs(err) < 0.07);
  CHECK(std::fabs(a2a.at(int64_t{32} << 20)) < 0.12);
  const auto big = validation::nccl_tests_errors(racks(1), kVal + "gb300_oci/measured/all_reduce_1rack.txt");
  CHECK(std::fabs(big.at(int64_t{8} << 30)) < 0.03);
  CHECK(std::fabs(big.at(int64_t{16} << 30)) < 0.03);
}

TEST_CASE(
    "validation: NCCL's host cost per point-to-point operation (one H200's host) against the GB300 rack's "
    "all-to-all excess",
    "[validation][nccl]") {
  // scenarios/validation/h200x1/measured/nccl_p2p_issue_cost.jsonl (bench/device/comm/
  // nccl_p2p_issue_cost.cu): groups of k sends and k receives on one GPU, host time inside the calls
  // per group. From k = 1 to 63 (2 to 126 operations) it grows 0.21-0.27 us per operation, with the
  // GPU behind the host (the host never waits for it there).
  const auto rows = validation::jsonl_rows(kVal + "h200x1/measured/nccl_p2p_issue_cost.jsonl", "p2p");
  std::vector<double> slope;
  for (int round = 0; round < 3; ++round)
    for (int64_t bytes : {int64_t{1024}, int64_t{65536}}) {
      std::map<int, double> api;
      for (const auto& r : rows)
        if (r.at("round") == round && r.at("bytes") == bytes) {
          api[r.at("k").get<int>()] = r.at("api_us");
          if (r.at("k").get<int>() <= 63) CHECK(r.at("api_us").get<double>() < r.at("gpu_us").get<double>());
        }
      REQUIRE(api.count(1) == 1);
      REQUIRE(api.count(63) == 1);
      slope.push_back((api[63] - api[1]) / (126 - 2));
    }
  const double per_op_us = validation::median(slope);
  std::printf("NCCL host cost per point-to-point operation: %.3f us (median of %zu)\n", per_op_us, slope.size());
  CHECK(per_op_us > 0.2);
  CHECK(per_op_us < 0.3);
  // NCCL 2.28 turns ncclAlltoAll (what nccl-tests calls from 2.28 on) into 2 n such operations
  // (src/enqueue.cc taskAppend): 128 per call on the rack's 64 ranks. At 512 KiB - 2 MiB the rack's
  // all-to-all takes a flat ~31 us per call, a host-bound loop's signature, where the model has 15-20
  // (its Grace loop, kGraceLaunchOverhead 14 us, and the device). 14 us plus 128 operations lies
  // there at a third to all of this host's rate per operation (0.13 us would meet it; Grace's own
  // rate is not measured, so the model does not carry it).
  const auto runs = models::readers::parse_nccl_tests_files({kVal + "gb300_oci/measured/alltoall_1rack.txt"});
  REQUIRE(runs.size() == 1);
  std::vector<double> flat;
  for (const auto& m : runs[0].rows)
    if (m.size_bytes >= (512 << 10) && m.size_bytes <= (2 << 20))
      flat.push_back(m.ip ? std::min(m.oop.time_us, m.ip->time_us) : m.oop.time_us);
  REQUIRE(flat.size() == 3);
  const double lo = *std::min_element(flat.begin(), flat.end()), hi = *std::max_element(flat.begin(), flat.end());
  CHECK(hi / lo < 1.06);
  const double grace_loop_us = models::hw::detail::kGraceLaunchOverhead * 1e6;
  CHECK(lo > grace_loop_us + 128 * per_op_us / 3);
  CHECK(hi < grace_loop_us + 128 * per_op_us);
}

TEST_CASE("validation: GB200 NVL4 and NVL8 partitions on three racks over InfiniBand (nccl#1801), defaults",
          "[validation][nccl]") {
  // 16 GiB, NVLS off, Ring (NCCL's choice) and forced Tree. As measured, Tree beats Ring by ~20 %;
  // the model is 6-10 % slow on all four (the run's NICs reach 0.98 of 400 Gb/s on the ring, the
  // model's InfiniBand efficiency is 0.9).
  std::map<std::string, double> err, time;
  for (const auto& row : validation::csv_rows(kVal + "gb200_nvl72/measured/nvl_partitions_ib.csv")) {
    REQUIRE(row.size() == 4);
    const int gpus = std::stoi(row[0]);
    models::ScenarioSpec s = scenarios::load_scenario(kVal + "gb200_nvl_partitions.toml").spec;
    s.placement.pods_per_node = gpus / 4;
    s.nccl_env["NCCL_ALGO"] = row[1];
    models::calibrate::NcclTestsOptions o;
    o.op = models::nccl::CollOp::AllReduce;
    o.min_bytes = o.max_bytes = std::stoll(row[2]);
    const auto r = models::calibrate::run_nccl_tests(s, o).rows.at(0);
    CHECK(r.algo == row[1]);
    const int n = 3 * gpus;
    const double measured_us = static_cast<double>(o.min_bytes) * 2 * (n - 1) / n / (std::stod(row[3]) * 1e3);
    err[row[0] + row[1]] = r.best_time_us() / measured_us - 1;
    time[row[0] + row[1]] = r.best_time_us();
  }
  REQUIRE(err.size() == 4);
  for (const auto& [k, e] : err) {
    INFO(k);
    CHECK(e > 0);
    CHECK(e < 0.11);
  }
  CHECK(time["4Tree"] < time["4Ring"]);
  CHECK(time["8Tree"] < time["8Ring"]);
}

TEST_CASE("validation: a Grace host's issue cost per call (GB200 tray in sample, OCI GB300 host checks it)",
          "[validation][nccl]") {
  // models/hw/instance_build.hpp kGraceLaunchOverhead, 14 us, read off Azure's ND GB200 v6 tray
  // (-g 4) at 1-16 KiB, given the rack's NVLink steps (instance_build.hpp kRackNvlinkStepExtra);
  // Oracle's GB300 host runs 4 processes of one GPU each. With an x86 host's 25 us the OCI host's
  // 512 KiB and 1 MiB were 43 and 31 % slow.
  using models::nccl::CollOp;
  models::ScenarioSpec host = scenarios::load_scenario(kVal + "gb300_oci/scenario.toml").spec;
  host.placement.pods_per_node = 1;
  const auto errs = validation::nccl_tests_errors(host, kVal + "gb300_oci/measured/all_reduce_1host.txt");
  CHECK(std::fabs(errs.at(512 << 10)) < 0.04);                                                     // -1.7 %
  CHECK(std::fabs(errs.at(1 << 20)) < 0.04);                                                       // -2.1 %
  CHECK(median_error(host, "gb300_oci/measured/all_reduce_1host.txt", CollOp::AllReduce) < 0.04);  // 2.6 %
  models::ScenarioSpec two = host;
  two.placement.pods_per_node = 2;
  // 11.4 %: across two trays of the rack 4-64 MiB (NVLS) are 17-34 % fast and 128 MiB - 1 GiB 11-14 %;
  // from 2 GiB within 1 % (Blackwell's NVLS switch, LinkParams::nvls_port_work; the port law had it
  // 10 % slow there). The small sizes are the rack's NVLink steps' check (blackwell_validation_test).
  CHECK(median_error(two, "gb300_oci/measured/all_reduce_2hosts.txt", CollOp::AllReduce) < 0.12);
  const auto two_errs = validation::nccl_tests_errors(two, kVal + "gb300_oci/measured/all_reduce_2hosts.txt");
  for (const int64_t big : {int64_t{2} << 30, int64_t{16} << 30}) CHECK(std::fabs(two_errs.at(big)) < 0.02);
  // The tray's small sizes, in sample: within 3 % (55 % slow with the x86 host's cost).
  const models::ScenarioSpec tray = scenarios::load_scenario(kVal + "gb200_nvl72/tray_4gpu.toml").spec;
  models::calibrate::NcclTestsOptions o;
  o.min_bytes = 1 << 10;
  o.max_bytes = 16 << 10;
  std::vector<double> small;
  const auto rows = validation::csv_rows(kVal + "gb200_nvl72/measured/azure_nd_gb200_v6_4gpu.csv");
  const auto pred = models::calibrate::run_nccl_tests(tray, o).rows;
  for (const auto& r : pred)
    for (const auto& m : rows)
      if (std::stoll(m[0]) == r.size) {
        const double measured_us = static_cast<double>(r.size) * 1.5 / (std::stod(m[1]) * 1e3);
        small.push_back(std::fabs(r.best_time_us() / measured_us - 1));
      }
  REQUIRE(small.size() == 5);
  CHECK(validation::median(small) < 0.04);
}
