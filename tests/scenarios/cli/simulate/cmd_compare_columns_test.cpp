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

// Columns on two catalog machines say what differs between them that the model prices: an
// "InfiniBand -> RoCE" what-if on DGX H100 also turns NVLS off, and the note says so (text and
// JSON alike); two instances the model cannot tell apart would say that instead.
TEST_CASE("scenarios: compare names what differs between two columns' machines", "[scenarios]") {
  const std::string s = kSeedsOfColumns + "p5_1pod_8gpu.toml";
  const auto r = run_commsim({"compare", s, s, "--set", "cluster.nodes=2", "--set", "1:cluster.instance=dgx-h100",
                              "--set", "2:cluster.instance=dgx-h100-roce", "--json"});
  REQUIRE(r.exit_code == 0);
  const auto notes = nlohmann::json::parse(r.out)["notes"];
  std::string differs;
  for (const auto& n : notes)
    if (n.get<std::string>().rfind("[2] dgx-h100-roce differs", 0) == 0) differs = n.get<std::string>();
  CHECK(differs ==
        "[2] dgx-h100-roce differs from [1] dgx-h100 in: NVLS (NVLink SHARP, NCCL's NVLS and NVLSTree): on -> off; "
        "NICs: 8 x 400 Gb/s InfiniBand NDR -> 8 x 400 Gb/s RoCE v2 (ConnectX-7, Ethernet mode)");
  const auto text = run_commsim({"compare", s, s, "--set", "cluster.nodes=2", "--set", "1:cluster.instance=dgx-h100",
                                 "--set", "2:cluster.instance=dgx-h100-roce"});
  CHECK(text.out.find("note: " + differs + "\n") != std::string::npos);
  // The same instance in both columns: no such note.
  const auto same = run_commsim({"compare", s, s, "--set", "2:cluster.nodes=2", "--json"});
  const auto same_json = nlohmann::json::parse(same.out);  // kept alive: the loop reads into it
  for (const auto& n : same_json["notes"]) CHECK(n.get<std::string>().find("differs from") == std::string::npos);
}
