// What run says about the run at scale, through the real binary: a straggler's pipeline stage.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kLlama70b16k =
    std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/at_scale/goodput_llama70b_16k.toml";
const std::string kStraggler = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/p4d_2node_straggler.toml";
}  // namespace

TEST_CASE("at scale: the stragglers line names the pipeline stage the slowed GPUs hold", "[scenarios]") {
  // TP 8 x PP 8 x DP 256, ranks tp-cp-dp-pp: node 5 holds stage 0, node 2047 stage 7.
  const auto first = run_commsim({"run", kLlama70b16k, "--set", "stragglers=[{node = 5, compute_slowdown = 1.1}]"});
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find(" without [[stragglers]]; it slows pipeline stage 0 of 0-7 (a straggler's cost depends on "
                       "its stage)\n") != std::string::npos);
  const auto both =
      run_commsim({"run", kLlama70b16k, "--set",
                   "stragglers=[{node = 5, compute_slowdown = 1.1}, {ranks = [16383, 8], compute_slowdown = 1.05}]"});
  REQUIRE(both.exit_code == 0);
  CHECK(both.out.find(" without [[stragglers]]; entry 1 slows pipeline stage 0, entry 2 slows stages 0, 7 (of 0-7; a "
                      "straggler's cost depends on its stage)\n") != std::string::npos);
  const auto j = nlohmann::json::parse(
      run_commsim({"run", kLlama70b16k, "--set", "stragglers=[{node = 2047, compute_slowdown = 1.1}]", "--json"}).out);
  CHECK(j["straggler_pipeline_stages"] == nlohmann::json::parse("[[7]]"));
  const auto ddp =
      nlohmann::json::parse(run_commsim({"run", kStraggler, "--json"}).out);  // ZeRO-3: no pipeline, no stages
  CHECK_FALSE(ddp.contains("straggler_pipeline_stages"));
}
