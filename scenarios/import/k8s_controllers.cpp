// The per-controller readers of JobReader (k8s_job_reader.hpp): how each kind of job says how many
// pods it runs and where their pod template is: Kubeflow TrainJob (and a bare trainer: block),
// PyTorchJob and MPIJob, batch/v1 Job and JobSet. Each hands its pod template to pod_spec
// (k8s_pod_spec.cpp); k8s_job.cpp dispatches on kind.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "scenarios/import/k8s_job.hpp"
#include "scenarios/import/k8s_job_reader.hpp"

namespace scenarios::k8s_read {

void JobReader::trainer(const YAML::Node& t, const std::string& key, K8sJob& job) const {
  need_map(t, key);
  if (t["numNodes"]) job.pods = pod_count(t["numNodes"], key + ".numNodes");
  if (t["numProcPerNode"])
    if (const auto n = procs_per_node(t["numProcPerNode"], key + ".numProcPerNode", job)) job.procs_per_pod = n;
  if (const auto r = t["resourcesPerNode"]) {
    need_map(r, key + ".resourcesPerNode");
    if (r["limits"])
      limits(r["limits"], key + ".resourcesPerNode.limits", job, false);
    else if (r["requests"])
      limits(r["requests"], key + ".resourcesPerNode.requests", job, false);
  }
  if (t["env"]) env(t["env"], key + ".env", job);
  if (t["command"]) command(t["command"], job);
  if (t["args"]) command(t["args"], job);
}

void JobReader::train_job(const YAML::Node& doc, K8sJob& job) const {
  const auto spec = doc["spec"];
  if (!spec) fail(doc, "TrainJob without spec (expected spec.trainer)");
  need_map(spec, "spec");
  if (spec["trainer"]) trainer(spec["trainer"], "spec.trainer", job);
  for (const char* k : {"podSpecOverrides", "podTemplateOverrides"}) {
    const auto list = spec[k];
    if (!list) continue;
    if (!list.IsSequence()) fail(list, std::string("spec.") + k + ": got " + shape(list) + " (expected a list)");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string key = std::string("spec.") + k + "[" + std::to_string(i) + "]";
      pod_spec(list[i]["spec"] ? list[i]["spec"] : list[i], key, job);
    }
  }
}

void JobReader::pytorch_job(const YAML::Node& doc, K8sJob& job) const {
  const auto spec = doc["spec"];
  if (!spec) fail(doc, "PyTorchJob without spec (expected spec.pytorchReplicaSpecs)");
  need_map(spec, "spec");
  if (spec["nprocPerNode"])
    if (const auto n = procs_per_node(spec["nprocPerNode"], "spec.nprocPerNode", job)) job.procs_per_pod = n;
  if (spec["elasticPolicy"] && spec["elasticPolicy"]["nProcPerNode"])
    job.procs_per_pod = proc_count(spec["elasticPolicy"]["nProcPerNode"], "spec.elasticPolicy.nProcPerNode");
  const auto replicas = spec["pytorchReplicaSpecs"];
  if (!replicas) fail(spec, "PyTorchJob without spec.pytorchReplicaSpecs (expected Master and/or Worker)");
  need_map(replicas, "spec.pytorchReplicaSpecs");
  job.pods = 0;
  // Master and Worker are both ranks (the Master is rank 0's pod): each template is read on its
  // own, then the two are one pod shape, as commsim simulates pods of one size.
  std::vector<std::pair<std::string, K8sJob>> parts;
  for (const char* role : {"Worker", "Master"}) {
    const auto r = replicas[role];
    if (!r) continue;
    const std::string key = std::string("spec.pytorchReplicaSpecs.") + role;
    job.pods += r["replicas"] ? integer(r["replicas"], key + ".replicas") : 1;
    if (r["template"] && r["template"]["spec"]) {
      K8sJob part;
      part.source = job.source;
      part.line = job.line;
      pod_spec(r["template"]["spec"], key + ".template.spec", part);
      parts.emplace_back(role, std::move(part));
    }
  }
  if (job.pods == 0)
    fail(replicas, "spec.pytorchReplicaSpecs: no Master or Worker replicas (expected Master and/or Worker)");
  if (parts.empty()) return;
  merge_replica_templates(parts, job);
}

