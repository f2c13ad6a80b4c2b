// ZeRO's stage and the strategy (scenarios/load/deepspeed_config.cpp, models/workload/layout.hpp):
// the DeepSpeed JSON's zero_optimization.stage 1 or 2 picks zero1 / zero2 when the scenario names
// no strategy, parallel.strategy = "zero1" / "zero2" sets the stage when none is written, both
// written and different is an error at zero.stage; overlap_comm defaults off at stages 1-2.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/error.hpp"
#include "models/workload/layout.hpp"
#include "models/model/model_shape.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios::load_scenario;
using scenarios::load_scenario_text;

namespace {
const std::string kBase = R"([cluster]
instance = "p4d.24xlarge"
[model]
preset = "llama-3-8b"
)";

scenarios::LoadedScenario with_json(const fs::path& dir, const std::string& json, const std::string& extra = "") {
  std::ofstream(dir / "ds.json") << json;
  std::ofstream(dir / "s.toml") << "deepspeed_config = \"ds.json\"\n" + kBase + extra;
  return load_scenario((dir / "s.toml").string());
}

// make_layout's SpecError as the user sees it ("" when the layout is accepted).
std::string layout_error(const scenarios::LoadedScenario& s) {
  models::ModelSpec m;
  m.preset = "llama-3-8b";
  try {
    models::workload::make_layout(s.spec, models::model::resolve_model(m), 8, 8);
  } catch (const models::SpecError& e) {
    return s.to_user_error(e).what();
  }
  return "";
}
}  // namespace

TEST_CASE("scenarios: the DeepSpeed JSON's stage 1 or 2 selects zero1 or zero2", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("zero_stage");
  for (int stage : {1, 2}) {
    const auto s = with_json(dir, R"({"zero_optimization": {"stage": )" + std::to_string(stage) + "}}");
    CHECK(s.spec.parallel.strategy == "zero" + std::to_string(stage));
    CHECK(s.spec.zero.stage == stage);
    CHECK_FALSE(s.spec.zero.overlap_comm);  // DeepSpeedZeroConfig.overlap_comm_valid: on at stage 3 only
    CHECK(layout_error(s).empty());
  }
  // overlap_comm written (or "auto", the Trainer's: stage == 3) wins.
  auto s = with_json(dir, R"({"zero_optimization": {"stage": 2, "overlap_comm": true}})");
  CHECK(s.spec.zero.overlap_comm);
  s = with_json(dir, R"({"zero_optimization": {"stage": 2, "overlap_comm": "auto"}})");
  CHECK_FALSE(s.spec.zero.overlap_comm);
  s = with_json(dir, R"({"zero_optimization": {"stage": 3}})");
  CHECK(s.spec.parallel.strategy == "zero3");
  CHECK(s.spec.zero.overlap_comm);
  // A strategy written beside a contradicting stage: the error at the JSON's stage.
  s = with_json(dir, R"({"zero_optimization": {"stage": 2}})", "[parallel]\nstrategy = \"zero3\"\n");
  CHECK(s.spec.parallel.strategy == "zero3");
  CHECK(layout_error(s) == (dir / "ds.json").string() +
                               ":1:24: zero.stage = 2 but strategy = \"zero3\" (expected the same ZeRO stage in both, "
                               "or only one of the two: the other follows; stage 0 is strategy ddp)");
  // Other strategies do not read [zero].
  s = with_json(dir, R"({"zero_optimization": {"stage": 1}})", "[parallel]\nstrategy = \"fsdp\"\n");
  CHECK(s.spec.parallel.strategy == "fsdp");
  CHECK(layout_error(s).empty());
  fs::remove_all(dir);
}

TEST_CASE("scenarios: strategy = \"zero1\" or \"zero2\" sets the stage, and [zero] stage and --set agree with it",
          "[scenarios]") {
  auto s = load_scenario_text(kBase + "[parallel]\nstrategy = \"zero2\"\n", "z.toml");
  CHECK(s.spec.zero.stage == 2);
  CHECK_FALSE(s.spec.zero.overlap_comm);
  s = load_scenario_text(kBase + "[zero]\nstage = 1\noverlap_comm = true\n", "z.toml");
  CHECK(s.spec.parallel.strategy == "zero1");
  CHECK(s.spec.zero.overlap_comm);
  s = load_scenario_text(kBase + "[parallel]\nstrategy = \"zero3\"\n", "z.toml", {"parallel.strategy=zero1"});
  CHECK(s.spec.zero.stage == 1);
  s = load_scenario_text(kBase + "[parallel]\nstrategy = \"zero1\"\n[zero]\nstage = 2\n", "z.toml");
  CHECK(layout_error(s).rfind("z.toml:8:9: zero.stage = 2 but strategy = \"zero1\"", 0) == 0);
  // [[jobs]]: each job's own tables.
  const auto jobs = load_scenario_text(R"([cluster]
instance = "p4d.24xlarge"
nodes = 2
[[jobs]]
nodes = 1
[jobs.model]
preset = "llama-3-8b"
[jobs.zero]
stage = 2
[[jobs]]
nodes = 1
[jobs.model]
preset = "llama-3-8b"
[jobs.parallel]
strategy = "zero1"
)",
                                       "j.toml");
  REQUIRE(jobs.spec.jobs.size() == 2);
  CHECK(jobs.spec.jobs[0].parallel.strategy == "zero2");
  CHECK(jobs.spec.jobs[1].zero.stage == 1);
}

TEST_CASE("scenarios: hsdp's dp_shard is read and checked where it is written", "[scenarios]") {
  const auto s = load_scenario_text(kBase + "[parallel]\nstrategy = \"hsdp\"\ndp_shard = 3\n", "h.toml");
  CHECK(s.spec.parallel.dp_shard == 3);
  CHECK(layout_error(s) ==
        "h.toml:7:12: dp_shard = 3 does not divide the 8 GPUs (expected a divisor of the GPU count)");
  CHECK_THROWS_WITH(load_scenario_text(kBase + "[parallel]\nstrategy = \"hsdp\"\ndp_shard = 0\n", "h.toml"),
                    Catch::Contains("h.toml:7:12"));
}
