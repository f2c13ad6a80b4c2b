// GCP A3 Mega (8 x H100, 8 x 200 Gb/s GPUDirect-TCPXO) on two nodes: four public curves with the
// catalog's defaults (scenarios/validation/gcp_2node/measured: each file's header says whose and how).
//   - Google's all_gather_perf (plugin v1.0.15, NCCL 2.28.7): TCPXO's LL128 step is read off its
//     256 B - 16 KiB and its Simple efficiency off 4-8 GiB (in sample there); the rest checks.
//   - dstack's and MG-Cafe's all_gather (the same machines and plugin profile): nothing read off.
//   - An all_reduce of plugin v1.0.3, whose profile ran Simple only (the scenario says so): nothing
//     read off; its 8 B - 64 KiB imply a Simple step ~5 us longer than the assumed LL128 + 1.2 us.
// The bounds are the accuracy as it stands, asserted so that a change shows. Medium sizes of the
// all_gather (64 KiB - 16 MiB) are 16-32 % fast: Google's own tuner plugin (closed source) chooses
// there, the model has NCCL's. Last, GCP A3 High over GPUDirect-TCPX: its step floor read off one
// curve, checked on the other.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "scenarios/load/loader.hpp"
#include "tests/validation/collectives/curve_files.hpp"
#include "tests/validation/jsonl_rows.hpp"

namespace {
const std::string kGcp = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/gcp_2node/";

struct TcpxoErrors {
  std::vector<double> all, small, large;  // |time error|: every size, <= 16 KiB, >= 64 MiB
};

TcpxoErrors sorted(const std::map<int64_t, double>& errs, const char* name) {
  TcpxoErrors e;
  for (const auto& [bytes, err] : errs) {
    e.all.push_back(std::fabs(err));
    if (bytes <= (16 << 10)) e.small.push_back(std::fabs(err));
    if (bytes >= (int64_t{64} << 20)) e.large.push_back(std::fabs(err));
  }
  std::printf("%-28s median |error| %5.1f %% (%zu sizes)\n", name, validation::median(e.all) * 100, e.all.size());
  return e;
}

TcpxoErrors curve(const char* scenario, const char* file, models::nccl::CollOp op) {
  return sorted(
      validation::nccl_tests_errors(scenarios::load_scenario(kGcp + scenario).spec, kGcp + "measured/" + file, op),
      file);
}
}  // namespace

TEST_CASE("validation: two GCP A3 Mega nodes over GPUDirect-TCPXO, four public curves with the catalog's defaults",
          "[validation][nccl]") {
  using models::nccl::CollOp;
  const TcpxoErrors google = curve("a3_mega_allgather.toml", "a3_mega_allgather_google.txt", CollOp::AllGather);
  const TcpxoErrors dstack = curve("a3_mega_allgather.toml", "a3_mega_allgather_dstack.txt", CollOp::AllGather);
  const TcpxoErrors v103 = curve("a3_mega.toml", "a3_mega.txt", CollOp::AllReduce);
  CHECK(validation::median(google.small) < 0.02);  // in sample: the LL128 step's source
  CHECK(validation::median(google.large) < 0.03);  // in sample at 4-8 GiB: the efficiency's source
  // As it stands: 3.5, 3.8 and 8.2 % (the last was 65 % with TCPXO as InfiniBand RDMA).
  CHECK(validation::median(google.all) < 0.045);
  CHECK(validation::median(dstack.all) < 0.05);
  CHECK(validation::median(dstack.large) < 0.03);
  CHECK(validation::median(v103.all) < 0.09);
  CHECK(validation::median(v103.small) < 0.10);  // 8.4 %: all fast, the Simple step assumed
  CHECK(validation::median(v103.large) < 0.03);

  // MG-Cafe's run quotes 13 sizes (time in us).
  const models::ScenarioSpec spec = scenarios::load_scenario(kGcp + "a3_mega_allgather.toml").spec;
  std::map<int64_t, double> errs;
  for (const auto& row : validation::csv_rows(kGcp + "measured/a3_mega_allgather_mgcafe.csv")) {
    REQUIRE(row.size() == 3);
    models::calibrate::NcclTestsOptions o;
    o.op = CollOp::AllGather;
    o.min_bytes = o.max_bytes = std::stoll(row[0]);
    errs[o.min_bytes] = models::calibrate::run_nccl_tests(spec, o).rows.at(0).best_time_us() / std::stod(row[1]) - 1;
  }
  const TcpxoErrors mgcafe = sorted(errs, "a3_mega_allgather_mgcafe.csv");
  CHECK(mgcafe.all.size() == 13);
  CHECK(validation::median(mgcafe.all) < 0.05);  // 4.5 %
  CHECK(validation::median(mgcafe.large) < 0.03);
}

