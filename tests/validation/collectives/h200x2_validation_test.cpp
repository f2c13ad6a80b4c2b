// Out-of-sample check on hardware the calibration never saw: 2 H200 GPUs (NV18) of another
// host, one process per GPU, NCCL 2.28 through PyTorch (scenarios/validation/h200x2/n2_*.json,
// measured with bench/device/comm/torch_nccl_bench.py on the device machine, 2026-11-22). Predictions use the
// 4xH200 profile. PyTorch's host loop is slower than nccl-tests', so only sizes >= 1 MiB (where
// the device time dominates) are held to a bound. Exception to "out of sample": the NVLink
// per-channel rate (20.6 GB/s) was read off the 1 GiB point of n2_ch4.json.
// Measured truth (docs/accuracy.md, scripts/h200x2_table.py): all_reduce median 13.6 %; all_gather 16.9 %,
// reduce_scatter 16.9 % (25.5 % before copy work per collective was counted: 2-rank gathers reach 269 GB/s where
// all-reduce reaches 330); in-place all_gather 22.6 % (modelled as fast as all-reduce, measured
// 12 % slower); broadcast 1.8 %; SHM 4.0 %; NCCL_MAX_NCHANNELS=4 0.9 %; NCCL_ALGO=Tree 16.3 %.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/calibrate/nccl_tests.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/validation/jsonl_rows.hpp"

namespace {
// op "all_gather_inplace" (bench/device/comm/torch_nccl_bench.py) is compared with the in-place column.
double median_error_at_least_1mib(const std::string& file, const std::string& op,
                                  const std::vector<std::string>& sets) {
  const bool in_place = op == "all_gather_inplace";
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x2/";
  std::ifstream in(dir + file);
  REQUIRE(in.good());
  const auto measured = nlohmann::json::parse(in);
  auto loaded = scenarios::load_scenario(dir + "n2.toml", sets);
  models::calibrate::NcclTestsOptions o;
  REQUIRE(models::nccl::parse_coll_op(in_place ? "all_gather" : op, o.op));
  o.min_bytes = 1 << 20;
  o.max_bytes = 1 << 30;
  const auto predicted = models::calibrate::run_nccl_tests(loaded.spec, o);
  std::vector<double> errs;
  for (const auto& row : measured["rows"]) {
    if (row["op"] != op || row["size"].get<int64_t>() < (1 << 20)) continue;
    auto it = std::find_if(predicted.rows.begin(), predicted.rows.end(),
                           [&](const auto& r) { return r.size == row["size"].get<int64_t>(); });
    REQUIRE(it != predicted.rows.end());
    errs.push_back(std::fabs((in_place ? it->ip_time_us : it->time_us) / row["time_us"].get<double>() - 1));
  }
  REQUIRE(errs.size() == 11);  // 1 MiB .. 1 GiB
  std::sort(errs.begin(), errs.end());
  return errs[errs.size() / 2];
}
}  // namespace

TEST_CASE("validation: 2 x H200 out of sample, >= 1 MiB", "[validation][nccl]") {
  CHECK(median_error_at_least_1mib("n2_default.json", "all_reduce", {}) <= 0.15);
  CHECK(median_error_at_least_1mib("n2_default.json", "broadcast", {}) <= 0.05);
  CHECK(median_error_at_least_1mib("n2_default.json", "all_gather", {}) <= 0.20);  // see the header
  CHECK(median_error_at_least_1mib("n2_default.json", "reduce_scatter", {}) <= 0.20);
  CHECK(median_error_at_least_1mib("n2_ag_inplace.json", "all_gather_inplace", {}) <= 0.30);
  CHECK(median_error_at_least_1mib("n2_shm.json", "all_reduce", {"nccl.env.NCCL_P2P_DISABLE=\"1\""}) <= 0.05);
  CHECK(median_error_at_least_1mib("n2_ch4.json", "all_reduce", {"nccl.env.NCCL_MAX_NCHANNELS=\"4\""}) <= 0.05);
  CHECK(median_error_at_least_1mib("n2_tree.json", "all_reduce", {"nccl.env.NCCL_ALGO=\"Tree\""}) <= 0.20);
}

