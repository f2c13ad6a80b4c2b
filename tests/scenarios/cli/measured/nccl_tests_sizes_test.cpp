// `commsim nccl-tests` sizes as nccl-tests computes them (per-rank counts 16-byte aligned, -f an
// integer), --compare that matches nothing, one-rank copies, and the NCCL environment notes that
// run, nccl-tests and topo print alike.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kSizesSource = COMMSIM_SOURCE_DIR;
const std::string kSizesH200x4 = kSizesSource + "/scenarios/validation/h200x4.toml";
const std::string kSizesA3Mega = kSizesSource + "/scenarios/validation/gcp_2node/a3_mega_allgather.toml";
const std::string kSizesH200x1 = kSizesSource + "/scenarios/validation/h200x1/gpt2.toml";

std::vector<std::pair<long long, long long>> sizes_and_counts(const std::string& json_text) {
  std::vector<std::pair<long long, long long>> out;
  const nlohmann::json j = nlohmann::json::parse(json_text);
  for (const auto& row : j["rows"]) out.emplace_back(row["size_bytes"].get<long long>(), row["count"].get<long long>());
  return out;
}
}  // namespace

TEST_CASE("scenarios: nccl-tests gives each rank (count / ranks) & ~(16 / type size - 1) elements", "[scenarios]") {
  // 24 ranks, float: nccl-tests 2.19.6 prints 1048320 / 10920, 4194048 / 43688, ...,
  // 1073741568 / 11184808 (src/all_gather.cu AllGatherGetCollByteCount).
  const auto r = run_commsim({"nccl-tests", kSizesA3Mega, "all_gather_perf", "-b", "1M", "-e", "1G", "-f", "4", "--set",
                              "cluster.nodes=3", "--json"});
  REQUIRE(r.exit_code == 0);
  const std::vector<std::pair<long long, long long>> expected = {{1048320, 10920},     {4194048, 43688},
                                                                 {16776960, 174760},   {67108608, 699048},
                                                                 {268435200, 2796200}, {1073741568, 11184808}};
  CHECK(sizes_and_counts(r.out) == expected);
  // 4 ranks from 8 B: each rank's 0, 1 and 2 floats round down to 0; 64 B is 4 floats a rank.
  const auto small = run_commsim({"nccl-tests", kSizesH200x4, "all_gather_perf", "-b", "8", "-e", "64", "--json"});
  REQUIRE(small.exit_code == 0);
  CHECK(sizes_and_counts(small.out) == std::vector<std::pair<long long, long long>>{{0, 0}, {0, 0}, {0, 0}, {64, 4}});
  // half: 8 elements (16 B) a rank at least.
  const auto half = run_commsim({"nccl-tests", kSizesH200x4, "reduce_scatter_perf", "-b", "96", "-e", "128", "-f", "1",
                                 "-i", "32", "-d", "half", "--json"});
  REQUIRE(half.exit_code == 0);
  CHECK(sizes_and_counts(half.out) == std::vector<std::pair<long long, long long>>{{64, 8}, {128, 16}});
}

