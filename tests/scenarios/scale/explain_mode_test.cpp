// `commsim run --explain-mode` (models/scale/step/mode.hpp): on shipped scenarios, one per fold,
// the mechanism models/scale/README.md's table says applies is the one marked applied, the others
// say why not, and asking changes nothing else in the result.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {

const std::vector<std::string> kRows = {"data-parallel replicas", "replica orbits", "ECMP orbits",
                                        "alike nodes",            "rank classes",   "node orbits",
                                        "GPU rotation",           "all-to-all fold", "closed-form blocks"};

nlohmann::json run_json_explain_mode(const std::string& scenario, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", std::string(COMMSIM_SOURCE_DIR) + "/" + scenario, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_commsim(args);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// The explained run: every row in the table's order, each with a reason; returns the rows applied.
std::vector<std::string> applied(const std::string& scenario, nlohmann::json* row_of = nullptr) {
  const nlohmann::json plain = run_json_explain_mode(scenario), j = run_json_explain_mode(scenario, {"--explain-mode"});
  CHECK_FALSE(plain.contains("scale_mode"));
  // Asking changes nothing else: the same result without the field.
  nlohmann::json rest = j;
  rest.erase("scale_mode");
  CHECK(rest == plain);
  const auto& rows = j.at("scale_mode");
  REQUIRE(rows.size() == kRows.size());
  std::vector<std::string> on;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].at("mechanism") == kRows[i]);
    CHECK_FALSE(rows[i].at("why").get<std::string>().empty());
    if (rows[i].at("applied").get<bool>()) on.push_back(kRows[i]);
  }
  if (row_of) *row_of = rows;
  return on;
}

std::string why(const nlohmann::json& rows, const std::string& mechanism) {
  for (const auto& r : rows)
    if (r.at("mechanism") == mechanism) return r.at("why");
  return "";
}

}  // namespace

TEST_CASE("explain mode: Megatron's alike data-parallel replicas are simulated once", "[scenarios]") {
  nlohmann::json rows;
  const auto on = applied("scenarios/validation/megatron/sc21_39b.toml", &rows);
  CHECK(on == std::vector<std::string>{"data-parallel replicas", "closed-form blocks"});
  CHECK(why(rows, "data-parallel replicas").find("1 of 32 replicas simulated") != std::string::npos);
  CHECK(why(rows, "rank classes") == "data-parallel replicas applied");
  CHECK(why(rows, "alike nodes") == "data-parallel replicas own the folded links");
}

TEST_CASE("explain mode: Llama 3 405B on Meta's ECMP pods runs as ECMP orbits, approximate and bounded",
          "[scenarios]") {
  nlohmann::json rows;
  const auto on = applied("scenarios/validation/llama3/llama3_405b_8k_gpus.toml", &rows);
  CHECK(on == std::vector<std::string>{"ECMP orbits", "closed-form blocks"});
  // The replicas' guard failed (pipeline and data-parallel flows share the NICs); replica orbits
  // refused the uplinks alone; ECMP orbits ran, saying they are approximate and their bound.
  CHECK(why(rows, "data-parallel replicas").rfind("abandoned: symmetry: replicas simulated once abandoned", 0) == 0);
  CHECK(why(rows, "replica orbits").rfind("refused: the data-parallel traffic crosses the fabric's shared links", 0) ==
        0);
  CHECK(why(rows, "ECMP orbits") ==
        "1 of 64 replicas, its data-parallel flows as orbits; 384 of 8192 ring edges climb to ECMP-picked uplinks "
        "(approximate: step time within 2 % of --full)");
  CHECK(why(rows, "rank classes") == "ECMP orbits applied");
}

TEST_CASE("explain mode: ZeRO-3 with offload on alike nodes simulates one node", "[scenarios]") {
  nlohmann::json rows;
  const auto on = applied("scenarios/examples/p4d_4node_zero3_offload.toml", &rows);
  CHECK(on == std::vector<std::string>{"alike nodes", "closed-form blocks"});
  CHECK(why(rows, "alike nodes").find("1 of 4 nodes simulated") != std::string::npos);
  CHECK(why(rows, "rank classes") == "alike nodes applied");
}

TEST_CASE("explain mode: ZeRO-1 on p4d runs rank classes, its tree all-reduces by the GPU rotation", "[scenarios]") {
  nlohmann::json rows;
  const auto on = applied("scenarios/examples/p4d_4node_zero1_llama3_8b.toml", &rows);
  CHECK(on == std::vector<std::string>{"rank classes", "GPU rotation", "closed-form blocks"});
  CHECK(why(rows, "rank classes") == "1 of 32 ranks simulated");
  CHECK(why(rows, "all-to-all fold") == "the step has no all-to-all");
}