TEST_CASE("validation: 2 x H200, all-reduce error grows with the channel count (known, not modelled)",
          "[validation][nccl]") {
  // docs/accuracy.md, the single-node rings at 1-64 MiB: per-channel speed falls as channels are
  // added (1 GiB: 20.6 GB/s per channel at 4 channels, 17.3 at 16, 13.7 at 24; the model adds
  // 20.6 GB/s channels up to the ports' cap). These bounds hold today's errors, so a change
  // that makes them worse shows; a model of the shared resource should tighten them.
  auto ch = [](int n) { return std::vector<std::string>{"nccl.env.NCCL_MAX_NCHANNELS=\"" + std::to_string(n) + "\""}; };
  const double e4 = median_error_at_least_1mib("n2_ch4.json", "all_reduce", ch(4));
  const double e8 = median_error_at_least_1mib("n2_ch8.json", "all_reduce", ch(8));
  const double e12 = median_error_at_least_1mib("n2_ch12.json", "all_reduce", ch(12));
  const double e16 = median_error_at_least_1mib("n2_ch16.json", "all_reduce", ch(16));
  CHECK(e4 <= 0.05);
  CHECK(e8 <= 0.06);
  CHECK(e12 <= 0.20);
  CHECK(e16 <= 0.25);
  CHECK(e4 < e12);  // the trend the model misses
  // The default's mid-size excess reproduced on a second machine.
  CHECK(median_error_at_least_1mib("n2_default_rerun.json", "all_reduce", {}) <= 0.15);
}

TEST_CASE("validation: 2 x H200 out of sample, protocols forced with NCCL_PROTO, >= 1 MiB", "[validation][nccl]") {
  // Simple 16 %, LL128 16 %: the fitted efficiencies carry over. LL 12 %: its NVLink efficiency
  // (0.26: ~123 GB/s forced at 1 GiB) is held fixed in the profile (`calibrate --fix`), since the
  // 4xH200 curves only show LL below 2 MiB, host-bound, where it cannot be identified.
  CHECK(median_error_at_least_1mib("n2_proto_Simple.json", "all_reduce", {"nccl.env.NCCL_PROTO=\"Simple\""}) <= 0.20);
  CHECK(median_error_at_least_1mib("n2_proto_LL128.json", "all_reduce", {"nccl.env.NCCL_PROTO=\"LL128\""}) <= 0.20);
  CHECK(median_error_at_least_1mib("n2_proto_LL.json", "all_reduce", {"nccl.env.NCCL_PROTO=\"LL\""}) <= 0.20);
}

TEST_CASE("validation: 2 x H200, P2P read mode (NCCL_P2P_READ_ENABLE=1), >= 1 MiB", "[validation][nccl]") {
  // In sample for its one parameter: read mode's bandwidth factor on Hopper (0.82, hw::p2p_read_model)
  // comes from the 1 GiB all-reduce and all-gather of this file. What is checked is the shape:
  // the factor applies only where the reader's port also carries data out, so a 2-rank broadcast
  // keeps write mode's speed (measured 3015 us at 1 GiB vs 2908 us in write mode).
  const std::vector<std::string> read = {"nccl.env.NCCL_P2P_READ_ENABLE=\"1\""};
  const double ar = median_error_at_least_1mib("n2_read.json", "all_reduce", read);
  const double bc = median_error_at_least_1mib("n2_read.json", "broadcast", read);
  INFO("read mode: all_reduce median " << ar * 100 << " %, broadcast " << bc * 100 << " %");
  CHECK(ar <= 0.15);
  CHECK(bc <= 0.10);
}

TEST_CASE("validation: 2 x H200, channel limits per collective (copy work per byte), >= 1 MiB", "[validation][nccl]") {
  // With few channels the CTAs' loads and stores are the limit, and they differ per collective
  // (models/collectives/copy_work.hpp). Inputs: all-reduce's per-channel rate (20.6 GB/s, n2_ch4.json)
  // and broadcast's (34.5, which fixes a remote store at 2 local ones); all-gather, in place,
  // reduce-scatter, reduce and 8 channels are predictions.
  const std::vector<std::string> ch4 = {"nccl.env.NCCL_MAX_NCHANNELS=\"4\""},
                                 ch8 = {"nccl.env.NCCL_MAX_NCHANNELS=\"8\""};
  CHECK(median_error_at_least_1mib("n2_ch4_gather.json", "all_gather", ch4) <= 0.15);
  CHECK(median_error_at_least_1mib("n2_ch4_gather.json", "all_gather_inplace", ch4) <= 0.10);
  CHECK(median_error_at_least_1mib("n2_ch4_gather.json", "reduce_scatter", ch4) <= 0.15);
  CHECK(median_error_at_least_1mib("n2_ch4_gather.json", "broadcast", ch4) <= 0.20);
  CHECK(median_error_at_least_1mib("n2_ch8.json", "all_reduce", ch8) <= 0.10);
  CHECK(median_error_at_least_1mib("n2_ch8.json", "all_gather", ch8) <= 0.20);  // 15.7 %
  CHECK(median_error_at_least_1mib("n2_reduce_ch4.json", "reduce", ch4) <= 0.10);
  CHECK(median_error_at_least_1mib("n2_reduce.json", "reduce", {}) <= 0.10);
}

