// nccl.version: the run's NCCL release, whose tuner picks the algorithms (models/nccl/tuner_tables.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/error.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace {
const std::string kBody =
    "\n[cluster]\ninstance = \"p5.48xlarge\"\nnodes = 2\n[collective]\nop = \"all_reduce\"\nbytes = \"1 GiB\"\n";
}

TEST_CASE("loader: nccl.version names the run's NCCL release", "[scenarios]") {
  const auto loaded = scenarios::load_scenario_text("nccl.version = \"2.18.5\"" + kBody, "v.toml");
  CHECK(loaded.spec.nccl_version == models::nccl::nccl_version_number(18, 5));
  // NCCL's banner form, and --set.
  const auto banner = scenarios::load_scenario_text("nccl.version = \"2.27.3+cuda12.9\"" + kBody, "v.toml");
  CHECK(banner.spec.nccl_version == 22703);
  const auto set = scenarios::load_scenario_text(kBody, "v.toml", {"nccl.version=\"2.21\""});
  CHECK(set.spec.nccl_version == 22100);
  CHECK(scenarios::load_scenario_text(kBody, "v.toml").spec.nccl_version == 0);  // the default
  // With [nccl.env] beside it.
  const auto both = scenarios::load_scenario_text(
      "[nccl]\nversion = \"2.23.4\"\n[nccl.env]\nNCCL_PROTO = \"Simple\"" + kBody, "v.toml");
  CHECK(both.spec.nccl_version == 22304);
  CHECK(both.spec.nccl_env.at("NCCL_PROTO") == "Simple");
}

TEST_CASE("loader: an NCCL release the tuner tables do not hold is refused at its key", "[scenarios]") {
  for (const auto& [value, says] :
       {std::pair<std::string, std::string>{"2.9.9", "older than the tuner tables commsim carries"},
        {"2.31.0", "newer than the tuner tables commsim carries"},
        {"two point eighteen", "is not an NCCL release"}}) {
    INFO(value);
    try {
      scenarios::load_scenario_text("nccl.version = \"" + value + "\"" + kBody, "v.toml");
      FAIL("no error");
    } catch (const scenarios::UserError& e) {
      CHECK(std::string(e.what()).find("v.toml:1:") == 0);
      CHECK(std::string(e.what()).find(says) != std::string::npos);
    }
  }
  // A number (--set nccl.version=2.28 reads as TOML's float) is refused with the quoting to use.
  try {
    scenarios::load_scenario_text(kBody, "v.toml", {"nccl.version=2.28"});
    FAIL("no error");
  } catch (const scenarios::UserError& e) {
    CHECK(std::string(e.what()).find("expected the release as a string") != std::string::npos);
  }
}

TEST_CASE("run: a scenario that names its NCCL release says so in its notes", "[scenarios]") {
  const std::string lambda = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/ib_2node/lambda_b200.toml";
  const auto r = scenarios_test::run_commsim({"run", lambda});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("nccl.version 2.26.2: that release's tuner tables and rules pick") != std::string::npos);
  const auto d = scenarios_test::run_commsim({"run", lambda, "--set", "nccl.version=\"2.30.7\""});
  CHECK(d.out.find("nccl.version 2.30.7") != std::string::npos);
}

TEST_CASE("run: every job of a [[jobs]] scenario is tuned by the scenario's NCCL release", "[scenarios]") {
  // Two 16 MiB all-reduces on two nodes each: 2.17's tuner (no NVLSTree, a ring of 2 nNodes network
  // steps) picks another algorithm than 2.30's, and the jobs' step says so.
  const auto dir = scenarios_test::fresh_temp_dir("jobs-version");
  const std::string path = (dir / "jobs.toml").string();
  std::ofstream(path) << "name = \"two jobs\"\nnccl.env.NCCL_NVLS_ENABLE = \"0\"\n[cluster]\ninstance = \"dgx-h100\"\n"
                         "nodes = 4\n[[jobs]]\nname = \"a\"\nnodes = [0, 1]\n[jobs.collective]\nop = \"all_reduce\"\n"
                         "bytes = \"16 MiB\"\n[[jobs]]\nname = \"b\"\nnodes = [2, 3]\n[jobs.collective]\n"
                         "op = \"all_reduce\"\nbytes = \"16 MiB\"\n";
  auto step = [&](const char* version) {
    const auto r =
        scenarios_test::run_commsim({"run", path, "--json", "--set", std::string("nccl.version=\"") + version + "\""});
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["step_time_s"].get<double>();
  };
  CHECK(step("2.17.1") > 1.3 * step("2.30.7"));
  std::filesystem::remove_all(dir);
}
