#pragma once
// Reading what users deploy: a Kubernetes job (Kubeflow TrainJob, PyTorchJob or MPIJob v2beta1, a
// batch/v1 Job, a JobSet, a plain Pod, any of them inside a `kind: List`, or the fragments people
// paste in notes: a pod spec with `containers:`, a TrainJob `trainer:` block) with yaml-cpp (and
// Hugging Face Trainer arguments, trainer_args.hpp); then a scenario for `commsim run`, in which
// every value the job did not give is written with a comment saying so (k8s_scenario.cpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/load/loader.hpp"

namespace scenarios {

struct K8sJob {
  std::string source;
  std::string kind;                  // "TrainJob", "PyTorchJob", "MPIJob", "Job", "JobSet", "Pod",
                                     // "pod spec", "trainer block"
  std::string name;                  // metadata.name
  int line = 1;                      // where the job's document starts (for messages)
  int pods = 1;                      // numNodes / replicas / parallelism (GPU pods only)
  std::optional<int> gpus_per_pod;   // resources.limits nvidia.com/gpu
  SourcePos gpus_at;                 // where that limit was written (the first container's)
  std::optional<int> efa_per_pod;    // resources.limits vpc.amazonaws.com/efa
  std::optional<int> procs_per_pod;  // numProcPerNode / nprocPerNode / slotsPerWorker / torchrun --nproc_per_node
  bool host_ipc = false;
  bool host_network = false;
  bool host_ipc_set = false;                             // hostIPC written in the job (else Kubernetes' default, false)
  std::string instance_type;                             // nodeSelector node.kubernetes.io/instance-type
  std::vector<std::pair<std::string, std::string>> env;  // NCCL_* and FI_* of the containers
  std::optional<int> omp_threads;                        // container env OMP_NUM_THREADS (CPU-Adam threads per rank)
  std::string command;                                   // command and args, joined (to find the model)
  std::vector<std::pair<size_t, SourcePos>> command_at;  // where each word of `command` from its offset on was written
  std::vector<std::string> notes;                        // what was assumed or ignored, for the scenario's comments
  // NCCL_*/FI_* settings whose value the file does not hold (valueFrom, envFrom): a note in the
  // scenario and on stderr, since a variable left out can change transports and algorithms.
  std::vector<std::string> env_unknown;
  std::vector<std::pair<std::string, std::string>> launcher_env;  // an MPIJob launcher's NCCL_*/FI_* (mpirun -x VAR)

  // Where the text at `offset` of `command` was written: its YAML scalar's place.
  SourcePos command_pos(size_t offset) const {
    SourcePos p{source, line, 1};
    for (const auto& [from, at] : command_at)
      if (from <= offset) p = at;
    return p;
  }
  // Appends another part's command (a JobSet's jobs, an MPIJob's launcher), places included.
  void append_command(const K8sJob& other) {
    for (const auto& [from, at] : other.command_at) command_at.emplace_back(command.size() + from, at);
    command += other.command;
  }
};

// Throws UserError (FILE:LINE:COL) for YAML syntax errors, documents that are not a job, values
// of the wrong type ("nvidia.com/gpu: four"), and a file holding several training jobs (those
// requesting GPUs) unless `job_name` picks one by metadata.name.
K8sJob read_k8s_job(const std::string& path, const std::string& job_name = "");
K8sJob parse_k8s_job(const std::string& text, const std::string& file_name, const std::string& job_name = "");

struct ImportOptions {
  std::string instance;      // overrides the nodeSelector
  std::string model;         // preset; else found in the command (e.g. "llama-3-8b.py")
  std::string deepspeed;     // DeepSpeed JSON path (validated with read_deepspeed_json)
  std::string trainer_args;  // trainer arguments file
  std::string out;           // where the scenario will be written (paths in it are relative to it)
  std::optional<int> nodes;  // spread the pods evenly over this many hosts
  bool spread = false;       // one pod per host
};

// A value the importer chose because the job does not say: written into the scenario with a
// comment, and listed on standard error by `commsim import`.
struct FilledDefault {
  std::string key;    // "training.steps"
  std::string value;  // as TOML writes it
  std::string why;    // "not in the job; ... (pass --trainer-args, or edit)"
};

struct ImportedScenario {
  std::string toml;
  std::vector<FilledDefault> defaults;
  int nodes = 1, pods_per_node = 1;
  std::vector<std::string>
      files;  // what the import read beside the job (trainer arguments, DeepSpeed JSON, config.json)
  std::vector<std::string> taken;  // "key = value (from --flag)": what the job's command gave, for stderr
  std::vector<std::string> env_unknown;  // NCCL variables the job sets where the import cannot read them, for stderr
};

// Throws UserError when the instance is unknown or missing, or the placement asked for does not fit.
ImportedScenario import_scenario(const K8sJob& job, const ImportOptions& options);
// The scenario's TOML text alone.
inline std::string scenario_from_k8s(const K8sJob& job, const ImportOptions& options) {
  return import_scenario(job, options).toml;
}

}  // namespace scenarios
