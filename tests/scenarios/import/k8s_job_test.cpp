// Kubernetes job importer (yaml-cpp) and `commsim import k8s`, on the seeds' inputs
// (scenarios/examples/inputs/, taken from seeds/001 and seeds/002) and broken YAML.
#include <catch2/catch.hpp>

#include <filesystem>

#include "scenarios/import/k8s_job.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios::UserError;
using scenarios_test::run_commsim;

namespace {
const std::string kInputs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";
}

TEST_CASE("import k8s: seed 002 pod spec (1 pod x 4 GPUs, hostIPC, p4d.24xlarge)", "[scenarios]") {
  const auto job = scenarios::read_k8s_job(kInputs + "seed002_pod_spec.yaml");
  CHECK(job.kind == "pod spec");
  CHECK(job.pods == 1);
  CHECK(job.gpus_per_pod == 4);
  CHECK(job.efa_per_pod == 4);
  CHECK(job.host_ipc);
  CHECK_FALSE(job.host_network);
  CHECK(job.instance_type == "p4d.24xlarge");
  REQUIRE(job.env.size() == 1);
  CHECK(job.env[0] == std::make_pair(std::string("NCCL_P2P_LEVEL"), std::string("NVL")));
}

TEST_CASE("import k8s: TrainJob, PyTorchJob and the seed 001 trainer block", "[scenarios]") {
  const auto tj = scenarios::read_k8s_job(kInputs + "trainjob_p4d_4x1.yaml");
  CHECK(tj.kind == "TrainJob");
  CHECK(tj.name == "llama-3-8b");
  CHECK(tj.pods == 4);
  CHECK(tj.procs_per_pod == 1);
  CHECK(tj.gpus_per_pod == 1);
  CHECK(tj.efa_per_pod == 1);
  CHECK(tj.instance_type == "p4d.24xlarge");  // from podSpecOverrides
  CHECK(tj.env.size() == 2);                  // HF_TOKEN is not NCCL's
  const auto pj = scenarios::read_k8s_job(kInputs + "pytorchjob_p4d_1x4.yaml");
  CHECK(pj.kind == "PyTorchJob");
  CHECK(pj.pods == 1);
  CHECK(pj.procs_per_pod == 4);
  CHECK(pj.gpus_per_pod == 4);
  CHECK(pj.host_ipc);
  const auto t1 = scenarios::read_k8s_job(kInputs + "seed001_trainjob_16x1_fixed.yaml");
  CHECK(t1.kind == "trainer block");
  CHECK(t1.pods == 16);
  CHECK(t1.gpus_per_pod == 1);  // "nvidia.com: 1" read as nvidia.com/gpu, with a note
  CHECK(t1.notes.size() == 2);
  // As pasted in the note, the torchrun command with '# comments' is not YAML: line 11.
  try {
    scenarios::read_k8s_job(kInputs + "seed001_trainjob_16x1.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.pos().line == 11);
    CHECK(e.message().find("invalid YAML") == 0);
  }
}

TEST_CASE("import k8s: YAML that is not a job, wrong types", "[scenarios]") {
  try {
    scenarios::parse_k8s_job("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n", "svc.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "svc.yaml:2:7: kind 'Service' is not a training job (expected kind TrainJob, PyTorchJob or Pod, "
          "a pod spec with containers, or a trainer: block)");
  }
  try {
    scenarios::parse_k8s_job(
        "kind: Pod\nspec:\n  containers:\n  - resources:\n      limits:\n        nvidia.com/gpu: four\n", "p.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.pos().line == 6);
    CHECK(e.pos().col == 25);
    CHECK(e.message().find("'four' is not a count") != std::string::npos);
  }
  CHECK_THROWS_AS(scenarios::parse_k8s_job("key: [unclosed\n", "u.yaml"), UserError);
  CHECK_THROWS_AS(scenarios::parse_k8s_job("hello: world\n", "h.yaml"), UserError);
  CHECK_THROWS_AS(scenarios::parse_k8s_job(std::string("kind: Pod\0\x01", 11), "b.yaml"), UserError);
}

TEST_CASE("commsim import k8s: scenarios that load and run, nothing written on error", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import");
  const std::string out = (dir / "s002.toml").string();
  auto r = run_commsim({"import", "k8s", kInputs + "seed002_pod_spec.yaml", "--deepspeed",
                        kInputs + "llama-3-8b-stage3.json", "--trainer-args", kInputs + "seed002_trainer_args.txt",
                        "--model", "llama-3-8b", "--out", out});
  REQUIRE(r.exit_code == 0);
  const auto s = scenarios::load_scenario(out).spec;
  CHECK(s.cluster.instance == "p4d.24xlarge");
  CHECK(s.placement.gpus_per_pod == 4);
  CHECK(s.nccl_env.at("NCCL_P2P_LEVEL") == "NVL");
  CHECK(s.model->preset == "llama-3-8b");
  CHECK(s.training.micro_batch == 1);
  CHECK(s.training.grad_accum == 4);
  CHECK(s.training.steps == 50);
  CHECK(s.training.grad_checkpointing);
  // from llama-3-8b-stage3.json: offload to CPU, reduce_bucket_size 5e7
  CHECK(s.zero.offload_optimizer == "cpu");
  CHECK(s.zero.reduce_bucket_size == Approx(5e7));
  CHECK(run_commsim({"run", out}).exit_code == 0);

  // The seed 001 layout: 16 pods x 1 GPU, packed 8 per p4d.24xlarge.
  const std::string out16 = (dir / "s001.toml").string();
  r = run_commsim(
      {"import", "k8s", kInputs + "seed001_trainjob_16x1_fixed.yaml", "--instance", "p4d.24xlarge", "--out", out16});
  REQUIRE(r.exit_code == 0);
  const auto s16 = scenarios::load_scenario(out16).spec;
  CHECK(s16.cluster.nodes == 2);
  CHECK(s16.placement.pods_per_node == 8);
  CHECK(s16.model->preset == "llama-3-8b");  // from "llama-3-8b.py" in the command

  const std::string bad = (dir / "bad.toml").string();
  r = run_commsim(
      {"import", "k8s", kInputs + "seed001_trainjob_16x1.yaml", "--instance", "p4d.24xlarge", "--out", bad});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind(kInputs + "seed001_trainjob_16x1.yaml:11:", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(bad));
  r = run_commsim({"import", "k8s", kInputs + "seed001_trainjob_16x1_fixed.yaml", "--out", bad});  // no instance
  CHECK(r.exit_code == 2);
  CHECK_FALSE(std::filesystem::exists(bad));
  std::filesystem::remove_all(dir);
}

TEST_CASE("import k8s: OMP_NUM_THREADS in the container env becomes training.cpu_threads", "[scenarios]") {
  const std::string pod =
      "kind: Pod\nspec:\n  containers:\n  - env:\n    - name: OMP_NUM_THREADS\n      value: \"1\"\n"
      "    - name: NCCL_P2P_LEVEL\n      value: NVL\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n";
  const auto job = scenarios::parse_k8s_job(pod, "p.yaml");
  REQUIRE(job.omp_threads.has_value());
  CHECK(*job.omp_threads == 1);
  REQUIRE(job.env.size() == 1);
  CHECK(job.env[0].first == "NCCL_P2P_LEVEL");
  try {
    scenarios::parse_k8s_job(
        "kind: Pod\nspec:\n  containers:\n  - env:\n    - name: OMP_NUM_THREADS\n      value: many\n", "q.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.pos().line == 6);
    CHECK(e.message().find("'many' is not a thread count") != std::string::npos);
  }
}

TEST_CASE("import k8s: a key written twice is refused with both places, as Kubernetes does", "[scenarios]") {
  try {
    scenarios::parse_k8s_job(
        "kind: Pod\nspec:\n  containers:\n  - resources:\n      limits:\n        nvidia.com/gpu: 4\n"
        "        nvidia.com/gpu: 4\n",
        "p.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "p.yaml:7:9: duplicate key 'nvidia.com/gpu' in one mapping, first at p.yaml:6:9 (expected each key once: "
          "Kubernetes refuses a key defined twice)");
  }
  CHECK_THROWS_WITH(
      scenarios::parse_k8s_job("kind: Pod\nspec:\n  hostIPC: true\n  hostIPC: false\n  containers: []\n", "p.yaml"),
      Catch::StartsWith("p.yaml:4:3: duplicate key 'hostIPC' in one mapping, first at p.yaml:3:3"));
  // The same key in two different mappings is fine (two containers with their own limits).
  const auto two = scenarios::parse_k8s_job(
      "containers:\n- resources:\n    limits:\n      nvidia.com/gpu: 2\n- resources:\n    limits:\n"
      "      nvidia.com/gpu: 2\n",
      "two.yaml");
  CHECK(two.gpus_per_pod == 4);
}

TEST_CASE("import k8s: 32,000 levels of flow or block nesting end in a placed error", "[scenarios]") {
  const std::string flow = "spec: " + std::string(32000, '[') + std::string(32000, ']') + "\n";
  CHECK_THROWS_WITH(scenarios::parse_k8s_job(flow, "f.yaml"),
                    "f.yaml:1:71: YAML nested more than 64 levels deep (expected a Kubernetes job)");
  const std::string braces = "spec: " + std::string(32000, '{') + std::string(32000, '}') + "\n";
  CHECK_THROWS_WITH(scenarios::parse_k8s_job(braces, "b.yaml"), Catch::StartsWith("b.yaml:1:71: YAML nested"));
  std::string dashes;
  for (int i = 0; i < 32000; ++i) dashes += "- ";
  CHECK_THROWS_WITH(scenarios::parse_k8s_job(dashes + "x\n", "d.yaml"), Catch::StartsWith("d.yaml:1:"));
}

// Issue 21: a multi-document YAML with two training jobs used to import the first without a word.
TEST_CASE("import k8s: two training jobs in one file need --job NAME", "[scenarios]") {
  auto job = [](const std::string& name, int replicas) {
    return "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: " + name +
           "\nspec:\n  pytorchReplicaSpecs:\n    Worker:\n      replicas: " + std::to_string(replicas) +
           "\n      template:\n        spec:\n          containers:\n          - resources:\n              limits:\n"
           "                nvidia.com/gpu: 8\n";
  };
  const std::string text =
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n---\n" + job("a", 2) + "---\n" + job("b", 4);
  try {
    scenarios::parse_k8s_job(text, "two.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "two.yaml:21:1: a second training job 'b' after 'a' at two.yaml:6:1 (expected one training job, or --job "
          "NAME to choose one)");
  }
  CHECK(scenarios::parse_k8s_job(text, "two.yaml", "b").pods == 4);
  CHECK(scenarios::parse_k8s_job(text, "two.yaml", "a").pods == 2);
  try {
    scenarios::parse_k8s_job(text, "two.yaml", "c");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == "two.yaml:1:1: no training job named 'c' (expected one of: 'a', 'b')");
  }
  // One job among other documents still imports without --job.
  CHECK(scenarios::parse_k8s_job("apiVersion: v1\nkind: Service\n---\n" + job("a", 3), "one.yaml").pods == 3);
}