TEST_CASE("validation: one GCP A3 Mega VM runs NVLS (MG-Cafe's all_reduce -g 8, seven sizes)", "[validation][nccl]") {
  // The catalog's a3-megagpu-8g has NVLS (the plugin's profile enables it from v1.0.12 on); with
  // rings alone the model's 2 GiB was 354 GB/s of bus bandwidth against 471 measured.
  const models::ScenarioSpec spec = scenarios::load_scenario(kGcp + "a3_mega_1vm.toml").spec;
  std::map<int64_t, double> errs;
  std::string algo_at_2g;
  for (const auto& row : validation::csv_rows(kGcp + "measured/a3_mega_1vm_mgcafe.csv")) {
    REQUIRE(row.size() == 3);
    models::calibrate::NcclTestsOptions o;
    o.op = models::nccl::CollOp::AllReduce;
    o.min_bytes = o.max_bytes = std::stoll(row[0]);
    const auto r = models::calibrate::run_nccl_tests(spec, o).rows.at(0);
    errs[o.min_bytes] = r.best_time_us() / std::stod(row[1]) - 1;
    if (o.min_bytes == (int64_t{2} << 30)) algo_at_2g = r.algo;
  }
  const TcpxoErrors one_vm = sorted(errs, "a3_mega_1vm_mgcafe.csv");
  CHECK(one_vm.all.size() == 7);
  CHECK(algo_at_2g == "NVLS");
  CHECK(validation::median(one_vm.all) < 0.05);    // 4.5 %
  CHECK(validation::median(one_vm.large) < 0.05);  // 64 MiB up: 1.6-4.6 %
}

TEST_CASE("validation: two GCP A3 High nodes over GPUDirect-TCPX, the step floor read off one curve holds another",
          "[validation][nccl]") {
  // The catalog's a3-highgpu-8g: Google's TCPX environment (Ring, Simple) and 61 us per ring step
  // in the plugin (models/hw/instance_clouds.cpp kTcpxStepFloor), read off the
  // all_gather's 1-16 MiB. The all_reduce (30 steps to the all_gather's 15, another chart, no
  // nanosleep set) is held out. Without the floor they were 69 and 47 % fast, 86-91 % at 1 MiB.
  using models::nccl::CollOp;
  auto in = [](const std::map<int64_t, double>& errs, int64_t lo, int64_t hi) {
    std::vector<double> v;
    for (const auto& [bytes, err] : errs)
      if (bytes >= lo && bytes <= hi) v.push_back(std::fabs(err));
    return v;
  };
  constexpr int64_t kMiB = int64_t{1} << 20;
  const auto gather = validation::nccl_tests_errors(scenarios::load_scenario(kGcp + "a3_high_allgather.toml").spec,
                                                    kGcp + "measured/a3_high_allgather.txt", CollOp::AllGather);
  const auto reduce = validation::nccl_tests_errors(scenarios::load_scenario(kGcp + "a3_high_allreduce.toml").spec,
                                                    kGcp + "measured/a3_high_allreduce_aiinfra.txt", CollOp::AllReduce);
  REQUIRE(gather.size() == 10);
  REQUIRE(reduce.size() == 14);
  CHECK(validation::median(in(gather, kMiB, 16 * kMiB)) < 0.04);      // in sample: 3.3 %
  CHECK(validation::median(in(gather, 0, int64_t{1} << 40)) < 0.07);  // 5.7 %
  // Held out: 1-16 MiB, where the floor binds, 6-14 % slow (57 us per step there, not 61).
  const std::vector<double> floor_bound = in(reduce, kMiB, 16 * kMiB);
  CHECK(validation::median(floor_bound) < 0.15);
  for (const auto& [bytes, err] : reduce)
    if (bytes <= 16 * kMiB) CHECK(err > 0);  // slow, not fast: the floor is not too small
  // From 1 GiB a ring step carries several messages and the rate is RDMA's at 0.9 of 4 x 200 Gb/s.
  CHECK(validation::median(in(reduce, int64_t{1} << 30, int64_t{1} << 40)) < 0.05);  // 1.1-4.6 %
  // As it stands: a step of 0.25-3 MiB per channel waits less than the floor plus its transfer
  // (64-256 MiB: 27-42 % slow); over all sizes 12.5 %.
  CHECK(validation::median(in(reduce, 0, int64_t{1} << 40)) < 0.14);
}
