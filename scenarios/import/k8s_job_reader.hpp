#pragma once
// Private to scenarios/import: the reader that walks a Kubernetes job's YAML (yaml-cpp) into a
// K8sJob (k8s_job.hpp). The generic node readers (a count, a boolean, a mapping, each failing
// with FILE:LINE:COL) are here; the pod-level readers (containers, resources, env, node
// selection) are in k8s_pod_spec.cpp, the per-controller readers (TrainJob, PyTorchJob, batch
// Job, JobSet, MPIJob) in k8s_controllers.cpp, and the document loop that picks the job in
// k8s_job.cpp. Nothing outside this folder includes it.
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "models/error.hpp"
#include "scenarios/import/job_command.hpp"
#include "scenarios/import/k8s_job.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios::k8s_read {

// What a node is, for "got a list (expected a single value)".
inline std::string shape(const YAML::Node& n) {
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  if (n.IsNull()) return "nothing";
  return "a single value";
}

class JobReader {
 public:
  JobReader(std::string file) : file_(std::move(file)) {}

  SourcePos at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.line < 0) return {file_, 1, 1};
    return {file_, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& message) const { throw UserError(at(n), message); }

  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key + ": got " + shape(n) + " (expected a single value)");
    return n.Scalar();
  }
  int integer(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    try {
      size_t used = 0;
      const long v = std::stol(s, &used);
      if (used == s.size() && v >= 0 && v <= 1000000) return static_cast<int>(v);
    } catch (const std::exception&) {
    }
    fail(n, key + ": '" + s + "' is not a count (expected a whole number such as \"4\")");
  }
  // A count of pods that run ranks: 0 would run none (and place nothing), so it is refused here,
  // at the key, rather than turned into 1.
  int pod_count(const YAML::Node& n, const std::string& key) const {
    const int v = integer(n, key);
    if (v < 1) fail(n, key + ": 0 pods would run no rank (expected 1 or more)");
    return v;
  }
  // Processes per pod (nprocPerNode, numProcPerNode, slotsPerWorker): 0 would start no rank on
  // GPUs the pod holds, so it is refused at the key, as a pod count of 0 is.
  int proc_count(const YAML::Node& n, const std::string& key) const {
    const int v = integer(n, key);
    if (v < 1) fail(n, key + ": 0 processes per pod would run no rank (expected 1 or more)");
    return v;
  }
  // nprocPerNode / numProcPerNode: a count, or torchrun's words (Kubeflow passes them to
  // --nproc-per-node): "gpu" and "auto" (on a GPU pod) start one process per GPU, so the count is
  // left to the pod's GPUs (nullopt, with a note); "cpu" starts one per CPU core, a CPU training
  // commsim does not simulate, refused at the key.
  std::optional<int> procs_per_node(const YAML::Node& n, const std::string& key, K8sJob& job) const {
    if (n.IsScalar() && (n.Scalar() == "gpu" || n.Scalar() == "auto")) {
      job.notes.push_back(key + ": " + n.Scalar() +
                          ": one process per GPU of the pod (torchrun --nproc-per-node=" + n.Scalar() + ")");
      return std::nullopt;
    }
    if (n.IsScalar() && n.Scalar() == "cpu")
      fail(n, key +
                  ": cpu starts one process per CPU core (a training on CPUs), which commsim does not simulate "
                  "(expected a number of processes, gpu or auto)");
    return proc_count(n, key);
  }
  bool boolean(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
    fail(n, key + ": '" + s + "' is not a boolean (expected true or false)");
  }
  void need_map(const YAML::Node& n, const std::string& key) const {
    if (!n.IsMap()) fail(n, key + ": got " + shape(n) + " (expected a mapping)");
  }

  // k8s_pod_spec.cpp
  // resources.limits (or requests): GPUs and EFA interfaces.
  void limits(const YAML::Node& lim, const std::string& key, K8sJob& job, bool add) const;
  void env(const YAML::Node& list, const std::string& key, K8sJob& job) const;
  void command(const YAML::Node& n, K8sJob& job) const;
  void container(const YAML::Node& c, const std::string& key, K8sJob& job) const;
  // affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: an instance-type
  // expression with operator In and one value pins the instance as a nodeSelector does; "" if none.
  static std::string affinity_instance(const YAML::Node& spec);
  // A PodSpec, or a partial one from a TrainJob override.
  void pod_spec(const YAML::Node& spec, const std::string& key, K8sJob& job) const;

  // k8s_controllers.cpp
  void trainer(const YAML::Node& t, const std::string& key, K8sJob& job) const;
  void train_job(const YAML::Node& doc, K8sJob& job) const;
  void pytorch_job(const YAML::Node& doc, K8sJob& job) const;
  void merge_replica_templates(std::vector<std::pair<std::string, K8sJob>>& parts, K8sJob& job) const;
  // A batch/v1 Job's spec: its pods run at once (parallelism, else completions, else 1), each
  // from template.spec; `replicas` copies of it in a JobSet.
  void batch_job_spec(const YAML::Node& spec, const std::string& key, K8sJob& job, int replicas) const;
  void batch_job(const YAML::Node& doc, K8sJob& job) const;
  // JobSet (jobset.x-k8s.io): replicatedJobs, each `replicas` copies of a Job template. The pods
  // of the replicated jobs requesting GPUs are the training; the others (a driver, a launcher)
  // only lend their command to find the model.
  void jobset(const YAML::Node& doc, K8sJob& job) const;
  // MPIJob (kubeflow.org/v2beta1): Worker replicas run the ranks (slotsPerWorker each); the
  // Launcher runs mpirun and, unless runLauncherAsWorker, no rank.
  void mpi_job(const YAML::Node& doc, K8sJob& job) const;
  void mpi_launch(const MpiRanks& mpi, const YAML::Node& at, K8sJob& job) const;

 private:
  std::string file_;
};

}  // namespace scenarios::k8s_read
