// `commsim compare` columns that say what they compare: a column's own --set N:K=V wins over a
// --set K=V for every column whatever their order, and its name lists only the overrides that
// hold; "why TCP beats EFA" speaks of the same work (per token), not of a shorter step; the page's
// headline says when a column trains other tokens a step, and when one does not fit.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kSeedsOfColumns = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/";
}

TEST_CASE("scenarios: compare --set N:K=V wins over --set K=V in either order, and the name says what holds",
          "[scenarios]") {
  const std::string s = kSeedsOfColumns + "p5_1pod_8gpu.toml";
  for (bool global_last : {false, true}) {
    std::vector<std::string> args = {"compare", s, s, "--json"};
    const std::vector<std::string> own = {"--set", "2:cluster.nodes=4"}, all = {"--set", "cluster.nodes=2"};
    for (const auto& part : global_last ? std::vector{own, all} : std::vector{all, own})
      args.insert(args.end(), part.begin(), part.end());
    const auto r = run_commsim(args);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    INFO(global_last);
    CHECK(j["results"][0]["gpus"] == 16);
    CHECK(j["results"][1]["gpus"] == 32);
    const std::string name = j["results"][1]["scenario"].get<std::string>();
    CHECK(name.find("[cluster.nodes=4]") != std::string::npos);
    CHECK(name.find("cluster.nodes=2") == std::string::npos);
  }
}

// A key twice for every column, or twice for one column, is refused at the user's second --set.
TEST_CASE("scenarios: compare refuses a key set twice for the same columns, at the user's --set", "[scenarios]") {
  const std::string s = kSeedsOfColumns + "p5_1pod_8gpu.toml";
  const auto all = run_commsim(
      {"compare", s, s, "--set", "2:cluster.nodes=4", "--set", "cluster.nodes=2", "--set", "cluster.nodes=3"});
  CHECK(all.exit_code == 2);
  CHECK(all.err ==
        "--set:3:1: 'cluster.nodes' is set twice, first at --set:2:1 (expected each key once, as in a "
        "scenario file)\n");
  const auto own = run_commsim({"compare", s, s, "--set", "2:cluster.nodes=4", "--set", "2:cluster.\"nodes\"=3"});
  CHECK(own.exit_code == 2);
  CHECK(own.err.rfind("--set:2:3: 'cluster.nodes' is set twice, first at --set:1:3 ", 0) == 0);
}

TEST_CASE("scenarios: compare says why TCP beats EFA only for the same work per token", "[scenarios]") {
  const std::string efa = kSeedsOfColumns + "p4d_4pod_1gpu_efa.toml",
                    tcp = kSeedsOfColumns + "p4d_4pod_1gpu_socket.toml";
  // The pods' own network namespaces leave NCCL no helper thread (a veth has no NIC vendor): there
  // TCP is the slower; with AWS's 2 threads x 8 sockets (hostNetwork pods, or the variables set)
  // it beats EFA, and says why.
  CHECK(run_commsim({"compare", efa, tcp}).out.find("beats") == std::string::npos);
  const std::vector<std::string> threads = {"--set", "2:nccl.env.NCCL_SOCKET_NTHREADS=\"2\"", "--set",
                                            "2:nccl.env.NCCL_NSOCKS_PERTHREAD=\"8\""};
  std::vector<std::string> args = {"compare", efa, tcp};
  args.insert(args.end(), threads.begin(), threads.end());
  const auto same = run_commsim(args);
  REQUIRE(same.exit_code == 0);
  CHECK(same.out.find("why [2] (TCP sockets) beats [1] (EFA)") != std::string::npos);
  // A quarter of the work a step: a shorter step, a higher cost per token; no "beats".
  args.insert(args.end(), {"--set", "2:training.grad_accum=1"});
  const auto less = run_commsim(args);
  REQUIRE(less.exit_code == 0);
  CHECK(less.out.find("beats") == std::string::npos);
}

TEST_CASE("scenarios: compare's page says when a column trains other tokens a step or does not fit", "[scenarios]") {
  const std::string s = kSeedsOfColumns + "p5_1pod_8gpu.toml";
  const auto dir = scenarios_test::fresh_temp_dir("compare-headline");
  const std::string page = (dir / "c.html").string();
  const auto r = run_commsim(
      {"compare", s, s, s, "--set", "2:training.micro_batch=2", "--set", "3:placement.gpus_per_pod=1", "--html", page});
  REQUIRE(r.exit_code == 0);
  const std::string html = scenarios_test::slurp(page);
  CHECK(html.find("tokens a step, the baseline") != std::string::npos);
  CHECK(html.find("DOES NOT FIT:") != std::string::npos);
  std::filesystem::remove_all(dir);
}
