// `commsim report --measured a --measured b`: one bus bandwidth series per measured file, named by
// the file and the NCCL variables its INFO lines set; one file stays on the predicted curve, made
// with the file's NCCL variables where they differ from the scenario's.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kMeasuredScenario = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.toml";
const std::string kMeasuredNcclTests = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/nccl-tests/";

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("commsim report: each --measured file is its own bus bandwidth series", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("report-measured");
  const std::string two = (dir / "two.html").string(), one = (dir / "one.html").string();
  auto r = run_commsim({"report", kMeasuredScenario, "--measured", kMeasuredNcclTests + "ar_g4.txt", "--measured",
                        kMeasuredNcclTests + "ar_g4_sock.txt", "--html", two});
  REQUIRE(r.exit_code == 0);
  const std::string html = read_all(two);
  CHECK(html.find("data-series=\"ar_g4.txt\"") != std::string::npos);  // no INFO lines: the name alone
  CHECK(html.find("data-series=\"ar_g4_sock.txt (") != std::string::npos);
  CHECK(html.find("NCCL_SHM_DISABLE=1") != std::string::npos);
  CHECK(html.find(">ar_g4.txt · all_reduce measured</text>") != std::string::npos);

  r = run_commsim({"report", kMeasuredScenario, "--measured", kMeasuredNcclTests + "ar_g4.txt", "--html", one});
  REQUIRE(r.exit_code == 0);
  const std::string single = read_all(one);
  CHECK(single.find("data-series=\"ar_g4.txt\"") == std::string::npos);
  // On the predicted curve over every GPU of the scenario, as nccl-tests ran: the legend says so.
  CHECK(single.find(">all_reduce, all 4 GPUs on 1 node measured</text>") != std::string::npos);

  // A file that ran with other NCCL variables (Socket only) sits on a prediction made with them,
  // beside the scenario's own curve, never on the scenario's P2P curve.
  const std::string sock = (dir / "sock.html").string();
  r = run_commsim({"report", kMeasuredScenario, "--measured", kMeasuredNcclTests + "ar_g4_sock.txt", "--html", sock});
  REQUIRE(r.exit_code == 0);
  const std::string s = read_all(sock);
  const std::string as_ran =
      "all_reduce, all 4 GPUs on 1 node, as ar_g4_sock.txt ran (NCCL_NVLS_ENABLE=0, NCCL_P2P_DISABLE=1, "
      "NCCL_SHM_DISABLE=1)";
  CHECK(s.find(">" + as_ran + " measured</text>") != std::string::npos);
  CHECK(s.find(">" + as_ran + " predicted</text>") != std::string::npos);
  CHECK(s.find(">all_reduce, all 4 GPUs on 1 node predicted</text>") != std::string::npos);
  CHECK(s.find(">all_reduce, all 4 GPUs on 1 node measured</text>") == std::string::npos);
}

TEST_CASE("commsim report: a --measured file must name its collective, and other ranks are warned", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("report-measured-bare");
  const std::string html = (dir / "r.html").string();
  // The 2 x p5 file is a bare table: no header names all_reduce_perf.
  const std::string p5 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/p5_2node_efa/";
  auto r =
      run_commsim({"report", p5 + "scenario.toml", "--measured", p5 + "measured/all_reduce_perf.txt", "--html", html});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("all_reduce_perf.txt:1:1: the file does not say which collective it measured") != std::string::npos);
  CHECK(r.err.find("commsim nccl-tests SCENARIO --op OP --compare") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(html));
  // The 4 x H200 file's 4 ranks on a 2-GPU layout of the same host: said, and the page is written.
  r = run_commsim({"report", kMeasuredScenario, "--set", "placement.gpus_per_pod=2", "--measured",
                   kMeasuredNcclTests + "ar_g4.txt", "--html", html});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("ar_g4.txt ran on 4 ranks") != std::string::npos);
  CHECK(r.err.find("has 2: its points sit on a curve of 2 GPUs") != std::string::npos);
  std::filesystem::remove_all(dir);
}