TEST_CASE("scenarios: nccl-tests -f is a whole factor, as nccl-tests' strtol reads it", "[scenarios]") {
  const auto r = run_commsim({"nccl-tests", kSizesH200x4, "-b", "1M", "-e", "8M", "-f", "1.5"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("'1.5' is not a whole number: nccl-tests reads -f as an integer (strtol), so 1.5 would step by 1 "
                   "(that is, add -i) (expected a whole factor from 1 to 1024)") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("scenarios: nccl-tests --compare with no predicted size compares nothing and says so", "[scenarios]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "commsim_compare_nothing";
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "ag.txt").string();
  {
    std::ofstream out(file);
    out << "# Collective test starting: all_gather_perf\n"
           "#  Rank  0 Group  0 Pid   1000 on      node0 device  0 [0000:00:00] NVIDIA H200\n"
           "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
           "busbw  #wrong\n"
           "     1048576        65536     float    none      -1    20.00   52.43   39.32       0    19.00   55.19   "
           "41.39       0\n";
  }
  // The prediction's sizes are 2 MiB and 4 MiB: 1 MiB is not among them.
  const auto r =
      run_commsim({"nccl-tests", kSizesH200x4, "all_gather_perf", "-b", "2M", "-e", "4M", "--compare", file});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(file + ":1:1: no size of the measured file is a predicted size, nothing compared (measured 1 sizes, "
                          "1048576 B, predicted 2097152 - 4194304 B; expected the measured run's -b, -e, -f, -d and "
                          "rank count)") != std::string::npos);
  // One of two sizes predicted: compared, the other named in a warning.
  const auto part =
      run_commsim({"nccl-tests", kSizesH200x4, "all_gather_perf", "-b", "1M", "-e", "1M", "--compare", file});
  CHECK(part.exit_code == 0);
  CHECK(part.out.find("# 1 sizes compared") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("scenarios: one rank copies its buffer out of place at the measured share of HBM", "[scenarios]") {
  // copy_work.hpp: 2 x S / (0.876 x 4.8 TB/s) on an H200; in place nothing moves.
  const auto r = run_commsim({"nccl-tests", kSizesH200x1, "all_gather_perf", "-b", "512M", "-e", "512M", "--json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json row = j["rows"][0];
  const double copy_us = 2.0 * 536870912 / (0.876 * 4.8e12) * 1e6;  // 255.4 us
  CHECK(row["time_us"].get<double>() >= copy_us);
  CHECK(row["time_us"].get<double>() == Approx(258.68).epsilon(0.05));  // measured_run/nccl_tests_all_gather.txt
  CHECK(row["in_place_time_us"].get<double>() < 30);
}

TEST_CASE("scenarios: nccl-tests and topo print the NCCL environment notes run prints", "[scenarios]") {
  const std::vector<std::string> sets = {"--set", "nccl.env.NCCL_NTHREADS=\"256\"", "--set",
                                         "nccl.env.NCCL_WEIRD_THING=\"1\""};
  const std::string documented = "nccl.env: NCCL_NTHREADS is set but not modelled (no effect on the simulated times)";
  const std::string unknown =
      "nccl.env: NCCL_WEIRD_THING is not known to commsim (kept; no effect on the simulated times)";
  std::vector<std::string> args = {"nccl-tests", kSizesH200x4, "-b", "1M", "-e", "1M"};
  args.insert(args.end(), sets.begin(), sets.end());
  const auto nt = run_commsim(args);
  REQUIRE(nt.exit_code == 0);
  CHECK(nt.err.find("commsim nccl-tests: note: " + documented + "\n") != std::string::npos);
  CHECK(nt.err.find("commsim nccl-tests: note: " + unknown + "\n") != std::string::npos);
  std::vector<std::string> topo = {"topo", kSizesH200x4};
  topo.insert(topo.end(), sets.begin(), sets.end());
  const auto t = run_commsim(topo);
  REQUIRE(t.exit_code == 0);
  CHECK(t.err == "commsim topo: note: " + documented + "\ncommsim topo: note: " + unknown + "\n");
  topo.push_back("--json");
  const auto tj = run_commsim(topo);
  REQUIRE(tj.exit_code == 0);
  CHECK(nlohmann::json::parse(tj.out)["notes"] == nlohmann::json::array({documented, unknown}));
}

TEST_CASE("scenarios: topo shows the P2P channels per NVLink peer the simulation uses", "[scenarios]") {
  // 4 x H200, NV18: 36 by the topology, pow2Up 64, at most the 32 p2p channels of 24 collective
  // channels: NCCL logs "32 p2p channels, 32 p2p channels per peer"
  // (scenarios/validation/h200x4/measured/logs/p2p_n4.rank0.log).
  const auto t = run_commsim({"topo", kSizesH200x4, "--json"});
  REQUIRE(t.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(t.out);
  const nlohmann::json pairs = j["pairs"];
  REQUIRE(pairs.size() == 12);
  for (const auto& p : pairs) CHECK(p["channels"].get<int>() == 32);
}

TEST_CASE("scenarios: topo shows network and NVLink peers of a multi-node job the one count the simulation uses",
          "[scenarios]") {
  // NCCL's p2pnChannelsPerPeer is one count per communicator, pow2Up of the smallest over all
  // peers (paths.cc ncclTopoComputeP2pChannels); across nodes the model's network peer counts 2
  // (comm_plan/p2p_channels.hpp), so NVLink peers get 2 as well. topo printed each pair's own
  // topology count: 16 for the NVLink peer, 4 for the network peer (TransportModel::p2p_channels:
  // its NIC group at 14 GB/s a channel).
  for (const char* instance : {"a3-megagpu-8g", "p5.48xlarge"}) {
    const auto t = run_commsim({"topo", kSizesA3Mega, "--set", std::string("cluster.instance=") + instance});
    REQUIRE(t.exit_code == 0);
    const std::string net_line = instance == std::string("p5.48xlarge")
                                     ? "  0[0] -> 8[0]  via NET/Libfabric/0/GDRDMA   path NET   channels 2\n"
                                     : "  0[0] -> 8[0]  via NET/IB/0/GDRDMA          path NET   channels 2\n";
    CHECK(t.out.find("  0[0] -> 1[1]  via P2P/CUMEM                path NVL   channels 2\n") != std::string::npos);
    CHECK(t.out.find(net_line) != std::string::npos);
    const auto j = run_commsim({"topo", kSizesA3Mega, "--set", std::string("cluster.instance=") + instance, "--json"});
    REQUIRE(j.exit_code == 0);
    const auto pairs = nlohmann::json::parse(j.out).at("pairs");  // held: a temporary's member would dangle
    for (const auto& p : pairs) CHECK(p["channels"].get<int>() == 2);
  }
}

TEST_CASE("scenarios: a diff that compares nothing is an error", "[scenarios]") {
  // 4-rank nccl-tests rows against a 1-GPU scenario, no trace: every row skipped.
  const auto r =
      run_commsim({"diff", kSizesSource + "/scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt", kSizesH200x1});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("ar_g4.txt:1:1: nothing compared: 28 measured collectives ran on another rank count than the "
                   "scenario's 1 GPUs (expected a measurement of the scenario's job)") != std::string::npos);
}
