// A DeepSpeed JSON's train_batch_size (scenarios/load/deepspeed_config.cpp, checked in
// models/workload/layout.cpp where dp is known), as DeepSpeed's _configure_train_batch_size reads
// it: train_batch_size = micro x gradient_accumulation_steps x dp. With all three given they must
// agree, else an error at the JSON's key naming the three numbers; without
// gradient_accumulation_steps it is derived, train_batch_size / (micro x dp); without a micro-batch
// it is refused (DeepSpeed would derive the micro-batch, commsim does not); "auto" is not checked.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/error.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/layout.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

namespace {
// 8 GPUs of one p4d.24xlarge: dp = 8 under ZeRO-3.
scenarios::LoadedScenario with_batch_json(const fs::path& dir, const std::string& json, const std::string& extra = "") {
  std::ofstream(dir / "ds.json") << json;
  std::ofstream(dir / "s.toml") << "deepspeed_config = \"ds.json\"\n[cluster]\ninstance = \"p4d.24xlarge\"\n"
                                   "[model]\npreset = \"llama-3-8b\"\n" +
                                       extra;
  return scenarios::load_scenario((dir / "s.toml").string());
}

// The layout's grad_accum, or its error as the user sees it.
std::string grad_accum_of(const scenarios::LoadedScenario& s) {
  models::ModelSpec m;
  m.preset = "llama-3-8b";
  try {
    return std::to_string(models::workload::make_layout(s.spec, models::model::resolve_model(m), 8, 8).grad_accum);
  } catch (const models::SpecError& e) {
    return s.to_user_error(e).what();
  }
}
}  // namespace

TEST_CASE("deepspeed: train_batch_size must be micro x grad_accum x dp, at its key", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("ds_batch");
  const std::string json = (dir / "ds.json").string();
  // 32 = 2 x 2 x 8: accepted.
  CHECK(grad_accum_of(with_batch_json(dir, R"({"train_batch_size": 32, "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": 2})")) == "2");
  // 16 != 1 x 1 x 8: DeepSpeed stops at start-up, commsim at the key.
  CHECK(grad_accum_of(with_batch_json(dir,
                                      "{\n  \"train_batch_size\": 16,\n  \"train_micro_batch_size_per_gpu\": 1,\n"
                                      "  \"gradient_accumulation_steps\": 1\n}")) ==
        json +
            ":2:3: train_batch_size = 16 but micro_batch x grad_accum x dp = 1 x 1 x 8 = 8 (expected "
            "train_batch_size = 8, or a micro-batch and grad_accum whose product with dp is 16: DeepSpeed refuses "
            "to start otherwise)");
  // grad_accum from [training] counts as given too.
  CHECK(grad_accum_of(with_batch_json(dir, R"({"train_batch_size": 16, "train_micro_batch_size_per_gpu": 1})",
                                      "[training]\ngrad_accum = 4\n"))
            .find(":1:2: train_batch_size = 16 but micro_batch x grad_accum x dp = 1 x 4 x 8 = 32") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("deepspeed: train_batch_size without gradient_accumulation_steps derives it", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("ds_batch_derive");
  const std::string json = (dir / "ds.json").string();
  // 64 / (2 x 8) = 4 micro-batches per step.
  auto s = with_batch_json(dir, R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2})");
  CHECK(s.spec.training.global_batch == 64);
  CHECK(grad_accum_of(s) == "4");
  // Not a multiple of micro x dp: DeepSpeed's integer division would break its own assertion.
  CHECK(grad_accum_of(with_batch_json(dir, R"({"train_batch_size": 20, "train_micro_batch_size_per_gpu": 2})")) ==
        json +
            ":1:2: train_batch_size = 20 is not a multiple of micro_batch x dp = 2 x 8 = 16 (expected a multiple "
            "of micro_batch x dp)");
  // The micro-batch from [training] (or "auto", which is [training]'s).
  CHECK(grad_accum_of(with_batch_json(dir, R"({"train_batch_size": 64})", "[training]\nmicro_batch = 4\n")) == "2");
  CHECK(grad_accum_of(with_batch_json(dir, R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": "auto"})")) ==
        "8");
  // "auto" (the Trainer writes the product) is not checked.
  CHECK(grad_accum_of(with_batch_json(dir, R"({"train_batch_size": "auto", "gradient_accumulation_steps": 3})")) ==
        "3");
  // No micro-batch anywhere: DeepSpeed would derive it; commsim refuses, at the key.
  try {
    with_batch_json(dir, R"({"train_batch_size": 64})");
    FAIL("no error");
  } catch (const scenarios::UserError& e) {
    CHECK(std::string(e.what()).rfind(json + ":1:2: train_batch_size without a micro-batch", 0) == 0);
  }
  // [training].global_batch written and different: the two disagree.
  try {
    with_batch_json(dir, R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2})",
                    "[training]\nglobal_batch = 32\n");
    FAIL("no error");
  } catch (const scenarios::UserError& e) {
    CHECK(std::string(e.what()) == json +
                                       ":1:2: train_batch_size is 64 but training.global_batch is 32 (expected the "
                                       "same value, or \"auto\")");
  }
  fs::remove_all(dir);
}
