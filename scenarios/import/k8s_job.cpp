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
#include "models/workload/model_shape.hpp"
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

  // A PodSpec, or a partial one from a TrainJob override.
  void pod_spec(const YAML::Node& spec, const std::string& key, K8sJob& job) const {
    need_map(spec, key.empty() ? "pod spec" : key);
    const std::string at = key.empty() ? "" : key + ".";  // a pasted pod spec has no path above it
    if (spec["hostIPC"]) job.host_ipc = boolean(spec["hostIPC"], at + "hostIPC");
    if (spec["hostNetwork"]) job.host_network = boolean(spec["hostNetwork"], at + "hostNetwork");
    if (const auto sel = spec["nodeSelector"]) {
      need_map(sel, at + "nodeSelector");
      for (const char* k : {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"})
        if (sel[k]) job.instance_type = scalar(sel[k], at + "nodeSelector." + k);
    }
    if (const auto cs = spec["containers"]) {
      // Real pod specs have a list; notes often show a single container as a mapping.
      if (cs.IsSequence()) {
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

K8sJob parse_k8s_job(const std::string& text, const std::string& file_name, const std::string& job_name) {
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
  for (const auto& doc : docs) check_unique_keys(doc, file_name);
  JobReader rd(file_name);
  K8sJob job;
  job.source = file_name;
  std::optional<YAML::Node> not_job;
  // Several training jobs in one stream ('---'): one is chosen by name, never the first silently.
  auto is_job = [](const YAML::Node& doc) {
    if (!doc.IsMap() || !doc["kind"] || !doc["kind"].IsScalar()) return false;
    const std::string& k = doc["kind"].Scalar();
    return k == "TrainJob" || k == "PyTorchJob" || k == "Pod";
  };
  auto name_of = [](const YAML::Node& doc) {
    const YAML::Node meta = doc["metadata"];
    return meta && meta.IsMap() && meta["name"] && meta["name"].IsScalar() ? meta["name"].Scalar() : std::string();
  };
  std::vector<size_t> jobs;
  for (size_t i = 0; i < docs.size(); ++i)
    if (is_job(docs[i])) jobs.push_back(i);
  std::optional<size_t> chosen;
  if (!job_name.empty()) {
    std::string names;
    for (size_t i : jobs) {
      if (name_of(docs[i]) == job_name) chosen = i;
      names += (names.empty() ? "" : ", ") + ("'" + name_of(docs[i]) + "'");
    }
    if (!chosen)
      throw UserError({file_name, 1, 1}, "no training job named '" + job_name + "' (expected one of: " +
                                             (names.empty() ? std::string("none in this file") : names) + ")");
  } else if (jobs.size() > 1) {
    const SourcePos first = rd.at(docs[jobs[0]]);
    throw UserError(rd.at(docs[jobs[1]]), "a second training job '" + name_of(docs[jobs[1]]) + "' after '" +
                                              name_of(docs[jobs[0]]) + "' at " + first.str() +
                                              " (expected one training job, or --job NAME to choose one)");
  }
  try {
    for (size_t i = 0; i < docs.size(); ++i) {
      const YAML::Node& doc = docs[i];
      if (!doc.IsMap()) continue;
      if (chosen && is_job(doc) && i != *chosen) continue;
      if (const auto kind = doc["kind"]) {
        const std::string k = rd.scalar(kind, "kind");
        if (doc["metadata"] && doc["metadata"]["name"] && doc["metadata"]["name"].IsScalar())
          job.name = doc["metadata"]["name"].Scalar();
        if (k == "TrainJob")
          rd.train_job(doc, job);
        else if (k == "PyTorchJob")
          rd.pytorch_job(doc, job);
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
      break;
    }
  } catch (const YAML::Exception& e) {  // a conversion yaml-cpp could not make
    throw UserError({file_name, e.mark.line + 1, e.mark.column + 1},
                    "unexpected YAML structure: " + e.msg + " (expected a Kubernetes job)");
  }
  if (job.kind.empty()) {
    const SourcePos p = not_job ? rd.at(*not_job) : SourcePos{file_name, 1, 1};
    const std::string what =
        not_job ? "kind '" + not_job->Scalar() + "' is not a training job" : "no training job found";
    throw UserError(
        p, what + " (expected kind TrainJob, PyTorchJob or Pod, a pod spec with containers, or a trainer: block)");
  }
  find_torchrun(job);
  return job;
}

K8sJob read_k8s_job(const std::string& path, const std::string& job_name) {
  return parse_k8s_job(read_input_file(path, {path, 1, 1}, "the job", "a Kubernetes job file (YAML)"), path, job_name);
}

std::string scenario_from_k8s(const K8sJob& job, const ImportOptions& opt, std::vector<std::string>* files_read) {
  const SourcePos at{job.source, 1, 1};
  const std::string instance = !opt.instance.empty() ? opt.instance : job.instance_type;
  if (instance.empty())
    throw UserError(at,
                    "the job does not name the instance type (expected a nodeSelector "
                    "node.kubernetes.io/instance-type, or --instance NAME)");
  const models::hw::NodeSpec* node = nullptr;
  try {
    node = &models::hw::find_instance(instance);
  } catch (const models::SpecError& e) {
    throw UserError(at, e.what());
  }
  const int gpus = job.gpus_per_pod.value_or(job.procs_per_pod.value_or(0));
  if (gpus <= 0) throw UserError(at, "no GPU count (expected resources.limits nvidia.com/gpu or numProcPerNode)");
  if (gpus > node->gpus)
    throw UserError(at, "nvidia.com/gpu: " + std::to_string(gpus) + " per pod but " + instance + " has " +
                            std::to_string(node->gpus) + " GPUs (expected at most " + std::to_string(node->gpus) +
                            " per pod, or another --instance)");

  ScenarioWriter w;
  const std::string file = fs::path(job.source).filename().string();
  w.header("Written by `commsim import k8s " + file + "`: the job's layout, as a scenario.");
  for (const auto& n : job.notes) w.header("note: " + n);
  w.set("", "name", job.name.empty() ? "imported from " + file : job.name);

  // The scheduler packs pods onto as few hosts as fit (what Karpenter did in seeds/000: four
  // 1-GPU pods on one p4d.24xlarge); --set placement.pods_per_node=1 spreads them.
  const int pods_per_node = std::max(1, std::min(job.pods, node->gpus / gpus));
  const int nodes = (job.pods + pods_per_node - 1) / pods_per_node;
  w.set("cluster", "instance", instance,
        opt.instance.empty() ? "nodeSelector node.kubernetes.io/instance-type" : "given with --instance");
  w.set("cluster", "nodes", static_cast<long long>(nodes),
        std::to_string(job.pods) + " pods, " + std::to_string(pods_per_node) + " per host");
  w.set("placement", "pods_per_node", static_cast<long long>(pods_per_node));
  w.set("placement", "gpus_per_pod", static_cast<long long>(gpus),
        job.gpus_per_pod ? "resources.limits nvidia.com/gpu" : "numProcPerNode");
  w.set("placement", "host_ipc", job.host_ipc, "hostIPC");
  w.set("placement", "host_network", job.host_network, "hostNetwork");
  if (node->nics > 0)
    w.set("placement", "efa_plugin_ok", job.efa_per_pod.value_or(0) > 0,
          job.efa_per_pod ? "vpc.amazonaws.com/efa: " + std::to_string(*job.efa_per_pod)
                          : "no vpc.amazonaws.com/efa limit: aws-ofi-nccl finds no EFA device and NCCL uses Socket");
  if (job.procs_per_pod && *job.procs_per_pod != gpus)
    w.note("placement", "numProcPerNode " + std::to_string(*job.procs_per_pod) + " differs from the GPU limit " +
                            std::to_string(gpus));
  for (const auto& [k, v] : job.env) w.set("nccl.env", k, v, "container env");
  if (job.omp_threads)
    w.set("training", "cpu_threads", static_cast<long long>(*job.omp_threads), "container env OMP_NUM_THREADS");

  // Model: --model, else a preset named in the command or the job name (llama-3-8b.py).
  std::string preset = opt.model;
  if (preset.empty()) {
    const std::string hay = job.command + " " + job.name;
    for (const auto& p : models::workload::preset_names())
      if (hay.find(p) != std::string::npos && p.size() > preset.size()) preset = p;
  }
  TrainerArgs ta;
  std::string ds = opt.deepspeed;
  if (!opt.trainer_args.empty()) {
    ta = read_trainer_args(opt.trainer_args);
    if (ds.empty() && !ta.deepspeed.empty()) {
      fs::path p = fs::path(opt.trainer_args).parent_path() / ta.deepspeed;
      if (fs::exists(p))
        ds = p.string();
      else
        w.header("note: the trainer arguments name deepspeed=\"" + ta.deepspeed +
                 "\", not found next to them; pass --deepspeed");
    }
  }
  if (!ds.empty()) {
    read_deepspeed_json(ds, ds, {"--deepspeed", 1, 1});  // fail now, with the JSON's line, not at run time
    if (files_read) files_read->push_back(ds);
    const fs::path out_dir = fs::absolute(fs::path(opt.out.empty() ? "." : opt.out)).parent_path();
    // Relative to the scenario's folder (how the loader reads it), unless that climbs out of it.
    std::string rel = fs::absolute(ds).lexically_normal().lexically_relative(out_dir).string();
    if (rel.empty() || rel.rfind("..", 0) == 0) rel = fs::absolute(ds).lexically_normal().string();
    w.set("", "deepspeed_config", rel, "the job's DeepSpeed config");
  }
  if (!preset.empty()) {
    w.set("model", "preset", preset, opt.model.empty() ? "named in the job's command" : "given with --model");
    if (ta.micro_batch)
      w.set("training", "micro_batch", static_cast<long long>(*ta.micro_batch), "per_device_train_batch_size");
    if (ta.grad_accum)
      w.set("training", "grad_accum", static_cast<long long>(*ta.grad_accum), "gradient_accumulation_steps");
    if (ta.steps) w.set("training", "steps", static_cast<long long>(*ta.steps), "max_steps");
    if (ta.grad_checkpointing)
      w.set("training", "grad_checkpointing", *ta.grad_checkpointing, "gradient_checkpointing");
    if (ta.bf16 && *ta.bf16)
      w.set("training", "dtype", std::string("bf16"), "bf16=True");
    else if (ta.fp16 && *ta.fp16)
      w.set("training", "dtype", std::string("fp16"), "fp16=True");
    if (!ds.empty()) w.set("parallel", "strategy", std::string("zero3"), "DeepSpeed ZeRO (stage from the config)");
  } else {
    w.note("collective",
           "no model named (pass --model PRESET): a 1 GiB all-reduce over all ranks exercises the layout");
    w.set("collective", "op", std::string("all_reduce"));
    w.set("collective", "bytes", std::string("1 GiB"));
  }
  return w.str();
}

}  // namespace scenarios
