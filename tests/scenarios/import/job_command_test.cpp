// `commsim import k8s` reads the job's own command (scenarios/import/job_command.hpp, job_model.hpp):
// Hugging Face Trainer flags (model id through the offline table, per-device batch, --fsdp, bare
// --bf16 / --gradient_checkpointing), Megatron-LM flags, launchers, nodeAffinity, a config.json
// beside the job; and the shipped seed inputs without --model give scenarios that run. Before, the
// importer took the model from a file name only and made every such job a ddp step of defaults.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "scenarios/import/job_command.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kInputsOfJobCommand = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";

// A PyTorchJob running the Hugging Face example script under torchrun, pinned by nodeAffinity.
const char* kHfJob = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: sft
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          affinity:
            nodeAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms:
                  - matchExpressions:
                      - key: node.kubernetes.io/instance-type
                        operator: In
                        values: [p5.48xlarge]
          containers:
            - name: pytorch
              command: ["torchrun", "--nnodes=2", "--nproc_per_node=8", "run_clm.py",
                        "--model_name_or_path", "meta-llama/Meta-Llama-3-8B",
                        "--per_device_train_batch_size", "4", "--gradient_accumulation_steps", "8",
                        "--max_steps", "200", "--block_size", "4096", "--bf16", "--gradient_checkpointing",
                        "--fsdp", "full_shard auto_wrap"]
              resources:
                limits: {nvidia.com/gpu: 8, vpc.amazonaws.com/efa: 32}
)";
}  // namespace

TEST_CASE("job command: Trainer and launcher flags, bare booleans, --fsdp", "[scenarios]") {
  const auto c = scenarios::parse_job_command(
      "torchrun --nnodes=2 --nproc_per_node 8 train.py --model_name_or_path meta-llama/Meta-Llama-3-8B "
      "--per_device_train_batch_size=4 --bf16 --gradient_checkpointing --fsdp 'full_shard auto_wrap' "
      "--deepspeed ds.json --max_steps 100");
  CHECK(c.launcher == "torchrun");
  CHECK(c.nodes == 2);
  CHECK(c.procs_per_node == 8);
  CHECK(c.model_id == "meta-llama/Meta-Llama-3-8B");
  CHECK(c.micro_batch == 4);
  CHECK(c.bf16 == true);  // a bare flag is true
  CHECK(c.grad_checkpointing == true);
  CHECK(c.fsdp == "full_shard auto_wrap");
  CHECK(c.deepspeed == "ds.json");
  CHECK(c.steps == 100);
  CHECK(c.taken.size() == 9);  // one line per value, each naming its flag
  CHECK(c.taken[0] == "nodes = 2 (from --nnodes)");
}

TEST_CASE("job command: NCCL variables set in the shell command are found, mpirun's -x ones left to it",
          "[scenarios]") {
  const auto c = scenarios::parse_job_command(
      "export NCCL_PROTO=Simple NCCL_ALGO=Tree; NCCL_MIN_NCHANNELS=32 torchrun --nproc_per_node=8 train.py");
  CHECK(c.shell_env == std::vector<std::string>{"NCCL_PROTO=Simple", "NCCL_ALGO=Tree", "NCCL_MIN_NCHANNELS=32"});
  CHECK(c.procs_per_node == 8);
  const auto mpi = scenarios::parse_job_command("mpirun -np 16 -x NCCL_ALGO=Ring -genv FI_PROVIDER=efa python t.py");
  CHECK(mpi.shell_env.empty());
}

TEST_CASE("job command: Megatron-LM flags", "[scenarios]") {
  const auto c = scenarios::parse_job_command(
      "python pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 4 --micro-batch-size 1 "
      "--global-batch-size 512 --seq-length 4096 --sequence-parallel --use-distributed-optimizer "
      "--recompute-granularity selective --bf16 --train-iters 1000 --make-vocab-size-divisible-by 64");
  CHECK(c.megatron);
  CHECK(c.vocab_divisible_by == 64);  // parallel.make_vocab_size_divisible_by
  CHECK(c.tp == 8);
  CHECK(c.pp == 4);
  CHECK(c.micro_batch == 1);
  CHECK(c.global_batch == 512);
  CHECK(c.seq == 4096);
  CHECK(c.sequence_parallel);
  CHECK(c.distributed_optimizer);
  CHECK(c.recompute == "selective");
  CHECK(c.steps == 1000);
}

