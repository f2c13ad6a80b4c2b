// A job that would start no rank on its GPUs: 0 processes per pod (PyTorchJob nprocPerNode, a
// TrainJob's numProcPerNode, an MPIJob's slotsPerWorker, torchrun --nproc_per_node in the command)
// or a GPU limit of 0. Each is refused where the YAML says it, not written as gpus_per_pod = 0
// (which run refuses) or reported at 1:1.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/import/k8s_job.hpp"
#include "scenarios/load/loader.hpp"

using scenarios::UserError;

namespace {

// The error of importing `yaml` (parsing, then writing the scenario) onto a p4d.24xlarge.
std::string import_error(const std::string& yaml) {
  try {
    scenarios::ImportOptions opt;
    opt.instance = "p4d.24xlarge";
    scenarios::import_scenario(scenarios::parse_k8s_job(yaml, "job.yaml"), opt);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

const char* kPyTorchJob = R"(kind: PyTorchJob
metadata: {name: p}
spec:
  nprocPerNode: "4"
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: t
              command: ["torchrun", "--nproc_per_node=4", "train.py"]
              resources:
                limits:
                  nvidia.com/gpu: 4
)";

std::string edited(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("import k8s: 0 processes per pod is refused at the key or command word that says it", "[scenarios]") {
  CHECK(import_error(edited(kPyTorchJob, "nprocPerNode: \"4\"", "nprocPerNode: \"0\"")) ==
        "job.yaml:4:17: spec.nprocPerNode: 0 processes per pod would run no rank (expected 1 or more)");
  // Without nprocPerNode the command's torchrun option counts: refused at its list item.
  const std::string no_spec = edited(kPyTorchJob, "  nprocPerNode: \"4\"\n", "");
  CHECK(import_error(edited(no_spec, "--nproc_per_node=4", "--nproc_per_node=0")) ==
        "job.yaml:11:37: --nproc_per_node=0: 0 processes per pod would run no rank (expected --nproc_per_node 1 or "
        "more)");
  CHECK(import_error(std::string("kind: MPIJob\nmetadata: {name: m}\nspec:\n  slotsPerWorker: 0\n") +
                     "  mpiReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n        spec:\n"
                     "          containers: [{name: w, resources: {limits: {nvidia.com/gpu: 8}}}]\n")
            .rfind("job.yaml:4:19: spec.slotsPerWorker: 0 processes per pod would run no rank", 0) == 0);
  CHECK(import_error(edited(kPyTorchJob, "nprocPerNode: \"4\"", "nprocPerNode: \"2\"")) == "no error");
}

TEST_CASE("import k8s: a GPU limit of 0 is refused at the limit", "[scenarios]") {
  CHECK(import_error(edited(kPyTorchJob, "nvidia.com/gpu: 4", "nvidia.com/gpu: 0")) ==
        "job.yaml:15:35: nvidia.com/gpu: 0 GPUs per pod would run no rank (expected 1 or more)");
  // A sidecar's 0 beside the trainer's 4 is 4 GPUs per pod.
  CHECK(import_error("containers:\n- name: side\n  resources: {limits: {nvidia.com/gpu: 0}}\n"
                     "- name: train\n  resources: {limits: {nvidia.com/gpu: 4}}\n") == "no error");
  CHECK(import_error("containers:\n- name: train\n  resources:\n    limits:\n      nvidia.com/gpu: \"0\"\n") ==
        "job.yaml:5:23: nvidia.com/gpu: 0 GPUs per pod would run no rank (expected 1 or more)");
}

TEST_CASE("import k8s: nprocPerNode gpu and auto are the pod's GPUs, cpu is refused at the key", "[scenarios]") {
  for (const char* word : {"gpu", "auto"}) {
    INFO(word);
    const auto job = scenarios::parse_k8s_job(
        edited(kPyTorchJob, "nprocPerNode: \"4\"", std::string("nprocPerNode: \"") + word + "\""), "job.yaml");
    CHECK(job.gpus_per_pod == 4);
    REQUIRE_FALSE(job.notes.empty());
    CHECK(job.notes.front() == std::string("spec.nprocPerNode: ") + word +
                                   ": one process per GPU of the pod (torchrun --nproc-per-node=" + word + ")");
    CHECK(import_error(edited(kPyTorchJob, "nprocPerNode: \"4\"", std::string("nprocPerNode: ") + word)) == "no error");
  }
  CHECK(import_error(edited(kPyTorchJob, "nprocPerNode: \"4\"", "nprocPerNode: cpu")) ==
        "job.yaml:4:17: spec.nprocPerNode: cpu starts one process per CPU core (a training on CPUs), which commsim "
        "does not simulate (expected a number of processes, gpu or auto)");
}
