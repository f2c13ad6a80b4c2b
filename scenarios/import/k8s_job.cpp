// Kubernetes job YAML (yaml-cpp) -> K8sJob -> scenario TOML. See k8s_job.hpp.
// This file: the checks on the raw text, the document loop that dispatches each object on its
// kind to JobReader (k8s_job_reader.hpp: k8s_pod_spec.cpp, k8s_controllers.cpp) and picks the
// training job, and the torchrun options read from its command.
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
#include "scenarios/import/k8s_job_reader.hpp"
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

void find_torchrun(K8sJob& job) {
  static const std::regex kNproc(R"(--nproc[_-]per[_-]node[= ]+(\d+))");
  static const std::regex kNnodes(R"(--nnodes[= ]+(\d+))");
  std::smatch m;
  // Bounded input for std::regex (recursive matcher); torchrun options come first anyway.
  const std::string cmd = job.command.substr(0, 16384);
  auto small = [](const std::string& digits) { return digits.size() <= 6; };
  if (!job.procs_per_pod && std::regex_search(cmd, m, kNproc) && small(m[1])) {
    job.procs_per_pod = std::stoi(m[1]);
    if (*job.procs_per_pod == 0)  // torchrun would start no worker on the pod's GPUs
      throw UserError(job.command_pos(static_cast<size_t>(m.position(0))),
                      m[0].str() + ": 0 processes per pod would run no rank (expected --nproc_per_node 1 or more)");
  }
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
  k8s_read::JobReader rd(file_name);
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
