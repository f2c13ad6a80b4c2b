// torchtitan job configs (torchtitan_config.hpp) on torchtitan's own llama3_8b.toml and
// llama3_70b.toml (tests/scenarios/import/torchtitan/, README there): the scenario's keys, the
// written scenario loaded and run, HSDP, the 2D refusal and type errors at FILE:LINE:COL, and the
// command's bad-input corpus (tests/scenarios/import/torchtitan/bad/).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/run/run.hpp"
#include "scenarios/import/torchtitan_config.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios::UserError;
using scenarios_test::run_commsim;
using scenarios_test::slurp;

namespace {

const fs::path kTitanDir = fs::path(COMMSIM_SOURCE_DIR) / "tests/scenarios/import/torchtitan";

std::string titan_file(const std::string& name) { return slurp(kTitanDir / name); }

scenarios::TorchtitanOptions on_p4d(int nodes) {
  scenarios::TorchtitanOptions o;
  o.instance = "p4d.24xlarge";
  o.nodes = nodes;
  return o;
}

// The error a config gives, as one line.
std::string titan_error(const std::string& text, const scenarios::TorchtitanOptions& o,
                        const std::string& name = "t.toml") {
  try {
    scenarios::import_torchtitan(text, name, o);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// `text` with the first line starting `key` replaced by `line`.
std::string with_line(std::string text, const std::string& key, const std::string& line) {
  const size_t at = text.find("\n" + key);
  REQUIRE(at != std::string::npos);
  const size_t end = text.find('\n', at + 1);
  return text.replace(at + 1, end - at - 1, line);
}

}  // namespace

TEST_CASE("import torchtitan: llama3_8b.toml becomes an FSDP2 scenario that runs", "[scenarios]") {
  const auto r = scenarios::import_torchtitan(titan_file("llama3_8b.toml"), "llama3_8b.toml", on_p4d(8));
  CHECK(r.strategy == "fsdp");
  CHECK(r.gpus == 64);  // the file's note: "a preset for 64 A100 GPUs"
  CHECK(r.nodes == 8);
  const auto loaded = scenarios::load_scenario_text(r.toml, "tt.toml");
  const auto& s = loaded.spec;
  CHECK(s.cluster.instance == "p4d.24xlarge");
  CHECK(s.cluster.nodes == 8);
  CHECK(s.placement.gpus_per_pod == 8);
  CHECK(s.parallel.strategy == "fsdp");
  REQUIRE(s.model);
  CHECK(s.model->preset == "llama-3.1-8b");
  CHECK(s.model->seq == 8192);                  // training.seq_len
  CHECK(s.training.micro_batch == 1);           // training.local_batch_size
  CHECK(s.training.global_batch == 0);          // global_batch_size not given: no accumulation
  CHECK(s.training.steps == 1000);              // training.steps
  CHECK(s.training.dtype == "bf16");            // mixed_precision_param's default
  CHECK(s.training.param_dtype == "fp32");      // training.dtype's default
  CHECK(s.training.reduce_dtype == "fp32");     // mixed_precision_reduce's default
  CHECK(s.training.optimizer_impl == "fused");  // optimizer.implementation's default
  CHECK(s.training.repeat_kv);                  // torchtitan's TOML-era models copied the key/value heads
  // selective_ac_option = "op": torchtitan's per-op policy, read as selective_op.
  CHECK(s.training.recompute == "selective_op");
  CHECK(r.toml.find("recompute = \"selective_op\"  # llama3_8b.toml: activation_checkpoint.mode = \"selective\", "
                    "selective_ac_option = \"op\"") != std::string::npos);
  CHECK(r.chosen.empty());
  // Each value read is listed with its torchtitan key.
  auto listed = [&](const std::string& line) { return std::find(r.read.begin(), r.read.end(), line) != r.read.end(); };
  CHECK(listed("training.seq_len = 8192 -> model.seq"));
  CHECK(listed("training.local_batch_size = 1 -> training.micro_batch"));
  CHECK(listed("training.steps = 1000 -> training.steps"));
  CHECK(r.toml.find("micro_batch = 1  # llama3_8b.toml: training.local_batch_size") != std::string::npos);

  // The scenario runs: two hosts keep the test short (--nodes 2, 16 ranks).
  const auto small = scenarios::import_torchtitan(titan_file("llama3_8b.toml"), "llama3_8b.toml", on_p4d(2));
  const auto result = models::run_scenario(scenarios::load_scenario_text(small.toml, "tt2.toml").spec);
  CHECK(result.step_time_s > 0);
}

TEST_CASE("import torchtitan: llama3_70b.toml's 8-way TP beside FSDP2 is refused at its key", "[scenarios]") {
  // tensor_parallel_degree = 8 is line 41, its value at column 26.
  CHECK(titan_error(titan_file("llama3_70b.toml"), on_p4d(8), "llama3_70b.toml") ==
        "llama3_70b.toml:41:26: parallelism.tensor_parallel_degree = 8: tensor parallelism beside torchtitan's "
        "FSDP2/DDP (2D/3D parallelism) is not modelled: commsim's fsdp and hsdp strategies have no tp, pp, cp or ep, "
        "and its megatron strategy pairs them with Megatron's distributed optimizer, not FSDP2's per-block "
        "all-gathers (expected parallelism.tensor_parallel_degree = 1; for a what-if, write a strategy = "
        "\"megatron\" scenario by hand)");
  // The same file without TP is plain FSDP2: full recompute, local batch 8.
  const std::string no_tp =
      with_line(titan_file("llama3_70b.toml"), "tensor_parallel_degree", "tensor_parallel_degree = 1");
  const auto r = scenarios::import_torchtitan(no_tp, "llama3_70b.toml", on_p4d(8));
  const auto s = scenarios::load_scenario_text(r.toml, "tt70.toml").spec;
  CHECK(s.model->preset == "llama-3.1-70b");
  CHECK(s.training.micro_batch == 8);
  CHECK(s.training.recompute == "full");  // activation_checkpoint.mode = "full", read as written
  CHECK(r.chosen.empty());
  CHECK(s.parallel.strategy == "fsdp");
  // Pipeline and context parallelism are refused the same way, at their keys.
  const std::string pp = with_line(no_tp, "pipeline_parallel_degree", "pipeline_parallel_degree = 2");
  CHECK(titan_error(pp, on_p4d(8)).rfind("t.toml:42:28: parallelism.pipeline_parallel_degree = 2: pipeline", 0) == 0);
}

TEST_CASE("import torchtitan: replicate x shard is HSDP, replicate alone DDP", "[scenarios]") {
  const std::string base = titan_file("llama3_8b.toml");
  const std::string hsdp = with_line(base, "data_parallel_replicate_degree", "data_parallel_replicate_degree = 4");
  const auto r = scenarios::import_torchtitan(hsdp, "hsdp.toml", on_p4d(4));
  const auto s = scenarios::load_scenario_text(r.toml, "hsdp_out.toml").spec;
  CHECK(s.parallel.strategy == "hsdp");
  CHECK(s.parallel.dp_shard == 8);  // shard -1: 32 GPUs / 4 replicas
  CHECK(std::find(r.read.begin(), r.read.end(),
                  "data_parallel_shard_degree -1: the 32 ranks over 4 replicas -> parallel.dp_shard = 8") !=
        r.read.end());
  CHECK(r.gpus == 32);
  CHECK(models::run_scenario(s).step_time_s > 0);
  // Both degrees given: the world size follows from them, without --nodes.
  const std::string both = with_line(hsdp, "data_parallel_shard_degree", "data_parallel_shard_degree = 8");
  scenarios::TorchtitanOptions o;
  o.instance = "p4d.24xlarge";
  const auto b = scenarios::import_torchtitan(both, "both.toml", o);
  CHECK(b.gpus == 32);
  CHECK(b.nodes == 4);
  // ... and must be the world size given.
  CHECK(titan_error(both, on_p4d(2)) ==
        "t.toml:40:30: data_parallel_replicate_degree x data_parallel_shard_degree = 4 x 8 = 32 ranks but the job "
        "runs 16 (--nodes 2 x 8 GPUs) (expected their product to be the world size, as torchtitan's ParallelDims "
        "requires; or data_parallel_shard_degree = -1)");
  // Replicate over every rank, no sharding: DDP, no reduce_dtype (FSDP2's alone).
  const std::string ddp = with_line(both, "data_parallel_shard_degree", "data_parallel_shard_degree = 1");
  const auto d = scenarios::import_torchtitan(ddp, "ddp.toml", o);
  CHECK(d.strategy == "ddp");
  CHECK(d.toml.find("reduce_dtype") == std::string::npos);
  const auto ds = scenarios::load_scenario_text(d.toml, "ddp_out.toml").spec;
  CHECK(ds.parallel.strategy == "ddp");
  CHECK(ds.training.param_dtype == "fp32");  // torch.autocast computes in bf16 on fp32 parameters
}

TEST_CASE("import torchtitan: a known key of the wrong type is an error at its value", "[scenarios]") {
  const std::string base = titan_file("llama3_8b.toml");
  CHECK(titan_error(with_line(base, "local_batch_size", "local_batch_size = \"1\""), on_p4d(8)) ==
        "t.toml:32:20: training.local_batch_size: got a string \"1\" (expected an integer from 1 to 1048576)");
  CHECK(titan_error(with_line(base, "enable=false", "enable = \"no\""), on_p4d(8)) ==
        "t.toml:54:10: compile.enable: got a string \"no\" (expected true or false)");
  // Unknown keys are ignored, as torchtitan's own sections hold many commsim does not read.
  const auto r = scenarios::import_torchtitan(with_line(base, "max_norm", "max_norm = 1.0\nnot_a_titan_key = \"x\""),
                                              "t.toml", on_p4d(8));
  CHECK(scenarios::load_scenario_text(r.toml, "t_out.toml").spec.training.micro_batch == 1);
}

TEST_CASE("import torchtitan: the command writes atomically and lists what it read", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("titan");
  const std::string out = (dir / "tt.toml").string();
  const std::string config = (kTitanDir / "llama3_8b.toml").string();
  auto r = run_commsim({"import", "torchtitan", config, "--instance", "p4d.24xlarge", "--nodes", "2", "--out", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("  training.seq_len = 8192 -> model.seq") != std::string::npos);
  CHECK(r.err.find("activation_checkpoint.mode = \"selective\", selective_ac_option = \"op\" -> "
                   "training.recompute = \"selective_op\"") != std::string::npos);
  CHECK(r.out.find("fsdp on 16 GPUs, 2 hosts") != std::string::npos);
  CHECK(run_commsim({"run", out}).exit_code == 0);
  // A refused config leaves the existing output as it was.
  const std::string before = slurp(out);
  const std::string tp = (kTitanDir / "llama3_70b.toml").string();
  r = run_commsim({"import", "torchtitan", tp, "--instance", "p4d.24xlarge", "--nodes", "8", "--out", out});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("llama3_70b.toml:41:26: parallelism.tensor_parallel_degree = 8") != std::string::npos);
  CHECK(slurp(out) == before);
  // Without --out the scenario goes to standard output.
  r = run_commsim({"import", "torchtitan", config, "--instance", "p4d.24xlarge", "--gpus", "8"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("strategy = \"fsdp\"") != std::string::npos);
  fs::remove_all(dir);
}

// Each bad/*.toml names its message (`# expect:`) and place (`# at: LINE:COL`), and is imported on
// 8 x p4d.24xlarge unless `# args: --gpus N` says otherwise; {file} in a message is the file's path.
TEST_CASE("import torchtitan: the bad-input corpus gives each file's message at its place", "[scenarios]") {
  int cases = 0;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kTitanDir / "bad"))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string expect, at;
    scenarios::TorchtitanOptions o = on_p4d(8);
    std::ifstream in(path);
    for (std::string line; std::getline(in, line) && line.rfind("# ", 0) == 0;) {
      if (line.rfind("# expect: ", 0) == 0) {
        expect = line.substr(10);
        // {file} stands for the file itself, wherever the checkout lives.
        for (auto at = expect.find("{file}"); at != std::string::npos; at = expect.find("{file}"))
          expect.replace(at, 6, path.string());
      }
      if (line.rfind("# at: ", 0) == 0) at = line.substr(6);
      if (line.rfind("# args: --gpus ", 0) == 0) {
        o.nodes.reset();
        o.gpus = std::stoi(line.substr(15));
      }
    }
    INFO(path);
    REQUIRE_FALSE(expect.empty());
    CHECK(titan_error(slurp(path), o, path.string()) == path.string() + ":" + at + ": " + expect);
    ++cases;
  }
  CHECK(cases >= 6);
}

