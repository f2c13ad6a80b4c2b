// The pod-level readers of JobReader (k8s_job_reader.hpp): a PodSpec or the partial one of a
// TrainJob override -> the GPUs and EFA interfaces each pod requests, the NCCL_/FI_ variables and
// OMP_NUM_THREADS of its containers, their command lines, hostIPC/hostNetwork and the instance
// type its nodeSelector or node affinity pins. Every controller's reader ends here.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "models/nccl/env_names.hpp"
#include "scenarios/import/k8s_job.hpp"
#include "scenarios/import/k8s_job_reader.hpp"

namespace scenarios::k8s_read {

// resources.limits (or requests): GPUs and EFA interfaces.
void JobReader::limits(const YAML::Node& lim, const std::string& key, K8sJob& job, bool add) const {
  need_map(lim, key);
  for (const auto& kv : lim) {
    const std::string name = kv.first.Scalar();
    int* sink = nullptr;
    std::optional<int>* field = nullptr;
    (void)sink;
    if (name == "nvidia.com/gpu" || name == "nvidia.com")
      field = &job.gpus_per_pod;
    else if (name == "vpc.amazonaws.com/efa" || name == "vpc.amazonaws.com")
      field = &job.efa_per_pod;
    else
      continue;
    if (name.find('/') == std::string::npos)
      job.notes.push_back("'" + name + "' read as '" + name + (name == "nvidia.com" ? "/gpu" : "/efa") + "' (line " +
                          std::to_string(at(kv.first).line) + ")");
    const int v = integer(kv.second, key + "." + name);
    if (field == &job.gpus_per_pod && !job.gpus_per_pod) job.gpus_at = at(kv.second);
    *field = add && field->has_value() ? **field + v : v;
  }
}

void JobReader::env(const YAML::Node& list, const std::string& key, K8sJob& job) const {
  if (!list.IsSequence()) fail(list, key + ": got " + shape(list) + " (expected a list of {name, value})");
  for (const auto& item : list) {
    if (!item.IsMap() || !item["name"]) fail(item, key + ": an item without name (expected name and value)");
    const std::string name = scalar(item["name"], key + ".name");
    if (name == "OMP_NUM_THREADS" && item["value"]) {
      const std::string v = scalar(item["value"], key + "." + name);
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 4096)
        fail(item["value"],
             key + "." + name + ": '" + v + "' is not a thread count (expected an integer from 1 to 4096)");
      job.omp_threads = static_cast<int>(n);
      continue;
    }
    if (!models::nccl::is_nccl_env_name(name)) continue;
    if (!item["value"]) {
      job.env_unknown.push_back(name + " comes from valueFrom: not known here (line " + std::to_string(at(item).line) +
                                ")");
      continue;
    }
    const std::string value = item["value"].IsNull() ? "" : scalar(item["value"], key + "." + name);
    auto it = std::find_if(job.env.begin(), job.env.end(), [&](const auto& p) { return p.first == name; });
    if (it == job.env.end())
      job.env.emplace_back(name, value);
    else
      it->second = value;
  }
}

void JobReader::command(const YAML::Node& n, K8sJob& job) const {
  auto add = [&](const YAML::Node& word) {
    job.command_at.emplace_back(job.command.size() + 1, at(word));
    job.command += " " + word.Scalar();
  };
  if (n.IsScalar())
    add(n);
  else if (n.IsSequence())
    for (const auto& x : n)
      if (x.IsScalar()) add(x);
}

