// Kubernetes job importer (yaml-cpp) and `commsim import k8s`, on the seeds' inputs
// (scenarios/examples/inputs/, taken from seeds/001 and seeds/002) and broken YAML.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "scenarios/import/k8s_job.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios::UserError;
using scenarios_test::run_commsim;

namespace {
const std::string kK8sInputs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";
}

TEST_CASE("import k8s: seed 002 pod spec (1 pod x 4 GPUs, hostIPC, p4d.24xlarge)", "[scenarios]") {
  const auto job = scenarios::read_k8s_job(kK8sInputs + "seed002_pod_spec.yaml");
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
  const auto tj = scenarios::read_k8s_job(kK8sInputs + "trainjob_p4d_4x1.yaml");
  CHECK(tj.kind == "TrainJob");
  CHECK(tj.name == "llama-3-8b");
  CHECK(tj.pods == 4);
  CHECK(tj.procs_per_pod == 1);
  CHECK(tj.gpus_per_pod == 1);
  CHECK(tj.efa_per_pod == 1);
  CHECK(tj.instance_type == "p4d.24xlarge");  // from podSpecOverrides
  CHECK(tj.env.size() == 2);                  // HF_TOKEN is not NCCL's
  const auto pj = scenarios::read_k8s_job(kK8sInputs + "pytorchjob_p4d_1x4.yaml");
  CHECK(pj.kind == "PyTorchJob");
  CHECK(pj.pods == 1);
  CHECK(pj.procs_per_pod == 4);
  CHECK(pj.gpus_per_pod == 4);
  CHECK(pj.host_ipc);
  const auto t1 = scenarios::read_k8s_job(kK8sInputs + "seed001_trainjob_16x1_fixed.yaml");
  CHECK(t1.kind == "trainer block");
  CHECK(t1.pods == 16);
  CHECK(t1.gpus_per_pod == 1);  // "nvidia.com: 1" read as nvidia.com/gpu, with a note
  CHECK(t1.notes.size() == 2);
  // As pasted in the note, the torchrun command with '# comments' is not YAML: line 11.
  try {
    scenarios::read_k8s_job(kK8sInputs + "seed001_trainjob_16x1.yaml");
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
          "svc.yaml:2:7: kind 'Service' is not a training job (expected kind TrainJob, PyTorchJob, MPIJob, Job, JobSet "
          "or "
          "Pod, a pod spec with containers, or a trainer: block)");
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
  auto r = run_commsim({"import", "k8s", kK8sInputs + "seed002_pod_spec.yaml", "--deepspeed",
                        kK8sInputs + "llama-3-8b-stage3.json", "--trainer-args", kK8sInputs + "seed002_trainer_args.txt",
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
      {"import", "k8s", kK8sInputs + "seed001_trainjob_16x1_fixed.yaml", "--instance", "p4d.24xlarge", "--out", out16});
  REQUIRE(r.exit_code == 0);
  const auto s16 = scenarios::load_scenario(out16).spec;
  CHECK(s16.cluster.nodes == 2);
  CHECK(s16.placement.pods_per_node == 8);
  CHECK(s16.model->preset == "llama-3-8b");  // from "llama-3-8b.py" in the command

  const std::string bad = (dir / "bad.toml").string();
  r = run_commsim(
      {"import", "k8s", kK8sInputs + "seed001_trainjob_16x1.yaml", "--instance", "p4d.24xlarge", "--out", bad});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind(kK8sInputs + "seed001_trainjob_16x1.yaml:11:", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(bad));
  r = run_commsim({"import", "k8s", kK8sInputs + "seed001_trainjob_16x1_fixed.yaml", "--out", bad});  // no instance
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

TEST_CASE("import k8s: batch/v1 Job, JobSet, MPIJob and kind: List", "[scenarios]") {
  const auto job = scenarios::read_k8s_job(kK8sInputs + "indexed_job_p5_2x8.yaml");  // beside a Service
  CHECK(job.kind == "Job");
  CHECK(job.name == "llama-3-70b-ddp");
  CHECK(job.pods == 2);
  CHECK(job.gpus_per_pod == 8);
  CHECK(job.procs_per_pod == 8);  // torchrun --nproc_per_node=8
  CHECK(job.instance_type == "p5.48xlarge");
  const auto js = scenarios::read_k8s_job(kK8sInputs + "jobset_p4d_2x8.yaml");
  CHECK(js.kind == "JobSet");
  CHECK(js.pods == 2);  // the worker job's 2 pods; the driver requests no GPU
  CHECK(js.gpus_per_pod == 8);
  CHECK(js.host_ipc);
  CHECK(js.command.find("watch_llama-3-8b.py") != std::string::npos);  // the driver's command is read
  const auto mpi = scenarios::read_k8s_job(kK8sInputs + "mpijob_p4d_2x8.yaml");
  CHECK(mpi.kind == "MPIJob");
  CHECK(mpi.pods == 2);                                        // Workers; the launcher runs no rank
  CHECK(mpi.procs_per_pod == 8);                               // slotsPerWorker
  CHECK(mpi.command.find("llama-2-7b") != std::string::npos);  // from the launcher's mpirun line
  const auto list = scenarios::parse_k8s_job(
      "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n"
      "- apiVersion: v1\n  kind: Pod\n  metadata: {name: trainer}\n  spec:\n    containers:\n"
      "    - resources: {limits: {nvidia.com/gpu: 2}}\n",
      "list.yaml");
  CHECK(list.kind == "Pod");
  CHECK(list.name == "trainer");
  CHECK(list.gpus_per_pod == 2);
}

TEST_CASE("import k8s: a count of 0 GPU pods is refused at its key, not run or turned into 1", "[scenarios]") {
  // MPIJob Worker replicas, a JobSet's replicated job, a Job's parallelism or completions, a
  // TrainJob's numNodes: 0 would place no rank (an MPIJob of 0 workers once divided by zero).
  struct Case {
    std::string from, to;
    const char* file;
    const char* key;
  };
  const std::vector<Case> cases = {
      {"replicas: 2", "replicas: 0", "mpijob_p4d_2x8.yaml", "spec.mpiReplicaSpecs.Worker.replicas: 0 pods"},
      {"parallelism: 2", "parallelism: 0", "indexed_job_p5_2x8.yaml", ".parallelism: 0 pods"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    std::string text = scenarios_test::slurp(kK8sInputs + c.file);
    const auto at = text.find(c.from);
    REQUIRE(at != std::string::npos);
    text.replace(at, c.from.size(), c.to);
    try {
      scenarios::parse_k8s_job(text, c.file);
      FAIL("no error");
    } catch (const UserError& e) {
      CHECK(std::string(e.what()).find(c.key) != std::string::npos);
      CHECK(std::string(e.what()).find("would run no rank (expected 1 or more)") != std::string::npos);
      CHECK(e.pos().line > 1);
    }
  }
  try {
    scenarios::parse_k8s_job("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\nspec:\n"
                             "  trainer:\n    numNodes: 0\n    resourcesPerNode: {limits: {nvidia.com/gpu: 8}}\n",
                             "t.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("t.yaml:6:") == 0);
    CHECK(std::string(e.what()).find("numNodes: 0 pods would run no rank") != std::string::npos);
  }
}

TEST_CASE("import k8s: a file with two training jobs is refused with both names unless --job picks one",
          "[scenarios]") {
  const std::string two =
      "kind: Pod\nmetadata: {name: prep}\nspec:\n  containers: [{command: [python, prep.py]}]\n---\n"
      "kind: PyTorchJob\nmetadata: {name: small}\nspec:\n  pytorchReplicaSpecs:\n    Master:\n      template:\n"
      "        spec:\n          containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]\n---\n"
      "kind: Job\nmetadata: {name: big}\nspec:\n  parallelism: 4\n  template:\n    spec:\n"
      "      containers: [{resources: {limits: {nvidia.com/gpu: 8}}}]\n";
  try {
    scenarios::parse_k8s_job(two, "two.yaml");
    FAIL("no error");
  } catch (const UserError& e) {
    // The Pod without GPUs is not training; the two others are named, with where they start.
    CHECK(std::string(e.what()) ==
          "two.yaml:15:1: 2 training jobs: PyTorchJob 'small' (line 6) and Job 'big' (line 15) (expected one; "
          "pick it with --job NAME)");
  }
  const auto big = scenarios::parse_k8s_job(two, "two.yaml", "big");
  CHECK(big.kind == "Job");
  CHECK(big.pods == 4);
  CHECK(scenarios::parse_k8s_job(two, "two.yaml", "prep").kind == "Pod");
  try {
    scenarios::parse_k8s_job(two, "two.yaml", "smal");
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == "--job:1:1: no training job named 'smal' in two.yaml (did you mean 'small'?)");
  }
  // One job requesting GPUs beside others: that one, without --job.
  const auto one = scenarios::parse_k8s_job(two.substr(0, two.find("---\nkind: Job")), "one.yaml");
  CHECK(one.name == "small");
}

TEST_CASE("commsim import k8s: every default is written with a comment and listed on stderr", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-defaults");
  const std::string out = (dir / "tj.toml").string();
  // A TrainJob of 4 pods x 1 GPU, no Trainer arguments, no DeepSpeed config.
  const auto r = run_commsim({"import", "k8s", kK8sInputs + "trainjob_p4d_4x1.yaml", "--out", out});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.rfind("commsim import: 10 values not in the job, written to " + out + " with a 'default:' comment:\n",
                    0) == 0);
  for (const char* line :
       {"  cluster.nodes = 1: 4 pods packed 4 per host, as a bin-packing scheduler places them (--spread: one per "
        "host; --nodes N)\n",
        "  placement.host_ipc = false: no hostIPC in the pod spec (Kubernetes' default): pods on one host share no "
        "/dev/shm, so no SHM between them even on the host's network\n",
        "  training.steps = 1: max_steps not given (pass --trainer-args, or edit): run time is one step\n",
        "  parallel.strategy = \"ddp\": no DeepSpeed config (pass --deepspeed)"})
    CHECK(r.err.find(line) != std::string::npos);
  const std::string toml = scenarios_test::slurp(out);
  // The host hash, not IPC, is what keeps pods of one host apart in NCCL: the comment says so.
  CHECK(toml.find("host_network = false  # no hostNetwork (Kubernetes' default): each pod its own hostname") !=
        std::string::npos);
  CHECK(toml.find("strategy = \"ddp\"  # default: no DeepSpeed config") != std::string::npos);
  CHECK(toml.find("steps = 1  # default: max_steps not given") != std::string::npos);
  const auto s = scenarios::load_scenario(out).spec;
  CHECK(s.parallel.strategy == "ddp");
  CHECK(s.placement.pods_per_node == 4);
  // With a DeepSpeed config whose batch keys are "auto": said where the default lands.
  const auto ds = run_commsim({"import", "k8s", kK8sInputs + "trainjob_p4d_4x1.yaml", "--deepspeed",
                               kK8sInputs + "llama-3-8b-stage3.json", "--out", out, "--json"});
  REQUIRE(ds.exit_code == 0);
  CHECK(ds.err.find("training.micro_batch = 1: per_device_train_batch_size not given (pass --trainer-args, or edit); "
                    "the DeepSpeed config's train_micro_batch_size_per_gpu = \"auto\" becomes this value") !=
        std::string::npos);
  const auto j = nlohmann::json::parse(ds.out);
  CHECK(j["command"] == "import");
  CHECK(j["pods"] == 4);
  bool strategy_listed = false;
  for (const auto& d : j["defaults"]) strategy_listed = strategy_listed || d["key"] == "parallel.strategy";
  CHECK_FALSE(strategy_listed);  // zero3 comes from the DeepSpeed config, not a default
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim import k8s: --spread and --nodes choose the placement", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-placement");
  const std::string out = (dir / "p.toml").string();
  REQUIRE(run_commsim({"import", "k8s", kK8sInputs + "trainjob_p4d_4x1.yaml", "--spread", "--out", out}).exit_code == 0);
  auto s = scenarios::load_scenario(out).spec;
  CHECK(s.cluster.nodes == 4);
  CHECK(s.placement.pods_per_node == 1);
  REQUIRE(run_commsim({"import", "k8s", kK8sInputs + "trainjob_p4d_4x1.yaml", "--nodes", "2", "--out", out}).exit_code ==
          0);
  s = scenarios::load_scenario(out).spec;
  CHECK(s.cluster.nodes == 2);
  CHECK(s.placement.pods_per_node == 2);
  CHECK(scenarios_test::slurp(out).find("nodes = 2  # 4 pods, 2 per host (--nodes 2)") != std::string::npos);
  const auto bad = run_commsim({"import", "k8s", kK8sInputs + "trainjob_p4d_4x1.yaml", "--nodes", "3", "--out", out});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.rfind("--nodes:1:1: 4 pods of 1 GPUs do not spread evenly over 3 hosts", 0) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim import k8s: paths in the scenario are relative to it, so the folder can move", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("import-rel");
  std::filesystem::create_directories(dir / "job" / "out");
  std::filesystem::copy_file(kK8sInputs + "llama-3-8b-stage3.json", dir / "job" / "ds.json");
  const std::string out = (dir / "job" / "out" / "s.toml").string();
  REQUIRE(run_commsim({"import", "k8s", kK8sInputs + "seed002_pod_spec.yaml", "--deepspeed",
                       (dir / "job" / "ds.json").string(), "--model", "llama-3-8b", "--out", out})
              .exit_code == 0);
  CHECK(scenarios_test::slurp(out).find("deepspeed_config = \"../ds.json\"") != std::string::npos);
  // Moved elsewhere with its config, it still loads.
  std::filesystem::rename(dir / "job", dir / "moved");
  const auto s = scenarios::load_scenario((dir / "moved" / "out" / "s.toml").string()).spec;
  CHECK(s.zero.offload_optimizer == "cpu");
  std::filesystem::remove_all(dir);
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

TEST_CASE("commsim import k8s: the example Job, JobSet, MPIJob and List become scenarios that load and run",
          "[scenarios]") {
  struct Case {
    const char* file;
    const char* kind;
    const char* name;  // metadata.name, the scenario's name and what --job picks
    const char* instance;
    int nodes, gpus_per_pod;
    const char* preset;  // found in the job's command; "" when none (a 1 GiB all-reduce then)
  };
  const Case cases[] = {
      {"indexed_job_p5_2x8.yaml", "Job", "llama-3-70b-ddp", "p5.48xlarge", 2, 8, "llama-3-70b"},
      {"jobset_p4d_2x8.yaml", "JobSet", "llama-3-8b-jobset", "p4d.24xlarge", 2, 8, "llama-3-8b"},
      {"mpijob_p4d_2x8.yaml", "MPIJob", "llama-2-7b-mpi", "p4d.24xlarge", 2, 8, "llama-2-7b"},
      {"list_pytorchjob_g6e_2x4.yaml", "PyTorchJob", "qwen-2-7b-2x4", "g6e.12xlarge", 2, 4, ""},
  };
  const auto dir = scenarios_test::fresh_temp_dir("import-kinds");
  for (const auto& c : cases) {
    INFO(c.file);
    const std::string out = (dir / "s.toml").string();
    const auto r = run_commsim({"import", "k8s", kK8sInputs + c.file, "--out", out});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == kK8sInputs + c.file + ": " + c.kind + ", " + std::to_string(c.nodes) + " pods x " +
                       std::to_string(c.gpus_per_pod) + " GPUs on " + std::to_string(c.nodes) + " hosts -> " + out +
                       "\n");
    const auto s = scenarios::load_scenario(out).spec;
    CHECK(s.name == c.name);
    CHECK(s.cluster.instance == c.instance);
    CHECK(s.cluster.nodes == c.nodes);
    CHECK(s.placement.pods_per_node == 1);
    CHECK(s.placement.gpus_per_pod == c.gpus_per_pod);
    if (*c.preset) {
      REQUIRE(s.model);
      CHECK(s.model->preset == c.preset);
    } else {
      CHECK_FALSE(s.model);
      REQUIRE(s.collective);
    }
    CHECK(scenarios_test::slurp(out).find("# Written by `commsim import k8s " + std::string(c.file) + "`") !=
          std::string::npos);
    CHECK(run_commsim({"run", out}).exit_code == 0);
    // --job picks the job by its metadata.name, whatever its kind.
    CHECK(run_commsim({"import", "k8s", kK8sInputs + c.file, "--job", c.name, "--out", out}).exit_code == 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim import k8s: the launcher's processes per pod are the ranks, never more than its GPUs",
          "[scenarios]") {
  // The indexed Job's pods hold 8 GPUs; torchrun started with --nproc_per_node=4 runs 4 ranks per
  // pod and leaves 4 GPUs idle (said on stderr and in the scenario), and 16 would share GPUs.
  const auto dir = scenarios_test::fresh_temp_dir("import-nproc");
  std::string text = scenarios_test::slurp(kK8sInputs + "indexed_job_p5_2x8.yaml");
  const auto at = text.find("--nproc_per_node=8");
  REQUIRE(at != std::string::npos);
  auto with = [&](const std::string& n) {
    std::string t = text;
    t.replace(at, std::string("--nproc_per_node=8").size(), "--nproc_per_node=" + n);
    const auto f = dir / ("job" + n + ".yaml");
    std::ofstream(f) << t;
    return f.string();
  };
  const std::string out = (dir / "s.toml").string();
  const auto four = run_commsim({"import", "k8s", with("4"), "--out", out});
  REQUIRE(four.exit_code == 0);
  CHECK(four.err.find("placement.gpus_per_pod = 4 (the launcher starts 4 processes per pod; its 8 GPUs") !=
        std::string::npos);
  const auto run = nlohmann::json::parse(run_commsim({"run", out, "--json"}).out);
  CHECK(run["gpus"] == 8);  // 2 pods x 4 ranks
  const auto sixteen = run_commsim({"import", "k8s", with("16"), "--out", (dir / "t.toml").string()});
  CHECK(sixteen.exit_code == 2);
  CHECK(sixteen.err.find("16 processes per pod on 8 GPUs: ranks would share GPUs") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "t.toml"));
}
