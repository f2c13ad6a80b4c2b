#pragma once
// Which model a Kubernetes job trains, in the order `commsim import k8s` looks: --model, the
// Hugging Face id on the command line (job_command.hpp's offline table), a config.json beside the
// job (its shape, as Hugging Face writes it), a preset's name anywhere in the command or the job's
// name ("llama-3-8b.py").
#include <string>
#include <utility>
#include <vector>

#include "scenarios/import/job_command.hpp"
#include "scenarios/import/k8s_job.hpp"

namespace scenarios {

struct JobModel {
  std::string preset;                              // "" when a shape is given or nothing was found
  std::vector<std::pair<std::string, long long>> shape;  // [model] keys from config.json (layers, hidden, ...)
  std::string from;                                // where it came from, in words, for comments and stderr
  std::string config;                              // the config.json read for the shape ("" when none)
};

// Throws UserError at config.json's place when it exists but is not a decoder's config.
// `trainer_model_id`: model_name_or_path from the --trainer-args file `trainer_file` (as the other
// values of that file, it wins over the job's command).
JobModel find_job_model(const K8sJob& job, const JobCommand& command, const ImportOptions& options,
                        const std::string& trainer_model_id = "", const std::string& trainer_file = "");

}  // namespace scenarios