TEST_CASE("validation: 2 x H200, all-to-all and send/recv, >= 1 MiB", "[validation][nccl]") {
  // n2_a2a_sendrecv.json: all_to_all_single and a batch_isend_irecv ring, timed like nccl-tests.
  // Measured truth: at 1 GiB -4.6 % (alltoall) and +3.4 % (sendrecv); below ~256 MiB the model
  // is 15-45 % fast, as for every collective here (bandwidth ramps up with size on the device,
  // and Python's batch_isend_irecv adds ~45 us per call up to ~16 MiB).
  CHECK(median_error_at_least_1mib("n2_a2a_sendrecv.json", "alltoall", {}) <= 0.20);
  CHECK(median_error_at_least_1mib("n2_a2a_sendrecv.json", "sendrecv", {}) <= 0.30);
}

TEST_CASE("validation: 2 x H200 over SHM, every collective, >= 1 MiB", "[validation][nccl]") {
  // n2_shm_gather.json (NCCL_P2P_DISABLE=1): the GPU's copies to and from host memory share one
  // throughput, so a 2-rank broadcast (one way per GPU) runs at twice all-reduce's per-direction
  // rate (49.8 vs 27.7 GB/s at 1 GiB). Measured truth: all_reduce 3.3 %, all_gather 6.7 %,
  // reduce_scatter 6.1 %, broadcast 7.3 % (86 % off at 1 GiB before the one-way rule).
  const std::vector<std::string> shm = {"nccl.env.NCCL_P2P_DISABLE=\"1\""};
  CHECK(median_error_at_least_1mib("n2_shm_gather.json", "all_reduce", shm) <= 0.05);
  CHECK(median_error_at_least_1mib("n2_shm_gather.json", "all_gather", shm) <= 0.10);
  CHECK(median_error_at_least_1mib("n2_shm_gather.json", "reduce_scatter", shm) <= 0.10);
  CHECK(median_error_at_least_1mib("n2_shm_gather.json", "broadcast", shm) <= 0.10);
}

TEST_CASE("validation: 2 x H200, NCCL_BUFFSIZE (Simple's flow-control window), >= 1 MiB", "[validation][nccl]") {
  // n2_buff{65536,262144,1048576}.json. In sample for its one parameter: NVLink's credit round
  // trip (13 us) comes from the 1 GiB all-reduces at 64 KiB and 256 KiB. Out of sample: the other
  // sizes, 1 MiB, and broadcast, which measured a longer round trip (~17 us: the model is 17-23 %
  // fast there). Without the window a 64 KiB buffer would be predicted 3x too fast.
  for (const char* b : {"65536", "262144", "1048576"}) {
    const std::string file = std::string("n2_buff") + b + ".json";
    const std::vector<std::string> set = {std::string("nccl.env.NCCL_BUFFSIZE=\"") + b + "\""};
    INFO("NCCL_BUFFSIZE=" << b);
    CHECK(median_error_at_least_1mib(file, "all_reduce", set) <= 0.12);
    CHECK(median_error_at_least_1mib(file, "broadcast", set) <= 0.25);
  }
}

TEST_CASE("validation: PyTorch's issue cost per call, measured on one H200, is the 2 x H200 runs' floor",
          "[validation][nccl]") {
  // h200x1/measured/torch_host_issue.jsonl: one rank, calls queued back to back (the host binds);
  // all_reduce and broadcast run in place, where one rank's NCCL launches nothing, so they add one
  // out-of-place NCCL call of one rank (nccl_p2p_issue_cost.jsonl, all-reduce alone). The 2 x H200
  // runs' median time below 64 KiB (n2_default.json), host-bound there, agrees within 12 %.
  const std::string val = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/";
  const auto issue = validation::jsonl_rows(val + "h200x1/measured/torch_host_issue.jsonl", "torch_issue");
  std::vector<double> launch;
  for (const auto& c : validation::jsonl_rows(val + "h200x1/measured/nccl_p2p_issue_cost.jsonl", "allreduce"))
    if (c.at("k") == 1) launch.push_back(c.at("api_us"));
  REQUIRE(!launch.empty());
  std::ifstream runs(val + "h200x2/n2_default.json");
  REQUIRE(runs.good());
  const auto measured = nlohmann::json::parse(runs);
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast"}) {
    std::vector<double> one_rank, two_gpus;
    for (const auto& r : issue)
      if (r.at("ranks") == 1 && r.at("op") == op) one_rank.push_back(r.at("issue_us"));
    for (const auto& r : measured.at("rows"))
      if (r.at("op") == op && r.at("size").get<int64_t>() < (64 << 10)) two_gpus.push_back(r.at("time_us"));
    REQUIRE(!one_rank.empty());
    REQUIRE(!two_gpus.empty());
    const bool in_place = std::string(op) == "all_reduce" || std::string(op) == "broadcast";
    const double floor_us = validation::median(one_rank) + (in_place ? validation::median(launch) : 0);
    const double two_gpus_us = validation::median(two_gpus);
    INFO(op << ": measured on one H200 " << floor_us << " us, 2 x H200's floor " << two_gpus_us << " us");
    CHECK(std::fabs(floor_us / two_gpus_us - 1) < 0.12);
  }
}