TEST_CASE("explain mode: alike p4d nodes' ring all-reduce runs as node orbits beside rank classes", "[scenarios]") {
  nlohmann::json rows;
  const auto on = applied("scenarios/validation/p4d_nodes_allreduce.toml", &rows);
  CHECK(std::find(on.begin(), on.end(), "rank classes") != on.end());
  CHECK(std::find(on.begin(), on.end(), "node orbits") != on.end());
  CHECK(why(rows, "node orbits").rfind("the collectives' flows of 1 of ", 0) == 0);
  CHECK(why(rows, "GPU rotation") == "another fold owns the folded links");
}

TEST_CASE("explain mode: Mixtral's expert all-to-alls are folded, its pipeline keeps every rank", "[scenarios]") {
  nlohmann::json rows;
  const auto on = applied("scenarios/examples/mixtral_ep_128.toml", &rows);
  CHECK(std::find(on.begin(), on.end(), "all-to-all fold") != on.end());
  CHECK(why(rows, "rank classes") == "point-to-point transfers are per rank pair");
  CHECK(why(rows, "all-to-all fold").find(" all-to-all launch(es) folded") != std::string::npos);
}

TEST_CASE("explain mode: node orbits abandoned by their orbit check say so, and rank classes carry the run",
          "[scenarios]") {
  nlohmann::json rows;
  const auto on = applied("scenarios/examples/allreduce_fat_tree_3tier.toml", &rows);
  CHECK(std::find(on.begin(), on.end(), "rank classes") != on.end());
  CHECK(why(rows, "node orbits").rfind("abandoned: symmetry: nodes simulated once abandoned", 0) == 0);
}

TEST_CASE("explain mode: --full applies nothing, and says so for every row", "[scenarios]") {
  const nlohmann::json j = run_json_explain_mode("scenarios/examples/p4d_4node_zero1_llama3_8b.toml", {"--full", "--explain-mode"});
  for (const auto& r : j.at("scale_mode")) {
    CHECK_FALSE(r.at("applied").get<bool>());
    const std::string w = r.at("why");
    CHECK((w.find("--full") != std::string::npos || w == "the step has no all-to-all"));
  }
}

TEST_CASE("explain mode: the summary lists every row", "[scenarios]") {
  const auto r = run_commsim(
      {"run", std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/p4d_4node_zero3_offload.toml", "--explain-mode"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("scale mode ([x] applied, [ ] not, and why)") != std::string::npos);
  CHECK(r.out.find("  [x] alike nodes: 1 of 4 nodes simulated") != std::string::npos);
  CHECK(r.out.find("  [ ] rank classes: alike nodes applied") != std::string::npos);
}

TEST_CASE("explain mode: an all-to-all across replicas runs rank classes with the all-to-all fold", "[scenarios]") {
  // DeepSeek-V3 under Megatron, EP 16 over 32 nodes: each expert-parallel group spans two nodes
  // and so 16 data-parallel replicas. The replica fold would own the links the all-to-all fold
  // needs and meet its flows; it is refused up front (not abandoned after a whole step), and the
  // step equals --full's.
  const std::vector<std::string> sets = {"--set", "cluster.nodes=32",         "--set", "parallel.ep=16",
                                         "--set", "training.global_batch=256"};
  std::vector<std::string> explain = sets, full = sets;
  explain.push_back("--explain-mode");
  full.push_back("--full");
  const nlohmann::json j = run_json_explain_mode("scenarios/examples/deepseek_v3_ep_h200.toml", explain);
  const nlohmann::json f = run_json_explain_mode("scenarios/examples/deepseek_v3_ep_h200.toml", full);
  const auto& rows = j.at("scale_mode");
  CHECK(why(rows, "data-parallel replicas").rfind("an all-to-all spans the replicas (group ep)", 0) == 0);
  CHECK(rows.at(7).at("mechanism") == "all-to-all fold");
  CHECK(rows.at(7).at("applied").get<bool>());
  for (const auto& n : j.at("notes")) CHECK(n.get<std::string>().find("abandoned") == std::string::npos);
  CHECK(j.at("step_time_s").get<double>() == Approx(f.at("step_time_s").get<double>()).epsilon(1e-9));
}