void JobReader::container(const YAML::Node& c, const std::string& key, K8sJob& job) const {
  need_map(c, key);
  if (const auto r = c["resources"]) {
    need_map(r, key + ".resources");
    if (r["limits"])
      limits(r["limits"], key + ".resources.limits", job, true);
    else if (r["requests"])
      limits(r["requests"], key + ".resources.requests", job, true);
  }
  if (c["env"]) env(c["env"], key + ".env", job);
  // envFrom: every key of a ConfigMap or Secret becomes a variable; their contents are not in
  // this file, so NCCL variables set there are unknown here (said, not guessed).
  if (const auto from = c["envFrom"]; from && from.IsSequence())
    for (const auto& item : from) {
      if (!item.IsMap()) continue;
      for (const char* ref : {"configMapRef", "secretRef"}) {
        const auto r = item[ref];
        if (!r) continue;
        const std::string name = r.IsMap() && r["name"] && r["name"].IsScalar() ? r["name"].Scalar() : "?";
        job.env_unknown.push_back("envFrom " + std::string(ref) + " " + name + " (line " +
                                  std::to_string(at(item).line) +
                                  "): its variables are not in this file; NCCL_* or FI_* set there are not in "
                                  "[nccl.env] (add them by hand)");
      }
    }
  if (c["command"]) command(c["command"], job);
  if (c["args"]) command(c["args"], job);
}

// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: an instance-type
// expression with operator In and one value pins the instance as a nodeSelector does; "" if none.
std::string JobReader::affinity_instance(const YAML::Node& spec) {
  YAML::Node n;
  n.reset(spec);  // reset rebinds; operator= would write into the document
  for (const char* k :
       {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"}) {
    const YAML::Node& here = n;  // const: a missing key is not added
    if (!here.IsMap() || !here[k]) return "";
    const YAML::Node next = here[k];
    n.reset(next);
  }
  if (!n.IsSequence()) return "";
  for (const auto& term : n) {
    if (!term.IsMap() || !term["matchExpressions"] || !term["matchExpressions"].IsSequence()) continue;
    for (const auto& e : term["matchExpressions"]) {
      if (!e.IsMap() || !e["key"] || !e["operator"] || !e["values"]) continue;
      const YAML::Node key = e["key"], op = e["operator"], values = e["values"];
      if (!key.IsScalar() || !op.IsScalar() || op.Scalar() != "In" || !values.IsSequence() || values.size() != 1 ||
          !values[0].IsScalar())
        continue;
      if (key.Scalar() == "node.kubernetes.io/instance-type" || key.Scalar() == "beta.kubernetes.io/instance-type")
        return values[0].Scalar();
    }
  }
  return "";
}

// A PodSpec, or a partial one from a TrainJob override.
void JobReader::pod_spec(const YAML::Node& spec, const std::string& key, K8sJob& job) const {
  need_map(spec, key.empty() ? "pod spec" : key);
  const std::string at = key.empty() ? "" : key + ".";  // a pasted pod spec has no path above it
  if (spec["hostIPC"]) {
    job.host_ipc = boolean(spec["hostIPC"], at + "hostIPC");
    job.host_ipc_set = true;
  }
  if (spec["hostNetwork"]) job.host_network = boolean(spec["hostNetwork"], at + "hostNetwork");
  if (const auto sel = spec["nodeSelector"]) {
    need_map(sel, at + "nodeSelector");
    for (const char* k : {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"})
      if (sel[k]) job.instance_type = scalar(sel[k], at + "nodeSelector." + k);
  }
  // affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: an instance-type
  // expression with operator In and one value pins the instance as a nodeSelector does.
  if (job.instance_type.empty()) job.instance_type = affinity_instance(spec);
  if (const auto cs = spec["containers"]) {
    // Real pod specs have a list; notes often show a single container as a mapping.
    if (cs.IsSequence()) {
      if (cs.size() == 0)  // a pod without containers runs nothing: Kubernetes refuses it too
        fail(cs, at + "containers: an empty list (expected at least one container, with the GPUs it requests)");
      for (size_t i = 0; i < cs.size(); ++i) container(cs[i], at + "containers[" + std::to_string(i) + "]", job);
    } else {
      container(cs, at + "containers", job);
    }
  }
}

}  // namespace scenarios::k8s_read
