// aws-ofi-nccl's own variables (OFI_NCCL_*) are settable where NCCL's are: a scenario's [nccl.env],
// --set, an imported Kubernetes job's env and calibrate's FILE:VAR=VALUE. OFI_NCCL_TUNER_TYPE=Internal
// turns the plugin's tuner off (models/nccl/env.cpp), so on 4 x p5 a 1 GiB all-reduce runs NCCL's own
// choice (NVLSTree) instead of the plugin's region (Ring/LL128).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const std::string kOfiSource = COMMSIM_SOURCE_DIR;

std::string algo_at_1gib(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"nccl-tests", kOfiSource + "/scenarios/examples/dgx_h100_nvls_allreduce.toml",
                                   "--set",      "cluster.instance=\"p5.48xlarge\"",
                                   "--set",      "cluster.nodes=4",
                                   "-b",         "1G",
                                   "-e",         "1G",
                                   "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_commsim(args);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["rows"][0]["algo"].get<std::string>();
}
}  // namespace

TEST_CASE("scenarios: OFI_NCCL_TUNER_TYPE is an [nccl.env] variable and turns aws-ofi-nccl's tuner off",
          "[scenarios]") {
  CHECK(algo_at_1gib({}) == "Ring");
  CHECK(algo_at_1gib({"--set", "nccl.env.OFI_NCCL_TUNER_TYPE=\"Internal\""}) == "NVLSTree");
  // Another prefix is still refused, naming the three it takes.
  const auto bad = run_commsim({"run", kOfiSource + "/scenarios/examples/allreduce_h200x4.toml", "--set",
                                "nccl.env.CUDA_VISIBLE_DEVICES=\"0\""});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("(expected a name starting with NCCL_, OFI_NCCL_ or FI_)") != std::string::npos);
}

TEST_CASE("import k8s: a job's OFI_NCCL_ variables reach [nccl.env]", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("ofi-import");
  std::string yaml = scenarios_test::slurp(kOfiSource + "/scenarios/examples/inputs/indexed_job_p5_2x8.yaml");
  const std::string anchor = "            - {name: FI_PROVIDER, value: efa}\n";
  REQUIRE(yaml.find(anchor) != std::string::npos);
  yaml.replace(yaml.find(anchor), anchor.size(),
               anchor + "            - {name: OFI_NCCL_TUNER_TYPE, value: Internal}\n");
  std::ofstream(dir / "job.yaml") << yaml;
  const std::string out = (dir / "job.toml").string();
  const auto r = run_commsim({"import", "k8s", (dir / "job.yaml").string(), "--out", out});
  REQUIRE(r.exit_code == 0);
  CHECK(std::regex_search(scenarios_test::slurp(out), std::regex("OFI_NCCL_TUNER_TYPE = \"Internal\"")));
  fs::remove_all(dir);
}
