#pragma once
// Reading what users deploy: a Kubernetes job (Kubeflow TrainJob, PyTorchJob, a plain Pod, or the
// fragments people paste in notes: a pod spec with `containers:`, a TrainJob `trainer:` block) with
// yaml-cpp (and Hugging Face Trainer arguments, trainer_args.hpp); then a scenario for `commsim run`.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace scenarios {

struct K8sJob {
  std::string source;
  std::string kind;                  // "TrainJob", "PyTorchJob", "Pod", "pod spec", "trainer block"
  std::string name;                  // metadata.name
  int pods = 1;                      // numNodes / replicas
  std::optional<int> gpus_per_pod;   // resources.limits nvidia.com/gpu
  std::optional<int> efa_per_pod;    // resources.limits vpc.amazonaws.com/efa
  std::optional<int> procs_per_pod;  // numProcPerNode / nprocPerNode / torchrun --nproc_per_node
  bool host_ipc = false;
  bool host_network = false;
  std::string instance_type;                             // nodeSelector node.kubernetes.io/instance-type
  std::vector<std::pair<std::string, std::string>> env;  // NCCL_* and FI_* of the containers
  std::optional<int> omp_threads;                        // container env OMP_NUM_THREADS (CPU-Adam threads per rank)
  std::string command;                                   // command and args, joined (to find the model)
  std::vector<std::string> notes;                        // what was assumed or ignored, for the scenario's comments
};

// Throws UserError (FILE:LINE:COL) for YAML syntax errors, documents that are not a job, and
// values of the wrong type ("nvidia.com/gpu: four").
// A file holding several training jobs ('---' documents) is an error unless `job_name` picks one
// by metadata.name.
K8sJob read_k8s_job(const std::string& path, const std::string& job_name = "");
K8sJob parse_k8s_job(const std::string& text, const std::string& file_name, const std::string& job_name = "");

struct ImportOptions {
  std::string instance;      // overrides the nodeSelector
  std::string model;         // preset; else found in the command (e.g. "llama-3-8b.py")
  std::string deepspeed;     // DeepSpeed JSON path (validated with read_deepspeed_json)
  std::string trainer_args;  // trainer arguments file
  std::string out;           // where the scenario will be written (for relative paths)
};

// The scenario's TOML text. Throws UserError when the instance is unknown or missing.
// `files_read`, when given, receives the DeepSpeed JSON it read (also one found through
// --trainer-args), for the command's check that it does not write over an input.
std::string scenario_from_k8s(const K8sJob& job, const ImportOptions& options,
                              std::vector<std::string>* files_read = nullptr);

}  // namespace scenarios