// A PyTorchJob's Worker and Master templates as one pod shape: the Worker's (the many) where both
// say something, with what they disagree on refused (GPUs: pods of one size) or said in a note
// (environment, command, instance); variables set differently in the two are left out.
void JobReader::merge_replica_templates(std::vector<std::pair<std::string, K8sJob>>& parts, K8sJob& job) const {
  const int pods = job.pods;
  K8sJob& first = parts.front().second;
  const std::string first_role = parts.front().first;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const K8sJob& other = parts[i].second;
    const std::string& role = parts[i].first;
    const std::string them = first_role == "Worker" ? "each Worker" : "the " + first_role;
    if (first.gpus_per_pod && other.gpus_per_pod && *first.gpus_per_pod != *other.gpus_per_pod)
      throw UserError(other.gpus_at, "spec.pytorchReplicaSpecs." + role + ": " + std::to_string(*other.gpus_per_pod) +
                                         " GPUs per pod where " + them + " has " + std::to_string(*first.gpus_per_pod) +
                                         ": commsim simulates pods of one size (expected the " + role +
                                         "'s nvidia.com/gpu equal to the " + first_role + "'s)");
    if (!first.gpus_per_pod && other.gpus_per_pod) {
      first.gpus_per_pod = other.gpus_per_pod;
      first.gpus_at = other.gpus_at;
    }
    // EFA devices and the host's network decide NCCL's transport: a template without them, beside
    // one with them, is a pod that falls back (no EFA provider) or stays apart (own hostname).
    const auto efa_text = [](const std::optional<int>& n) {
      return n && *n > 0 ? "vpc.amazonaws.com/efa: " + std::to_string(*n) : std::string("no EFA device");
    };
    if (first.efa_per_pod.value_or(0) != other.efa_per_pod.value_or(0))
      first.notes.push_back("the " + first_role + "'s template has " + efa_text(first.efa_per_pod) + ", the " + role +
                            "'s " + efa_text(other.efa_per_pod) +
                            ": a pod without EFA falls back to NCCL's Socket transport; the one with it is simulated");
    if (first.host_network != other.host_network)
      first.notes.push_back(std::string("hostNetwork is set in the ") + (first.host_network ? first_role : role) +
                            "'s template only: the pods on the host's network are simulated as all of them");
    if (!first.efa_per_pod) first.efa_per_pod = other.efa_per_pod;
    if (!first.omp_threads) first.omp_threads = other.omp_threads;
    if (!first.host_ipc_set && other.host_ipc_set) {
      first.host_ipc = other.host_ipc;
      first.host_ipc_set = true;
    }
    first.host_network = first.host_network || other.host_network;
    if (first.instance_type.empty())
      first.instance_type = other.instance_type;
    else if (!other.instance_type.empty() && other.instance_type != first.instance_type)
      first.notes.push_back("the " + role + "'s instance type " + other.instance_type + " differs from the " +
                            first_role + "'s " + first.instance_type + ": the " + first_role + "'s is simulated");
    // Variables: only those both templates set alike reach [nccl.env].
    std::vector<std::pair<std::string, std::string>> agreed;
    auto value_in = [](const K8sJob& j, const std::string& name) -> const std::string* {
      for (const auto& [k, v] : j.env)
        if (k == name) return &v;
      return nullptr;
    };
    for (const auto& [k, v] : first.env) {
      const std::string* o = value_in(other, k);
      if (o && *o == v)
        agreed.emplace_back(k, v);
      else
        first.notes.push_back(k + "=" + v + " is set in the " + first_role + "'s template, " +
                              (o ? k + "=" + *o + " in the " + role + "'s" : "not in the " + role + "'s") +
                              ": left out of [nccl.env] (set it there if the ranks run with it)");
    }
    for (const auto& [k, v] : other.env)
      if (!value_in(first, k))
        first.notes.push_back(k + "=" + v + " is set in the " + role + "'s template, not in the " + first_role +
                              "'s: left out of [nccl.env] (set it there if the ranks run with it)");
    first.env = std::move(agreed);
    if (first.command.empty()) {
      first.command = other.command;
      first.command_at = other.command_at;
    } else if (!other.command.empty() && other.command != first.command) {
      first.notes.push_back("the " + role + "'s command differs from the " + first_role + "'s: the " + first_role +
                            "'s is read");
    }
    first.notes.insert(first.notes.end(), other.notes.begin(), other.notes.end());
    first.env_unknown.insert(first.env_unknown.end(), other.env_unknown.begin(), other.env_unknown.end());
  }
  first.source = job.source;
  first.line = job.line;
  first.kind = job.kind;
  first.name = job.name;
  first.procs_per_pod = job.procs_per_pod;
  first.notes.insert(first.notes.begin(), job.notes.begin(), job.notes.end());
  first.pods = pods;
  job = std::move(first);
}

