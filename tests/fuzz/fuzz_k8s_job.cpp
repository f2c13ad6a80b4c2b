// Fuzzes the Kubernetes job importer (yaml-cpp underneath) and the Trainer arguments reader:
// parse or scenarios::UserError (FILE:LINE:COL), nothing else.
#include <cstdint>
#include <string>

#include "scenarios/import/k8s_job.hpp"
#include "scenarios/import/trainer_args.hpp"
#include "scenarios/load/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto job = scenarios::parse_k8s_job(text, "fuzz.yaml");
    scenarios::ImportOptions opt;
    opt.instance = "p4d.24xlarge";
    (void)scenarios::scenario_from_k8s(job, opt);
  } catch (const scenarios::UserError&) {
  }
  try {
    (void)scenarios::parse_trainer_args(text, "fuzz.txt");
  } catch (const scenarios::UserError&) {
  }
  return 0;
}