TEST_CASE("job command: Hugging Face model ids of the presets, offline", "[scenarios]") {
  CHECK(scenarios::preset_for_model_id("meta-llama/Meta-Llama-3-8B") == "llama-3-8b");
  CHECK(scenarios::preset_for_model_id("meta-llama/Meta-Llama-3-70B-Instruct") == "llama-3-70b");
  CHECK(scenarios::preset_for_model_id("meta-llama/Llama-3.1-405B") == "llama-3.1-405b");
  CHECK(scenarios::preset_for_model_id("/models/Llama-2-7b-hf") == "llama-2-7b");  // a local copy
  CHECK(scenarios::preset_for_model_id("mistralai/Mixtral-8x7B-v0.1") == "mixtral-8x7b");
  // Kimi K2's Base and Instruct, GLM-4.5 and its Base share a shape; GLM-4.5-Air is another model.
  CHECK(scenarios::preset_for_model_id("moonshotai/Kimi-K2-Instruct") == "kimi-k2");
  CHECK(scenarios::preset_for_model_id("moonshotai/Kimi-K2-Base") == "kimi-k2");
  CHECK(scenarios::preset_for_model_id("zai-org/GLM-4.5") == "glm-4.5");
  CHECK(scenarios::preset_for_model_id("zai-org/GLM-4.5-Base") == "glm-4.5");
  CHECK(scenarios::preset_for_model_id("zai-org/GLM-4.5-Air").empty());
  CHECK(scenarios::preset_for_model_id("Qwen/Qwen2-7B").empty());
}

TEST_CASE("commsim import k8s: the job's command gives model, batch, fsdp, bf16, checkpointing, and affinity the "
          "instance",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-cmd");
  const auto job = dir / "sft.yaml";
  std::ofstream(job) << kHfJob;
  const std::string out = (dir / "sft.toml").string();
  const auto r = run_commsim({"import", "k8s", job.string(), "--out", out});
  REQUIRE(r.exit_code == 0);
  const auto s = scenarios::load_scenario(out).spec;
  CHECK(s.cluster.instance == "p5.48xlarge");  // from nodeAffinity
  CHECK(s.cluster.nodes == 2);
  REQUIRE(s.model);
  CHECK(s.model->preset == "llama-3-8b");
  CHECK(s.model->seq == 4096);
  CHECK(s.training.micro_batch == 4);
  CHECK(s.training.grad_accum == 8);
  CHECK(s.training.steps == 200);
  CHECK(s.training.grad_checkpointing);
  CHECK(s.training.dtype == "bf16");
  CHECK(s.parallel.strategy == "fsdp");
  // Stderr says what came from where.
  CHECK(r.err.find("commsim import: read from the job's command:\n") != std::string::npos);
  CHECK(r.err.find("  training.micro_batch = 4 (from --per_device_train_batch_size)\n") != std::string::npos);
  CHECK(r.err.find("  model llama-3-8b: the job's command: meta-llama/Meta-Llama-3-8B has the shape of preset "
                   "llama-3-8b\n") != std::string::npos);
  CHECK(run_commsim({"run", out}).exit_code == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim import k8s: a config.json beside the job gives the model's shape", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-config");
  const auto job = dir / "job.yaml";
  std::string yaml = kHfJob;
  yaml.replace(yaml.find("meta-llama/Meta-Llama-3-8B"), 26, "/data/my-model");
  std::ofstream(job) << yaml;
  std::ofstream(dir / "config.json") << R"({"num_hidden_layers": 16, "hidden_size": 2048, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 8192, "vocab_size": 128256})";
  const std::string out = (dir / "s.toml").string();
  REQUIRE(run_commsim({"import", "k8s", job.string(), "--out", out}).exit_code == 0);
  const auto s = scenarios::load_scenario(out).spec;
  REQUIRE(s.model);
  CHECK(s.model->preset.empty());
  CHECK(s.model->layers == 16);
  CHECK(s.model->hidden == 2048);
  CHECK(s.model->kv_heads == 8);
  CHECK(s.model->vocab == 128256);
  CHECK(run_commsim({"run", out}).exit_code == 0);
  // The config.json read for the shape is an input: --out over it is refused, the file kept.
  const std::string config = (dir / "config.json").string(), before = scenarios_test::slurp(config);
  const auto over = run_commsim({"import", "k8s", job.string(), "--out", config});
  CHECK(over.exit_code == 2);
  CHECK(over.err.rfind(config + ":1:1: --out: '" + config + "' is an input", 0) == 0);
  CHECK(scenarios_test::slurp(config) == before);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim import k8s: the seed inputs without --model give scenarios that run, training values kept",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-seeds");
  const std::string out = (dir / "s.toml").string();
  // The seed 002 pod spec has no command: no model anywhere. The DeepSpeed config and the Trainer
  // arguments are still read and written; the layout runs as a 1 GiB all-reduce.
  auto r = run_commsim({"import", "k8s", kInputsOfJobCommand + "seed002_pod_spec.yaml", "--deepspeed",
                        kInputsOfJobCommand + "llama-3-8b-stage3.json", "--trainer-args", kInputsOfJobCommand + "seed002_trainer_args.txt",
                        "--out", out});
  REQUIRE(r.exit_code == 0);
  auto s = scenarios::load_scenario(out).spec;
  CHECK(s.collective);
  CHECK(s.training.micro_batch == 1);
  CHECK(s.training.grad_accum == 4);
  CHECK(s.training.steps == 50);
  CHECK(s.parallel.strategy == "zero3");
  CHECK(scenarios_test::slurp(out).find("deepspeed_config = ") != std::string::npos);
  CHECK(run_commsim({"run", out}).exit_code == 0);
  for (const char* input : {"seed001_trainjob_16x1_fixed.yaml", "trainjob_p4d_4x1.yaml", "pytorchjob_p4d_1x4.yaml",
                            "list_pytorchjob_g6e_2x4.yaml"}) {
    INFO(input);
    r = run_commsim({"import", "k8s", kInputsOfJobCommand + input, "--instance", "p4d.24xlarge", "--out", out});
    if (std::string(input).find("g6e") != std::string::npos)
      r = run_commsim({"import", "k8s", kInputsOfJobCommand + input, "--out", out});
    REQUIRE(r.exit_code == 0);
    CHECK(run_commsim({"run", out}).exit_code == 0);
  }
  std::filesystem::remove_all(dir);
}