// A batch/v1 Job's spec: its pods run at once (parallelism, else completions, else 1), each
// from template.spec; `replicas` copies of it in a JobSet.
void JobReader::batch_job_spec(const YAML::Node& spec, const std::string& key, K8sJob& job, int replicas) const {
  need_map(spec, key);
  int pods = 1;
  if (spec["parallelism"])
    pods = pod_count(spec["parallelism"], key + ".parallelism");
  else if (spec["completions"])
    pods = pod_count(spec["completions"], key + ".completions");
  if (spec["parallelism"] && spec["completions"] && integer(spec["completions"], key + ".completions") != pods)
    job.notes.push_back(key + ": parallelism " + std::to_string(pods) + " pods at once, completions " +
                        std::to_string(integer(spec["completions"], key + ".completions")) +
                        ": the pods running at once are simulated");
  job.pods = pods * replicas;
  const auto tpl = spec["template"];
  if (!tpl || !tpl["spec"]) fail(spec, key + ": no template.spec (expected the pod template of the job)");
  pod_spec(tpl["spec"], key + ".template.spec", job);
}

void JobReader::batch_job(const YAML::Node& doc, K8sJob& job) const {
  if (!doc["spec"]) fail(doc, "Job without spec");
  batch_job_spec(doc["spec"], "spec", job, 1);
}

// JobSet (jobset.x-k8s.io): replicatedJobs, each `replicas` copies of a Job template. The pods
// of the replicated jobs requesting GPUs are the training; the others (a driver, a launcher)
// only lend their command to find the model.
void JobReader::jobset(const YAML::Node& doc, K8sJob& job) const {
  const auto spec = doc["spec"];
  if (!spec || !spec["replicatedJobs"]) fail(doc, "JobSet without spec.replicatedJobs");
  const auto list = spec["replicatedJobs"];
  if (!list.IsSequence()) fail(list, "spec.replicatedJobs: expected a list");
  std::optional<K8sJob> gpu_job;
  int pods = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string key = "spec.replicatedJobs[" + std::to_string(i) + "]";
    const auto rj = list[i];
    need_map(rj, key);
    const int replicas = rj["replicas"] ? pod_count(rj["replicas"], key + ".replicas") : 1;
    if (!rj["template"] || !rj["template"]["spec"]) fail(rj, key + ": no template.spec (expected a Job template)");
    K8sJob part;
    batch_job_spec(rj["template"]["spec"], key + ".template.spec", part, replicas);
    job.append_command(part);
    if (!part.gpus_per_pod) continue;
    if (gpu_job && part.gpus_per_pod != gpu_job->gpus_per_pod)
      job.notes.push_back(key + ": " + std::to_string(*part.gpus_per_pod) + " GPUs per pod where an earlier job has " +
                          std::to_string(*gpu_job->gpus_per_pod) + ": the first job's shape is used for all");
    pods += part.pods;
    if (!gpu_job) gpu_job = std::move(part);
  }
  if (gpu_job) {
    // The worker job's pod shape; the JobSet's own name, file and line, every job's command.
    K8sJob whole = std::move(*gpu_job);
    whole.source = job.source;
    whole.line = job.line;
    whole.name = job.name;
    whole.command = job.command;
    whole.command_at = job.command_at;
    whole.notes.insert(whole.notes.begin(), job.notes.begin(), job.notes.end());
    whole.pods = pods;
    job = std::move(whole);
  }
}

