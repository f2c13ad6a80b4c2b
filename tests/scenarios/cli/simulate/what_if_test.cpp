// What-ifs that state what changed: every run, compare column, sweep row and HTML series carries
// the GPU count, nodes, pods and layout line of what ran (models/run/layout_line.hpp); an override
// is part of the displayed name, so one file given twice never shows two columns of one name; a
// layout over the GPU's memory can make the command fail for scripts (--require-fit, exit 4); a
// run stopped by --time-limit gives no throughput or MFU.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;
using scenarios_test::slurp;

namespace {
const std::string kSeeds = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/";
const std::string kOnePod = kSeeds + "p4d_1pod_4gpu.toml";
}  // namespace

TEST_CASE("what-if: the README's one-knob compare names the override and the new GPU count", "[scenarios]") {
  // gpus_per_pod = 1 with one pod of one node: 1 x 1 x 1 = 1 GPU where the file has 4.
  const auto r = run_commsim({"compare", kOnePod, kOnePod, "--set", "2:placement.gpus_per_pod=1"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("    4 GPUs: 1 node p4d.24xlarge, 1 pod x 4 GPUs (4 of 8 GPUs per node idle); zero3, dp 4\n") !=
        std::string::npos);
  CHECK(r.out.find("    1 GPU: 1 node p4d.24xlarge, 1 pod x 1 GPU (7 of 8 GPUs per node idle); zero3, dp 1\n") !=
        std::string::npos);
  CHECK(r.out.find("(P2P) [placement.gpus_per_pod=1]  (") != std::string::npos);
  CHECK(r.out.find("note: [2] runs on 1 GPU, [1] on 4") != std::string::npos);
  const auto j = nlohmann::json::parse(run_commsim({"compare", kOnePod, kOnePod, "--set", "2:placement.gpus_per_pod=1",
                                                    "--json"})
                                           .out);
  CHECK(j["results"][0]["gpus"] == 4);
  CHECK(j["results"][1]["gpus"] == 1);
  CHECK(j["results"][1]["pods"] == 1);
  CHECK(j["results"][0]["scenario"] != j["results"][1]["scenario"]);
}

TEST_CASE("what-if: run prints the layout line and run --json has gpus, nodes, pods, layout", "[scenarios]") {
  const auto r = run_commsim({"run", kSeeds + "p4d_4pod_1gpu_efa.toml"});
  REQUIRE(r.exit_code == 0);
  CHECK(
      r.out.find("layout     4 GPUs: 1 node p4d.24xlarge, 4 pods x 1 GPU (4 of 8 GPUs per node idle); zero3, dp 4\n") !=
      std::string::npos);
  const auto j = nlohmann::json::parse(run_commsim({"run", kSeeds + "p4d_4pod_1gpu_efa.toml", "--json"}).out);
  CHECK(j["gpus"] == 4);
  CHECK(j["nodes"] == 1);
  CHECK(j["pods"] == 4);
  CHECK(j["layout"] == "4 GPUs: 1 node p4d.24xlarge, 4 pods x 1 GPU (4 of 8 GPUs per node idle); zero3, dp 4");
}

TEST_CASE("what-if: sweep rows carry gpus, nodes, pods and the layout line", "[scenarios]") {
  const auto r = run_commsim({"sweep", kOnePod, "--vary", "placement.gpus_per_pod=1,4", "--json"});
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const auto a = nlohmann::json::parse(first), b = nlohmann::json::parse(second);
  CHECK(a["gpus"] == 1);
  CHECK(b["gpus"] == 4);
  CHECK(a["layout"] == "1 GPU: 1 node p4d.24xlarge, 1 pod x 1 GPU (7 of 8 GPUs per node idle); zero3, dp 1");
}

TEST_CASE("what-if: two same-named columns stay two series in the HTML bus-bandwidth chart", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("whatif");
  const std::string allreduce = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
  const auto html = (dir / "cmp.html").string();
  // Without numbered series both columns' curves had one name and were drawn as one sawtooth line.
  const auto r = run_commsim({"compare", allreduce, allreduce, "--set", "2:collective.bytes=2 GiB", "--html", html});
  REQUIRE(r.exit_code == 0);
  const std::string page = slurp(html);
  CHECK(page.find("data-series=\"[1] ") != std::string::npos);
  CHECK(page.find("data-series=\"[2] ") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("what-if: --require-fit exits 4 for a layout over the GPU's memory, 0 when it fits", "[scenarios]") {
  // DDP of Llama-3-8B on one p5: weights, gradients and Adam states unsharded, ~98 GB > 80 GB.
  const std::string p5 = kSeeds + "p5_1pod_8gpu.toml";
  const auto over = run_commsim({"run", p5, "--set", "parallel.strategy=ddp", "--require-fit"});
  CHECK(over.exit_code == 4);
  CHECK(over.out.find("DOES NOT FIT") != std::string::npos);  // the times and the warning still print
  CHECK(run_commsim({"run", p5, "--set", "parallel.strategy=ddp"}).exit_code == 0);
  CHECK(run_commsim({"run", p5, "--require-fit"}).exit_code == 0);
  CHECK(run_commsim({"compare", p5, p5, "--set", "2:parallel.strategy=ddp", "--require-fit"}).exit_code == 4);
  CHECK(run_commsim({"sweep", p5, "--vary", "parallel.strategy=zero3,ddp", "--require-fit"}).exit_code == 4);
}

TEST_CASE("what-if: a run stopped by --time-limit gives no tokens/s or MFU", "[scenarios]") {
  // A rate over part of a step is the rate of work never finished: it printed "MFU 1123.2 %".
  const std::string big = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/megatron/sc21_1t.toml";
  const auto r = run_commsim({"run", big, "--time-limit", "0.2", "--json"});
  REQUIRE(r.exit_code == 3);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["partial"] == true);
  CHECK(j["throughput"].is_null());
  const auto text = run_commsim({"run", big, "--time-limit", "0.2"});
  CHECK(text.out.find("MFU") == std::string::npos);
  CHECK(text.out.find("tokens/s") == std::string::npos);
}