TEST_CASE("import torchtitan: selective_ac_option N checkpoints every N-th block, as torchtitan wraps them",
          "[scenarios]") {
  // llama3_8b.toml's option "op" turned into "2", torchtitan's default: full recompute on blocks 2,
  // 4, ..., read, not chosen, and the scenario runs with half of the blocks recomputed.
  const std::string two = with_line(titan_file("llama3_8b.toml"), "selective_ac_option", "selective_ac_option = \"2\"");
  const auto r = scenarios::import_torchtitan(two, "llama3_8b.toml", on_p4d(8));
  const auto s = scenarios::load_scenario_text(r.toml, "tt8.toml").spec;
  CHECK(s.training.recompute == "full");
  CHECK(s.training.checkpoint_every == 2);
  CHECK(r.chosen.empty());
  CHECK(r.toml.find("checkpoint_every = 2  # llama3_8b.toml: activation_checkpoint.mode = \"selective\", "
                    "selective_ac_option = \"2\": one block in 2 checkpointed") != std::string::npos);
  // "1" (and "0") is every block: full recompute, no checkpoint_every.
  const std::string one = with_line(titan_file("llama3_8b.toml"), "selective_ac_option", "selective_ac_option = \"1\"");
  const auto s1 =
      scenarios::load_scenario_text(scenarios::import_torchtitan(one, "llama3_8b.toml", on_p4d(8)).toml, "tt8.toml")
          .spec;
  CHECK(s1.training.recompute == "full");
  CHECK(s1.training.checkpoint_every == 1);
}
