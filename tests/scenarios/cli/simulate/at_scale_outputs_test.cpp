// What run, compare and sweep say about the run at scale, through the real binary: the note where
// variability.* or --seed act without --samples, the cause of a sampled step (a straggler, the
// slowest-rank rule's upper bound), a straggler's pipeline stage, and a --set straggler's error place.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kWeakScaling = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/goodput_weak_scaling.toml";
const std::string kLlama70b16k =
    std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/at_scale/goodput_llama70b_16k.toml";
const std::string kStraggler = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/p4d_2node_straggler.toml";
const std::string kUnsampled =
    "variability.gpu_speed_cv acts only with --samples N: this result is deterministic, every GPU at nominal speed";
}  // namespace

TEST_CASE("at scale: variability.* or --seed without --samples is a note in run, compare and sweep", "[scenarios]") {
  const auto cmp = run_commsim({"compare", kWeakScaling, kWeakScaling, "--set", "cluster.nodes=1", "--set",
                                "2:cluster.params.variability.gpu_speed_cv=0.05"});
  REQUIRE(cmp.exit_code == 0);
  CHECK(cmp.out.find("note: [2] " + kUnsampled + "\n") != std::string::npos);
  const auto cmp_json =
      nlohmann::json::parse(run_commsim({"compare", kWeakScaling, kWeakScaling, "--set", "cluster.nodes=1", "--set",
                                         "2:cluster.params.variability.gpu_speed_cv=0.05", "--json"})
                                .out);
  CHECK(cmp_json["notes"][0] == "[2] " + kUnsampled);
  const auto run = nlohmann::json::parse(
      run_commsim({"run", kWeakScaling, "--set", "cluster.nodes=1", "--seed", "3", "--json"}).out);
  CHECK(run["notes"].back() ==
        "--seed acts only with --samples N: this result is deterministic, every GPU at nominal speed");
  const auto sampled = nlohmann::json::parse(
      run_commsim({"run", kWeakScaling, "--set", "cluster.nodes=1", "--seed", "3", "--samples", "2", "--json"}).out);
  for (const auto& n : sampled["notes"]) CHECK(n.get<std::string>().find("acts only with") == std::string::npos);
  const auto sweep = run_commsim({"sweep", kWeakScaling, "--set", "cluster.nodes=1", "--vary",
                                  "cluster.params.variability.gpu_speed_cv=0.02,0.03", "--jobs", "1"});
  REQUIRE(sweep.exit_code == 0);
  CHECK(sweep.err.find("sweep: note: " + kUnsampled + "\n") != std::string::npos);
}

TEST_CASE("at scale: a straggler slower than every drawn GPU is the cause of the sampled step", "[scenarios]") {
  const auto text = run_commsim({"run", kStraggler, "--samples", "4"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("cause: a [[stragglers]] entry is the slowest GPU: rank 5 (node 0) computes x") !=
        std::string::npos);
  CHECK(text.out.find("E[max of 16 normals]") == std::string::npos);
  const auto j = nlohmann::json::parse(run_commsim({"run", kStraggler, "--samples", "4", "--json"}).out);
  CHECK(j["variability"]["slowest_straggler_factor"] == 1.3);
  CHECK(j["variability"]["rule_upper_bound"] == false);  // ZeRO-3: every collective spans every rank
}

TEST_CASE("at scale: the slowest-rank rule says it is an upper bound with tensor or pipeline groups", "[scenarios]") {
  const auto megatron = run_commsim({"run", kLlama70b16k, "--set", "cluster.nodes=64", "--samples", "2"});
  REQUIRE(megatron.exit_code == 0);
  CHECK(megatron.out.find("every rank at the slowest's speed: an upper bound with tensor/pipeline groups; --full "
                          "for the exact figure\n") != std::string::npos);
  const auto ddp = run_commsim({"run", kWeakScaling, "--set", "cluster.nodes=1", "--samples", "2"});
  REQUIRE(ddp.exit_code == 0);
  CHECK(ddp.out.find("slower compute; every rank at the slowest's speed\n") != std::string::npos);
  CHECK(ddp.out.find("upper bound") == std::string::npos);
}

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

TEST_CASE("at scale: a --set [[stragglers]] entry the cluster lacks is an error at the option", "[scenarios]") {
  const std::string set = "stragglers=[{node = 99, compute_slowdown = 1.1}]";
  const auto r = run_commsim({"run", kWeakScaling, "--set", set});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "--set:1:" + std::to_string(set.find("99") + 1) + ": stragglers.0.node: 99 (expected a node in 0..7)\n");
}