// MPIJob (kubeflow.org/v2beta1): Worker replicas run the ranks (slotsPerWorker each); the
// Launcher runs mpirun and, unless runLauncherAsWorker, no rank.
void JobReader::mpi_job(const YAML::Node& doc, K8sJob& job) const {
  const auto spec = doc["spec"];
  if (!spec || !spec["mpiReplicaSpecs"]) fail(doc, "MPIJob without spec.mpiReplicaSpecs");
  need_map(spec, "spec");
  const auto replicas = spec["mpiReplicaSpecs"];
  need_map(replicas, "spec.mpiReplicaSpecs");
  // slotsPerWorker defaults to 1 (kubeflow/mpi-operator v2beta1 types.go, +kubebuilder:default:=1): the
  // hostfile gives each worker one slot, so mpirun starts one rank per worker unless -N says more.
  const bool slots_given = static_cast<bool>(spec["slotsPerWorker"]);
  job.procs_per_pod = slots_given ? proc_count(spec["slotsPerWorker"], "spec.slotsPerWorker") : 1;
  if (!slots_given) job.notes.push_back("default: slotsPerWorker not given, the MPI operator's 1 slot per worker");
  const auto worker = replicas["Worker"];
  if (!worker) fail(replicas, "spec.mpiReplicaSpecs: no Worker (expected the pods that run the ranks)");
  need_map(worker, "spec.mpiReplicaSpecs.Worker");
  job.pods = worker["replicas"] ? pod_count(worker["replicas"], "spec.mpiReplicaSpecs.Worker.replicas") : 1;
  if (!worker["template"] || !worker["template"]["spec"])
    fail(worker, "spec.mpiReplicaSpecs.Worker: no template.spec (expected the worker pod template)");
  pod_spec(worker["template"]["spec"], "spec.mpiReplicaSpecs.Worker.template.spec", job);
  const bool launcher_works =
      spec["runLauncherAsWorker"] && boolean(spec["runLauncherAsWorker"], "spec.runLauncherAsWorker");
  if (launcher_works) {
    ++job.pods;
    job.notes.push_back("runLauncherAsWorker: the launcher pod runs ranks too");
  }
  // The launcher's mpirun line names the training script (and so, often, the model), and may
  // start fewer ranks than the workers' slots.
  K8sJob launcher_job;
  YAML::Node launcher_at = replicas;
  if (const auto launcher = replicas["Launcher"]; launcher && launcher["template"] && launcher["template"]["spec"])
    if (const auto cs = launcher["template"]["spec"]["containers"]; cs && cs.IsSequence())
      for (const auto& c : cs) {
        if (!c.IsMap()) continue;
        for (const char* k : {"command", "args"})
          if (c[k]) {
            command(c[k], launcher_job);
            launcher_at = c[k];
          }
        if (c["resources"] && c["resources"].IsMap() && c["resources"]["limits"])
          limits(c["resources"]["limits"], "spec.mpiReplicaSpecs.Launcher...resources.limits", launcher_job, true);
        // mpirun -x VAR passes the launcher's value to every rank.
        if (c["env"]) env(c["env"], "spec.mpiReplicaSpecs.Launcher...env", launcher_job);
      }
  job.launcher_env = launcher_job.env;
  // A launcher that runs ranks is one more pod of the workers' kind: commsim simulates pods of one size.
  if (launcher_works && launcher_job.gpus_per_pod.value_or(0) != job.gpus_per_pod.value_or(0))
    fail(replicas["Launcher"] ? replicas["Launcher"] : replicas,
         "runLauncherAsWorker: the launcher pod runs ranks but requests " +
             std::to_string(launcher_job.gpus_per_pod.value_or(0)) + " GPUs where each worker has " +
             std::to_string(job.gpus_per_pod.value_or(0)) +
             " (expected the launcher's resources.limits nvidia.com/gpu equal to the workers')");
  job.append_command(launcher_job);
  mpi_launch(mpi_ranks(launcher_job.command), launcher_at, job);
}

// What mpirun's rank counts leave of the workers: `-N` ranks on every pod, or `-np` ranks filling
// the pods' slots in order (Open MPI's and Hydra's default mapping by slot), the later pods idle.
void JobReader::mpi_launch(const MpiRanks& mpi, const YAML::Node& at, K8sJob& job) const {
  if (!mpi.unread.empty())
    job.notes.push_back("the launcher's mpirun " + mpi.unread +
                        " is not a number here (set where the job runs): " + "its rank count is not read");
  if (!mpi.total && !mpi.per_node) return;
  const std::string said = "the launcher's mpirun " + mpi.flags;
  if (mpi.per_node) {
    if (job.procs_per_pod && *mpi.per_node > *job.procs_per_pod)
      fail(at, said + " starts " + std::to_string(*mpi.per_node) + " ranks per pod on " +
                   std::to_string(*job.procs_per_pod) +
                   " slots per worker (spec.slotsPerWorker): mpirun refuses that (expected at most the slots)");
    job.procs_per_pod = *mpi.per_node;
  }
  if (!mpi.total) return;
  const int per = job.procs_per_pod.value_or(job.gpus_per_pod.value_or(0));
  if (per < 1) return;  // the import says that no GPU count was found
  const long long slots = static_cast<long long>(per) * job.pods;
  const std::string pods_text = std::to_string(job.pods) + " pods of " + std::to_string(per) + " ranks";
  if (*mpi.total > slots)
    fail(at, said + " starts " + std::to_string(*mpi.total) + " ranks, more than the " + pods_text + " hold (" +
                 std::to_string(slots) +
                 " slots): mpirun refuses more ranks than slots (expected -np up to the slots, or a larger "
                 "slotsPerWorker)");
  if (*mpi.total == slots) return;
  if (*mpi.total < per) {
    job.notes.push_back(said + ": " + std::to_string(*mpi.total) + " ranks on the first pod, the other " +
                        std::to_string(job.pods - 1) + " pods idle");
    job.pods = 1;
    job.procs_per_pod = *mpi.total;
  } else if (*mpi.total % per == 0) {
    job.notes.push_back(said + ": " + std::to_string(*mpi.total / per) + " of the " + pods_text +
                        " run ranks (mpirun fills each pod's slots in turn), the others idle");
    job.pods = *mpi.total / per;
  } else {
    fail(at, said + " leaves the " + pods_text + " unevenly filled (" + std::to_string(*mpi.total % per) +
                 " ranks on the last): commsim simulates pods of one size (expected -np a multiple of " +
                 std::to_string(per) + ", or -N)");
  }
}

}  // namespace scenarios::k8s_read
