// `commsim sweep --html`: a sweep over nodes of a shipped ZeRO-3 seed writes the scaling page
// (throughput with the linear-scaling line, efficiency, breakdown per point) beside its rows, whose
// numbers it shows; --html refuses --shard and --resume (the page needs every point).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace {
size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}
const std::string kSeed = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p4d_2node_nvlink_waits_efa.toml";
}  // namespace

TEST_CASE("scenarios: sweep --html writes the scaling page of a sweep over nodes", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("sweep-html");
  const auto page = dir / "scaling.html";
  const auto r = scenarios_test::run_commsim(
      {"sweep", kSeed, "--vary", "cluster.nodes=1,2,4", "--jobs", "1", "--json", "--html", page.string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(count(r.out, "\n") == 3);  // the rows are unchanged by --html
  const std::string html = scenarios_test::slurp(page);
  for (const char* chart : {"chart-scaling-throughput", "chart-scaling-efficiency", "chart-scaling-breakdown"})
    CHECK(html.find(chart) != std::string::npos);
  CHECK(count(html, "class=\"point-row") == 3);
  CHECK(count(html, "class=\"scaling-point") == 6);  // three on each line chart
  CHECK(html.find("cluster.nodes=1,2,4") != std::string::npos);
  CHECK(html.find("scaling efficiency 100%") != std::string::npos);  // the first point against itself
  CHECK(r.err.find("sweep: wrote ") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("scenarios: sweep --html refuses --shard and --resume", "[scenarios]") {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--shard", "0/2"}, std::vector<std::string>{"--resume", "--csv", "/tmp/x.csv"}}) {
    std::vector<std::string> args = {"sweep", kSeed, "--vary", "cluster.nodes=1,2", "--html", "/tmp/never.html"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = scenarios_test::run_commsim(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--html") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists("/tmp/never.html"));
  }
}