// A --trainer-args file wins over the job's command, its bare flags true and its fsdp read by the
// Trainer's options (scenarios/import/fsdp_option.hpp).
TEST_CASE("commsim import k8s: --trainer-args' bare flags and fsdp set dtype, checkpointing and strategy",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-trainer-fsdp");
  const auto job = dir / "sft.yaml";
  std::ofstream(job) << kHfJob;
  const std::string out = (dir / "sft.toml").string();
  auto import_with = [&](const std::string& args) {
    std::ofstream(dir / "args.txt") << args;
    const auto r =
        run_commsim({"import", "k8s", job.string(), "--trainer-args", (dir / "args.txt").string(), "--out", out});
    REQUIRE(r.exit_code == 0);
    return scenarios::load_scenario(out).spec;
  };
  const auto fp16 = import_with("--per_device_train_batch_size 8 --fp16 --gradient_checkpointing\n");
  CHECK(fp16.training.micro_batch == 8);
  CHECK(fp16.training.dtype == "fp16");
  CHECK(fp16.training.grad_checkpointing);
  CHECK(fp16.parallel.strategy == "fsdp");  // the command's --fsdp full_shard

  CHECK(import_with("fsdp=\"hybrid_shard auto_wrap\"\n").parallel.strategy == "hsdp");
  const auto grad_op = import_with("--fsdp \"shard_grad_op offload\"\n");
  CHECK(grad_op.parallel.strategy == "zero2");
  CHECK(grad_op.zero.offload_optimizer == "cpu");
  CHECK(import_with("--fsdp no_shard\n").parallel.strategy == "ddp");
  CHECK(import_with("--fsdp \"\"\n").parallel.strategy == "ddp");  // the file turns the command's FSDP off
  std::filesystem::remove_all(dir);
}
