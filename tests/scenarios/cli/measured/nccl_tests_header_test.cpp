// `commsim nccl-tests --compare` checks the measured file's header against the prediction
//: a file of another collective is refused (exit 2, one line naming the file and what
// was expected); a file of another rank count or GPU model is compared with a warning on stderr.
// `calibrate` warns about another GPU model too, and names the parameters that no file exercised
// and those the fit pushed to a bound.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kSourceOfNcclTestsHeader = COMMSIM_SOURCE_DIR;
const std::string kH200x4OfNcclTestsHeader = kSourceOfNcclTestsHeader + "/scenarios/validation/h200x4.toml";                         // 4 GPUs
const std::string kP4dNodesOfNcclTestsHeader = kSourceOfNcclTestsHeader + "/scenarios/validation/p4d_nodes_allreduce.toml";          // 32 GPUs
const std::string kArG4 = kSourceOfNcclTestsHeader + "/scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt";  // all_reduce, 4
}  // namespace

TEST_CASE("scenarios: nccl-tests --compare refuses another collective and warns about another rank count",
          "[scenarios]") {
  const auto same = run_commsim({"nccl-tests", kH200x4OfNcclTestsHeader, "-b", "1M", "-e", "4M", "--compare", kArG4});
  REQUIRE(same.exit_code == 0);
  CHECK(same.err.find("ranks, the scenario has") == std::string::npos);  // the file's rank count
  CHECK(same.out.find("# 3 sizes compared") != std::string::npos);
  // -b 1M -e 4M leaves the file's other sizes out, and says so.
  CHECK(same.err.find("of its sizes are outside the predicted range and not compared") != std::string::npos);
  // Without -b and -e the prediction spans the file's sizes: every one is compared, no warning.
  const auto whole = run_commsim({"nccl-tests", kH200x4OfNcclTestsHeader, "--compare", kArG4});
  REQUIRE(whole.exit_code == 0);
  CHECK(whole.err.find("warning") == std::string::npos);
  CHECK(whole.out.find("# 28 sizes compared") != std::string::npos);  // 8 B - 1 GiB, nccl-tests' default too
  // A file to 16 GiB: its sizes, not the default's 1 GiB, with a note.
  const auto p5 = run_commsim(
      {"nccl-tests", kSourceOfNcclTestsHeader + "/scenarios/validation/p5_2node_efa/scenario.toml", "--compare",
       kSourceOfNcclTestsHeader + "/scenarios/validation/p5_2node_efa/measured/all_reduce_perf.txt"});
  REQUIRE(p5.exit_code == 0);
  CHECK(p5.out.find("# 32 sizes compared") != std::string::npos);
  CHECK(p5.err.find("sizes 8 - 17179869184 B, the measured file's") != std::string::npos);

  const auto other_op =
      run_commsim({"nccl-tests", kH200x4OfNcclTestsHeader, "--op", "all_gather", "-b", "1M", "-e", "4M", "--compare", kArG4});
  CHECK(other_op.exit_code == 2);
  CHECK(other_op.err.find("ar_g4.txt") != std::string::npos);
  CHECK(other_op.err.find("ran all_reduce_perf, the prediction is all_gather") != std::string::npos);
  CHECK(other_op.out.empty());

  const auto other_ranks = run_commsim({"nccl-tests", kP4dNodesOfNcclTestsHeader, "-b", "1M", "-e", "4M", "--compare", kArG4});
  CHECK(other_ranks.exit_code == 0);
  CHECK(other_ranks.err.find("warning: " + kArG4 + " ran on 4 ranks, the scenario has 32") != std::string::npos);
}

TEST_CASE("scenarios: calibrate marks parameters no file exercised", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-marks");
  const std::string shm = kSourceOfNcclTestsHeader + "/scenarios/validation/h200x4/measured/nccl-tests/ar_g4_shm.txt:NCCL_P2P_DISABLE=1";
  const std::vector<std::string> base = {"calibrate", "--scenario", kH200x4OfNcclTestsHeader, kArG4, shm};
  auto with = [&](const std::string& out, bool json) {
    auto args = base;
    args.insert(args.end(), {"--out", (dir / out).string()});
    if (json) args.push_back("--json");
    return run_commsim(args);
  };
  const auto j = with("a.toml", true);
  REQUIRE(j.exit_code == 0);
  const auto doc = nlohmann::json::parse(j.out);
  const auto unused = doc["params_not_exercised"].get<std::vector<std::string>>();
  // The SHM file has no LL128 point; the NVLink file has Simple points.
  CHECK(std::count(unused.begin(), unused.end(), "shm.efficiency.ll128") == 1);
  CHECK(std::count(unused.begin(), unused.end(), "shm.hop_latency.ll128") == 1);
  CHECK(std::count(unused.begin(), unused.end(), "nvlink.efficiency.simple") == 0);
  CHECK(doc["params_at_bounds"].is_array());
  const auto text = with("b.toml", false);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("shm.efficiency.ll128") != std::string::npos);
  CHECK(text.out.find("no file exercised it") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("scenarios: nccl-tests --compare warns when the measured file ran on another GPU", "[scenarios]") {
  // The 4 x H200 file with its "# Rank" lines rewritten to an A100: same collective and rank count.
  const auto dir = scenarios_test::fresh_temp_dir("nccl-tests-gpu");
  std::string text = scenarios_test::slurp(kArG4);
  size_t replaced = 0;
  for (size_t at; (at = text.find("NVIDIA H200")) != std::string::npos; ++replaced)
    text.replace(at, 11, "NVIDIA A100-SXM4-40GB");
  REQUIRE(replaced == 4);
  const auto a100 = dir / "ar_g4_a100.txt";
  std::ofstream(a100) << text;
  const auto r = run_commsim({"nccl-tests", kH200x4OfNcclTestsHeader, "-b", "1M", "-e", "4M", "--compare", a100.string()});
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: " + a100.string() + " ran on NVIDIA A100-SXM4-40GB, the scenario's GPU is H200") !=
        std::string::npos);
  // calibrate: the same warning, once per GPU line, and the fit still runs.
  const auto c = run_commsim({"calibrate", "--scenario", kH200x4OfNcclTestsHeader, a100.string(), "--out", (dir / "p.toml").string()});
  CHECK(c.exit_code == 0);
  CHECK(c.err.find("commsim calibrate: warning: " + a100.string() +
                   " ran on NVIDIA A100-SXM4-40GB, the scenario's GPU is H200: the fit mixes machines") !=
        std::string::npos);
  const auto same = run_commsim({"calibrate", "--scenario", kH200x4OfNcclTestsHeader, kArG4, "--out", (dir / "q.toml").string()});
  CHECK(same.exit_code == 0);
  CHECK(same.err.find("warning") == std::string::npos);
  std::filesystem::remove_all(dir);
}
