// `commsim import k8s` beyond one pod template: a DeepSpeed JSON's batch numbers and precision,
// and a PyTorchJob whose Master and Worker templates differ.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "scenarios/import/k8s_job.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios::UserError;
using scenarios_test::run_commsim;

namespace {
const std::string kJobInputs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";
}

TEST_CASE("commsim import k8s: a DeepSpeed JSON's batch numbers and precision are the imported values", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-ds-numbers");
  const std::string ds = (dir / "ds.json").string(), out = (dir / "s.toml").string();
  std::ofstream(ds) << "{\"train_micro_batch_size_per_gpu\": 4, \"gradient_accumulation_steps\": 8,\n"
                       " \"train_batch_size\": 128, \"fp16\": {\"enabled\": true},\n"
                       " \"zero_optimization\": {\"stage\": 3}}\n";
  const auto r = run_commsim({"import", "k8s", kJobInputs + "pytorchjob_p4d_1x4.yaml", "--deepspeed", ds, "--model",
                              "llama-3-8b", "--out", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string toml = scenarios_test::slurp(out);
  CHECK(toml.find("micro_batch = 4  # ds.json: train_micro_batch_size_per_gpu (the DeepSpeed config)") !=
        std::string::npos);
  CHECK(toml.find("grad_accum = 8  # ds.json: gradient_accumulation_steps (the DeepSpeed config)") !=
        std::string::npos);
  CHECK(toml.find("dtype = \"fp16\"  # ds.json: fp16.enabled (the DeepSpeed config)") != std::string::npos);
  // The loader's agreement checks pass (they refused micro_batch = 1 against the JSON's 4).
  const auto s = scenarios::load_scenario(out).spec;
  CHECK(s.training.micro_batch == 4);
  CHECK(s.training.grad_accum == 8);
  CHECK(s.training.dtype == "fp16");
  CHECK(s.training.global_batch == 128);

  // train_batch_size without gradient_accumulation_steps: the accumulation is left to follow from it.
  std::ofstream(ds) << "{\"train_micro_batch_size_per_gpu\": 4, \"train_batch_size\": 128, \"bf16\": {\"enabled\": "
                       "true}, \"zero_optimization\": {\"stage\": 3}}\n";
  REQUIRE(run_commsim({"import", "k8s", kJobInputs + "pytorchjob_p4d_1x4.yaml", "--deepspeed", ds, "--model",
                       "llama-3-8b", "--out", out})
              .exit_code == 0);
  const std::string derived = scenarios_test::slurp(out);
  CHECK(derived.find("grad_accum =") == std::string::npos);
  CHECK(derived.find("# grad_accum: ds.json's train_batch_size = 128 / (micro_batch x data-parallel ranks), as "
                     "DeepSpeed derives it") != std::string::npos);
  const auto d = scenarios::load_scenario(out).spec;
  CHECK(d.training.global_batch == 128);
  CHECK(d.training.dtype == "bf16");
  std::filesystem::remove_all(dir);
}

TEST_CASE("import k8s: a PyTorchJob's Master template counts beside its Workers'", "[scenarios]") {
  const std::string yaml = R"(kind: PyTorchJob
metadata: {name: mw}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: t
              command: ["torchrun", "--nproc_per_node=4", "train.py", "--master"]
              env:
                - {name: NCCL_ALGO, value: Tree}
                - {name: NCCL_PROTO, value: Simple}
              resources: {limits: {nvidia.com/gpu: 4}}
    Worker:
      replicas: 1
      template:
        spec:
          containers:
            - name: t
              command: ["torchrun", "--nproc_per_node=4", "train.py"]
              env:
                - {name: NCCL_PROTO, value: Simple}
              resources: {limits: {nvidia.com/gpu: 4}}
)";
  // Unequal GPUs are refused at the Master's limit: the scenario's pods are of one size.
  std::string eight = yaml;
  eight.replace(eight.find("nvidia.com/gpu: 4"), 17, "nvidia.com/gpu: 8");
  try {
    scenarios::parse_k8s_job(eight, "mw.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "mw.yaml:15:52: spec.pytorchReplicaSpecs.Master: 8 GPUs per pod where each Worker has 4: commsim "
          "simulates pods of one size (expected the Master's nvidia.com/gpu equal to the Worker's)");
  }
  // Equal GPUs: 2 pods; a variable only the Master sets is left out and said; one both set is kept.
  const auto job = scenarios::parse_k8s_job(yaml, "mw.yaml");
  CHECK(job.pods == 2);
  CHECK(job.gpus_per_pod == 4);
  REQUIRE(job.env.size() == 1);
  CHECK(job.env[0] == std::make_pair(std::string("NCCL_PROTO"), std::string("Simple")));
  auto noted = [&](const std::string& text) {
    for (const auto& n : job.notes)
      if (n == text) return true;
    return false;
  };
  CHECK(
      noted("NCCL_ALGO=Tree is set in the Master's template, not in the Worker's: left out of [nccl.env] (set it "
            "there if the ranks run with it)"));
  CHECK(noted("the Master's command differs from the Worker's: the Worker's is read"));
  CHECK_FALSE(std::any_of(job.notes.begin(), job.notes.end(),
                          [](const std::string& n) { return n.find("EFA") != std::string::npos; }));

  // EFA devices and hostNetwork in the Master's template only: what the Worker's pods would do
  // differently (fall back to Socket, stay apart) is said, not merged away.
  std::string master_only = yaml;
  master_only.replace(master_only.find("resources: {limits: {nvidia.com/gpu: 4}}"), 40,
                      "resources: {limits: {nvidia.com/gpu: 4, vpc.amazonaws.com/efa: 4}}");
  master_only.replace(master_only.find("          containers:"), 21,
                      "          hostNetwork: true\n          containers:");
  const auto mixed = scenarios::parse_k8s_job(master_only, "mw.yaml");
  auto says = [&](const std::string& part) {
    return std::any_of(mixed.notes.begin(), mixed.notes.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
  };
  CHECK(
      says("the Worker's template has no EFA device, the Master's vpc.amazonaws.com/efa: 4: a pod without EFA falls "
           "back to NCCL's Socket transport"));
  CHECK(says("hostNetwork is set in the Master's template only"));
}
