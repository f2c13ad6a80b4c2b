// Kubernetes job YAML (yaml-cpp) -> K8sJob -> scenario TOML. See k8s_job.hpp.
#include "scenarios/import/k8s_job.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "models/utf8.hpp"
#include "scenarios/import/scenario_writer.hpp"
#include "scenarios/import/trainer_args.hpp"
#include "scenarios/import/yaml_guard.hpp"
#include "scenarios/import/yaml_keys.hpp"
#include "scenarios/load/deepspeed_config.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/loader.hpp"

namespace fs = std::filesystem;

namespace scenarios {
namespace {

// What a node is, for "got a list (expected a single value)".
std::string shape(const YAML::Node& n) {
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
  bool boolean(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
    fail(n, key + ": '" + s + "' is not a boolean (expected true or false)");
  }
  void need_map(const YAML::Node& n, const std::string& key) const {
    if (!n.IsMap()) fail(n, key + ": got " + shape(n) + " (expected a mapping)");
  }

  // resources.limits (or requests): GPUs and EFA interfaces.
  void limits(const YAML::Node& lim, const std::string& key, K8sJob& job, bool add) const {
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
      *field = add && field->has_value() ? **field + v : v;
    }
  }

  void env(const YAML::Node& list, const std::string& key, K8sJob& job) const {
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
      if (name.rfind("NCCL_", 0) != 0 && name.rfind("FI_", 0) != 0) continue;
      if (!item["value"]) {
        job.notes.push_back(name + " comes from valueFrom: not known here (line " + std::to_string(at(item).line) +
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

  void command(const YAML::Node& n, K8sJob& job) const {
    if (n.IsScalar())
      job.command += " " + n.Scalar();
    else if (n.IsSequence())
      for (const auto& x : n)
        if (x.IsScalar()) job.command += " " + x.Scalar();
  }

  void container(const YAML::Node& c, const std::string& key, K8sJob& job) const {
    need_map(c, key);
    if (const auto r = c["resources"]) {
      need_map(r, key + ".resources");
      if (r["limits"])
        limits(r["limits"], key + ".resources.limits", job, true);
      else if (r["requests"])
        limits(r["requests"], key + ".resources.requests", job, true);
    }
    if (c["env"]) env(c["env"], key + ".env", job);
    if (c["command"]) command(c["command"], job);
    if (c["args"]) command(c["args"], job);
  }

  // affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: an instance-type
  // expression with operator In and one value pins the instance as a nodeSelector does; "" if none.
  static std::string affinity_instance(const YAML::Node& spec) {
    YAML::Node n;
    n.reset(spec);  // reset rebinds; operator= would write into the document
    for (const char* k : {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                          "nodeSelectorTerms"}) {
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
  void pod_spec(const YAML::Node& spec, const std::string& key, K8sJob& job) const {
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

  void trainer(const YAML::Node& t, const std::string& key, K8sJob& job) const {
    need_map(t, key);
    if (t["numNodes"]) job.pods = std::max(1, integer(t["numNodes"], key + ".numNodes"));
    if (t["numProcPerNode"] && t["numProcPerNode"].IsScalar() && t["numProcPerNode"].Scalar() != "auto")
      job.procs_per_pod = integer(t["numProcPerNode"], key + ".numProcPerNode");
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

  void train_job(const YAML::Node& doc, K8sJob& job) const {
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

  void pytorch_job(const YAML::Node& doc, K8sJob& job) const {
    const auto spec = doc["spec"];
    if (!spec) fail(doc, "PyTorchJob without spec (expected spec.pytorchReplicaSpecs)");
    need_map(spec, "spec");
    if (spec["nprocPerNode"] && spec["nprocPerNode"].Scalar() != "auto")
      job.procs_per_pod = integer(spec["nprocPerNode"], "spec.nprocPerNode");
    if (spec["elasticPolicy"] && spec["elasticPolicy"]["nProcPerNode"])
      job.procs_per_pod = integer(spec["elasticPolicy"]["nProcPerNode"], "spec.elasticPolicy.nProcPerNode");
    const auto replicas = spec["pytorchReplicaSpecs"];
    if (!replicas) fail(spec, "PyTorchJob without spec.pytorchReplicaSpecs (expected Master and/or Worker)");
    need_map(replicas, "spec.pytorchReplicaSpecs");
    job.pods = 0;
    bool spec_read = false;
    for (const char* role : {"Worker", "Master"}) {
      const auto r = replicas[role];
      if (!r) continue;
      const std::string key = std::string("spec.pytorchReplicaSpecs.") + role;
      job.pods += r["replicas"] ? integer(r["replicas"], key + ".replicas") : 1;
      if (!spec_read && r["template"] && r["template"]["spec"]) {
        pod_spec(r["template"]["spec"], key + ".template.spec", job);
        spec_read = true;
      }
    }
    if (job.pods == 0)
      fail(replicas, "spec.pytorchReplicaSpecs: no Master or Worker replicas (expected Master and/or Worker)");
  }

  // A batch/v1 Job's spec: its pods run at once (parallelism, else completions, else 1), each
  // from template.spec; `replicas` copies of it in a JobSet.
  void batch_job_spec(const YAML::Node& spec, const std::string& key, K8sJob& job, int replicas) const {
    need_map(spec, key);
    int pods = 1;
    if (spec["parallelism"])
      pods = integer(spec["parallelism"], key + ".parallelism");
    else if (spec["completions"])
      pods = integer(spec["completions"], key + ".completions");
    if (spec["parallelism"] && spec["completions"] && integer(spec["completions"], key + ".completions") != pods)
      job.notes.push_back(key + ": parallelism " + std::to_string(pods) + " pods at once, completions " +
                          std::to_string(integer(spec["completions"], key + ".completions")) +
                          ": the pods running at once are simulated");
    job.pods = std::max(1, pods) * replicas;
    const auto tpl = spec["template"];
    if (!tpl || !tpl["spec"]) fail(spec, key + ": no template.spec (expected the pod template of the job)");
    pod_spec(tpl["spec"], key + ".template.spec", job);
  }

  void batch_job(const YAML::Node& doc, K8sJob& job) const {
    if (!doc["spec"]) fail(doc, "Job without spec");
    batch_job_spec(doc["spec"], "spec", job, 1);
  }

  // JobSet (jobset.x-k8s.io): replicatedJobs, each `replicas` copies of a Job template. The pods
  // of the replicated jobs requesting GPUs are the training; the others (a driver, a launcher)
  // only lend their command to find the model.
  void jobset(const YAML::Node& doc, K8sJob& job) const {
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
      const int replicas = rj["replicas"] ? integer(rj["replicas"], key + ".replicas") : 1;
      if (!rj["template"] || !rj["template"]["spec"]) fail(rj, key + ": no template.spec (expected a Job template)");
      K8sJob part;
      batch_job_spec(rj["template"]["spec"], key + ".template.spec", part, replicas);
      job.command += part.command;
      if (!part.gpus_per_pod) continue;
      if (gpu_job && part.gpus_per_pod != gpu_job->gpus_per_pod)
        job.notes.push_back(key + ": " + std::to_string(*part.gpus_per_pod) +
                            " GPUs per pod where an earlier job has " + std::to_string(*gpu_job->gpus_per_pod) +
                            ": the first job's shape is used for all");
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
      whole.notes.insert(whole.notes.begin(), job.notes.begin(), job.notes.end());
      whole.pods = pods;
      job = std::move(whole);
    }
  }

  // MPIJob (kubeflow.org/v2beta1): Worker replicas run the ranks (slotsPerWorker each); the
  // Launcher runs mpirun and, unless runLauncherAsWorker, no rank.
  void mpi_job(const YAML::Node& doc, K8sJob& job) const {
    const auto spec = doc["spec"];
    if (!spec || !spec["mpiReplicaSpecs"]) fail(doc, "MPIJob without spec.mpiReplicaSpecs");
    need_map(spec, "spec");
    const auto replicas = spec["mpiReplicaSpecs"];
    need_map(replicas, "spec.mpiReplicaSpecs");
    if (spec["slotsPerWorker"]) job.procs_per_pod = integer(spec["slotsPerWorker"], "spec.slotsPerWorker");
    const auto worker = replicas["Worker"];
    if (!worker) fail(replicas, "spec.mpiReplicaSpecs: no Worker (expected the pods that run the ranks)");
    need_map(worker, "spec.mpiReplicaSpecs.Worker");
    job.pods = worker["replicas"] ? integer(worker["replicas"], "spec.mpiReplicaSpecs.Worker.replicas") : 1;
    if (!worker["template"] || !worker["template"]["spec"])
      fail(worker, "spec.mpiReplicaSpecs.Worker: no template.spec (expected the worker pod template)");
    pod_spec(worker["template"]["spec"], "spec.mpiReplicaSpecs.Worker.template.spec", job);
    if (spec["runLauncherAsWorker"] && boolean(spec["runLauncherAsWorker"], "spec.runLauncherAsWorker")) {
      ++job.pods;
      job.notes.push_back("runLauncherAsWorker: the launcher pod runs ranks too");
    }
    // The launcher's mpirun line names the training script (and so, often, the model).
    if (const auto launcher = replicas["Launcher"]; launcher && launcher["template"] && launcher["template"]["spec"])
      if (const auto cs = launcher["template"]["spec"]["containers"]; cs && cs.IsSequence())
        for (const auto& c : cs) {
          if (!c.IsMap()) continue;
          if (c["command"]) command(c["command"], job);
          if (c["args"]) command(c["args"], job);
        }
  }

 private:
  std::string file_;
};

void find_torchrun(K8sJob& job) {
  static const std::regex kNproc(R"(--nproc[_-]per[_-]node[= ]+(\d+))");
  static const std::regex kNnodes(R"(--nnodes[= ]+(\d+))");
  std::smatch m;
  // Bounded input for std::regex (recursive matcher); torchrun options come first anyway.
  const std::string cmd = job.command.substr(0, 16384);
  auto small = [](const std::string& digits) { return digits.size() <= 6; };
  if (!job.procs_per_pod && std::regex_search(cmd, m, kNproc) && small(m[1])) job.procs_per_pod = std::stoi(m[1]);
  if (std::regex_search(cmd, m, kNnodes) && small(m[1]) && std::stoi(m[1]) != job.pods)
    job.notes.push_back("torchrun --nnodes=" + m[1].str() + " but the job has " + std::to_string(job.pods) + " pods");
}

}  // namespace

K8sJob parse_k8s_job(const std::string& bytes, const std::string& file_name, const std::string& job_name) {
  // Written by an editor, not by commsim: bytes that are not UTF-8 (a name saved in Latin-1) are
  // read as Latin-1, so the scenario written is UTF-8 as TOML requires.
  const std::string text = models::utf8_text(bytes);
  int line = 1, col = 1;
  for (unsigned char c : text) {
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t'))
      throw UserError({file_name, line, col}, "binary data in a YAML file (expected text)");
    if (c == '\n')
      ++line, col = 1;
    else
      ++col;
  }
  // yaml-cpp parses nesting recursively: refuse depths no job has before it overflows the stack
  // on "[[[[...", "- - - - ..." or thousands of indentation levels.
  if (text.size() > (4u << 20))
    throw UserError({file_name, 1, 1}, "YAML file larger than 4 MiB (expected a Kubernetes job)");
  {
    int l = 1;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      size_t i = start;
      int levels = 0;
      for (;;) {
        while (i < end && text[i] == ' ') ++i;
        if (i + 1 < end && (text[i] == '-' || text[i] == '?') && text[i + 1] == ' ')
          ++levels, i += 2;
        else
          break;
      }
      if (levels > 32 || i - start > 512)
        throw UserError({file_name, l, static_cast<int>(i - start) + 1},
                        "YAML nested too deep (expected a Kubernetes job)");
      start = end + 1;
      ++l;
    }
  }
  {
    constexpr int kMaxDepth = 64;
    int depth = 0, l = 1, c = 1;
    for (char ch : text) {
      if (ch == '[' || ch == '{') {
        if (++depth > kMaxDepth)
          throw UserError({file_name, l, c}, "YAML nested more than 64 levels deep (expected a Kubernetes job)");
      } else if ((ch == ']' || ch == '}') && depth > 0) {
        --depth;
      }
      if (ch == '\n')
        ++l, c = 1;
      else
        ++c;
    }
  }
  std::vector<YAML::Node> docs;
  check_yaml_terminates(text, file_name);  // yaml-cpp 0.7 loops forever on some inputs (fuzzing)
  check_yaml_structure(text, file_name);   // duplicate keys, aliases to themselves, alias bombs
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    std::string hint;
    // A pasted shell command with "\ # comment" lines: the comment ends YAML's plain scalar.
    std::istringstream lines(text);
    std::string l, prev;
    for (int i = 0; i <= e.mark.line && std::getline(lines, l); ++i) {
      if (i == e.mark.line) break;
      prev = l;
    }
    const size_t bs = prev.find(" \\");
    if (bs != std::string::npos && prev.find('#', bs) != std::string::npos)
      hint =
          " (a '# comment' after a '\\' ends a multi-line command in YAML: write the command as a list or a | block)";
    throw UserError({file_name, e.mark.line + 1, e.mark.column + 1},
                    "invalid YAML: " + e.msg + (hint.empty() ? " (expected YAML, such as a Kubernetes job)" : hint));
  }
  JobReader rd(file_name);
  // Every document (and every item of a `kind: List`) that is a training job becomes a candidate.
  std::vector<YAML::Node> objects;
  for (const auto& doc : docs) {
    if (doc.IsMap() && doc["kind"] && doc["kind"].IsScalar() && doc["kind"].Scalar() == "List" && doc["items"] &&
        doc["items"].IsSequence()) {
      for (const auto& item : doc["items"]) objects.push_back(item);
    } else {
      objects.push_back(doc);
    }
  }
  std::vector<K8sJob> candidates;
  std::optional<YAML::Node> not_job;
  try {
    for (const auto& doc : objects) {
      if (!doc.IsMap()) continue;
      K8sJob job;
      job.source = file_name;
      job.line = rd.at(doc).line;
      if (const auto kind = doc["kind"]) {
        const std::string k = rd.scalar(kind, "kind");
        if (doc["metadata"] && doc["metadata"]["name"] && doc["metadata"]["name"].IsScalar())
          job.name = doc["metadata"]["name"].Scalar();
        if (k == "TrainJob")
          rd.train_job(doc, job);
        else if (k == "PyTorchJob")
          rd.pytorch_job(doc, job);
        else if (k == "MPIJob")
          rd.mpi_job(doc, job);
        else if (k == "Job")
          rd.batch_job(doc, job);
        else if (k == "JobSet")
          rd.jobset(doc, job);
        else if (k == "Pod") {
          if (!doc["spec"]) rd.fail(doc, "Pod without spec (expected spec.containers)");
          rd.pod_spec(doc["spec"], "spec", job);
        } else {
          if (!not_job) not_job = kind;
          continue;
        }
        job.kind = k;
      } else if (doc["trainer"]) {
        rd.trainer(doc["trainer"], "trainer", job);
        job.kind = "trainer block";
      } else if (doc["containers"]) {
        rd.pod_spec(doc, "", job);
        job.kind = "pod spec";
      } else {
        continue;
      }
      candidates.push_back(std::move(job));
    }
  } catch (const YAML::Exception& e) {  // a conversion yaml-cpp could not make
    throw UserError({file_name, e.mark.line + 1, e.mark.column + 1},
                    "unexpected YAML structure: " + e.msg + " (expected a Kubernetes job)");
  }
  if (candidates.empty()) {
    const SourcePos p = not_job ? rd.at(*not_job) : SourcePos{file_name, 1, 1};
    const std::string what =
        not_job ? "kind '" + not_job->Scalar() + "' is not a training job" : "no training job found";
    throw UserError(p, what +
                           " (expected kind TrainJob, PyTorchJob, MPIJob, Job, JobSet or Pod, a pod spec with "
                           "containers, or a trainer: block)");
  }
  auto describe = [](const K8sJob& j) {
    return j.kind + (j.name.empty() ? "" : " '" + j.name + "'") + " (line " + std::to_string(j.line) + ")";
  };
  K8sJob job;
  if (!job_name.empty()) {
    std::vector<std::string> names;
    for (const auto& c : candidates) {
      if (c.name == job_name) job = c;
      names.push_back(c.name);
    }
    if (job.kind.empty()) {
      const std::string near = closest_match(job_name, names);
      std::string list;
      for (const auto& c : candidates) list += (list.empty() ? "" : ", ") + describe(c);
      throw UserError({"--job", 1, 1}, "no training job named '" + job_name + "' in " + file_name + " (" +
                                           (near.empty() ? "it has " + list : "did you mean '" + near + "'?") + ")");
    }
  } else {
    // The training: the jobs that request GPUs (a data-preparation Job beside it does not count).
    std::vector<const K8sJob*> training;
    for (const auto& c : candidates)
      if (c.gpus_per_pod || c.procs_per_pod) training.push_back(&c);
    if (training.size() > 1) {
      std::string list;
      for (size_t i = 0; i < training.size(); ++i)
        list += (i == 0 ? "" : i + 1 == training.size() ? " and " : ", ") + describe(*training[i]);
      throw UserError({file_name, training[1]->line, 1}, std::to_string(training.size()) + " training jobs: " + list +
                                                             " (expected one; pick it with --job NAME)");
    }
    job = training.empty() ? candidates.front() : *training.front();
  }
  find_torchrun(job);
  return job;
}

K8sJob read_k8s_job(const std::string& path, const std::string& job_name) {
  return parse_k8s_job(read_input_file(path, {path, 1, 1}, "the job", "a Kubernetes job file (YAML)"), path, job_name);
}

}  // namespace scenarios
