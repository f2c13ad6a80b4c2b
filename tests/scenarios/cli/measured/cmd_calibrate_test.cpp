// `commsim calibrate` from the command line: a fit written as a profile, and a broken nccl-tests
// file reported as one FILE:LINE:COL line with exit code 2 and nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kScenario = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.toml";
const std::string kNcclTests = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/nccl-tests/";
}  // namespace

TEST_CASE("commsim calibrate: a fit becomes a profile file", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-ok");
  const std::string out = (dir / "p.toml").string();
  auto r = run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--out", out});
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(out));
  CHECK(r.err.empty());
}

TEST_CASE("commsim calibrate: a broken nccl-tests header is one FILE:LINE:COL line, exit 2", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-bad");
  const std::string in = (dir / "bad.txt").string();
  {
    std::ofstream f(in);
    f << "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n"
         "# Collective test starting: all_reduce_perf\n"
         "# nThread 671088641 nGpus 4 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5\n";
  }
  const std::string out = (dir / "p.toml").string();
  auto r = run_commsim({"calibrate", "--scenario", kScenario, in, "--out", out});
  CHECK(r.exit_code == 2);
  // nThread x nGpus would overflow the rank count (found by fuzz_nccl_tests).
  CHECK(r.err == in + ":3:11: nThread 671088641 is out of range (expected 1..1024)\n");
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("commsim calibrate: a file whose ring crosses NVLink and a network is refused, nothing written",
          "[scenarios]") {
  // 2 x p5 of 8 GPUs: the ring crosses NVLink inside each node and EFA between them; the fit's
  // steps are of one class, so the EFA time would land on NVLink's parameters.
  const std::string v = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/p5_2node_efa/";
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-two-classes");
  const std::string out = (dir / "p.toml").string();
  const auto r = run_commsim(
      {"calibrate", "--scenario", v + "scenario.toml", v + "measured/all_reduce_perf.txt", "--out", out});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("calibrate fits one link class per nccl-tests file") != std::string::npos);
  CHECK(r.err.find("crosses nvlink and efa (2 nodes) (expected a file of one node, or of one GPU per node)") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  // The Socket file of the 4 x H200 host (every GPU its own NCCL node, one class) still fits.
  const auto sock = run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4_sock.txt", "--out", out});
  CHECK(sock.exit_code == 0);
  std::filesystem::remove_all(dir);
}
