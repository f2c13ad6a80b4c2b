// Hugging Face Trainer arguments (trainer_args.hpp), on seed 002's file
// (scenarios/examples/inputs/seed002_trainer_args.txt), the command-line form and a bad value.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "scenarios/import/trainer_args.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios::UserError;

namespace {
const std::string kTrainerInputs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";
}

TEST_CASE("import k8s: Hugging Face Trainer arguments (seed 002 and command-line form)", "[scenarios]") {
  const auto a = scenarios::read_trainer_args(kTrainerInputs + "seed002_trainer_args.txt");
  CHECK(a.micro_batch == 1);
  CHECK(a.grad_accum == 4);
  CHECK(a.steps == 50);
  CHECK(a.bf16 == true);
  CHECK(a.grad_checkpointing == true);
  CHECK(a.deepspeed == "llama-3-8b-stage3.json");
  const auto b = scenarios::parse_trainer_args(
      "python train.py --per_device_train_batch_size 2 --gradient_accumulation_steps=8 --max_steps 100 --bf16 True\n",
      "cli.txt");
  CHECK(b.micro_batch == 2);
  CHECK(b.grad_accum == 8);
  CHECK(b.steps == 100);
  CHECK(b.bf16 == true);
  try {
    scenarios::parse_trainer_args("per_device_train_batch_size=1,\nmax_steps=lots,\n", "bad.txt");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "bad.txt:2:11: max_steps: 'lots' is not a positive integer (expected a whole number from 1 to 100000000)");
  }
}

// The Trainer's parser reads a bare boolean flag as true (HfArgumentParser: nargs="?", const=True).
TEST_CASE("import k8s: bare Trainer flags are true, and fsdp is read", "[scenarios]") {
  const auto a = scenarios::parse_trainer_args(
      "--per_device_train_batch_size 8 --fp16 --gradient_checkpointing\n--fsdp \"full_shard auto_wrap\" --bf16\n",
      "args.txt");
  CHECK(a.micro_batch == 8);
  CHECK(a.fp16 == true);
  CHECK(a.grad_checkpointing == true);
  CHECK(a.bf16 == true);
  REQUIRE(a.fsdp);
  CHECK(*a.fsdp == "full_shard auto_wrap");
  CHECK(a.fsdp_choice.strategy == "fsdp");
  // The Python form, and `--max_steps -1` (the Trainer's "not set") still read as before.
  const auto b = scenarios::parse_trainer_args("fsdp=\"shard_grad_op\",\n--max_steps -1 --bf16 False\n", "b.txt");
  CHECK(b.fsdp_choice.strategy == "zero2");
  CHECK_FALSE(b.steps);
  CHECK(b.bf16 == false);
  // A flag that takes a value cannot be bare; an FSDP option the Trainer does not know is refused.
  try {
    scenarios::parse_trainer_args("--bf16 --per_device_train_batch_size\n", "c.txt");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "c.txt:1:8: per_device_train_batch_size: --per_device_train_batch_size without a "
          "value (expected --per_device_train_batch_size N)");
  }
  try {
    scenarios::parse_trainer_args("--fsdp full_shrad\n", "d.txt");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).rfind("d.txt:1:8: fsdp: 'full_shrad' is not an FSDP option (expected ", 0) == 0);
  }
}

TEST_CASE("import k8s: --trainer-args reads the script's sequence length and model as the job's command does",
          "[scenarios]") {
  const auto a = scenarios::parse_trainer_args(
      "python sft.py --model_name_or_path meta-llama/Meta-Llama-3-8B --max_seq_length 4096 --bf16\n", "cli.txt");
  CHECK(a.seq == 4096);
  CHECK(a.seq_key == "max_seq_length");
  CHECK(a.model_id == "meta-llama/Meta-Llama-3-8B");
  for (const char* key : {"max_seq_len", "model_max_length"}) {
    INFO(key);
    CHECK(scenarios::parse_trainer_args(std::string(key) + "=8192,\n", "t.txt").seq == 8192);
  }
  // Through the import: the job names neither; the file's values are written, with where they came from.
  const auto dir = scenarios_test::fresh_temp_dir("import-trainer-seq");
  const std::string args = (dir / "args.txt").string(), out = (dir / "s.toml").string();
  std::ofstream(args) << "--model_name_or_path meta-llama/Meta-Llama-3-8B --max_seq_length 4096 "
                         "--per_device_train_batch_size 1\n";
  const auto r = scenarios_test::run_commsim(
      {"import", "k8s", kTrainerInputs + "trainjob_p4d_4x1.yaml", "--trainer-args", args, "--out", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string toml = scenarios_test::slurp(out);
  CHECK(toml.find("seq = 4096  # args.txt: max_seq_length") != std::string::npos);
  CHECK(toml.find("sequence length not in the job") == std::string::npos);
  CHECK(toml.find("preset = \"llama-3-8b\"  # args.txt: model_name_or_path meta-llama/Meta-Llama-3-8B has the shape "
                  "of preset llama-3-8b") != std::string::npos);
  std::filesystem::remove_all(dir);
}
