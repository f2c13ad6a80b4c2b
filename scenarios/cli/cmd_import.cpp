// commsim import k8s JOB.yaml [--deepspeed ds.json] [--trainer-args FILE] [--instance NAME]
//                             [--model PRESET] --out scenario.toml
// Turns what users deploy (a Kubeflow TrainJob / PyTorchJob, a Pod, or a pasted pod spec or
// trainer: block) into a scenario; the file is written atomically, only when everything parsed,
// and never over one of the files it read.
#include <cstdio>
#include <string>
#include <vector>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/import/k8s_job.hpp"

namespace scenarios {

int cmd_import(int argc, char** argv) {
  CLI::App app{"Turn a Kubernetes job (and its DeepSpeed config, Trainer arguments) into a scenario.",
               "commsim import"};
  app.require_subcommand(1);
  CLI::App* k8s =
      app.add_subcommand("k8s", "Kubeflow TrainJob / PyTorchJob, Pod, or a pod spec / trainer: fragment (YAML)");
  std::string job_path;
  ImportOptions opt;
  k8s->add_option("job", job_path, "the job's YAML")->required()->type_name("JOB.yaml");
  k8s->add_option("--deepspeed", opt.deepspeed, "the job's DeepSpeed JSON config")->type_name("ds.json");
  k8s->add_option("--trainer-args", opt.trainer_args, "Hugging Face Trainer arguments (key=value, or --key value)")
      ->type_name("FILE");
  k8s->add_option("--instance", opt.instance, "catalog instance, when the YAML has no instance-type nodeSelector")
      ->type_name("NAME");
  k8s->add_option("--model", opt.model, "model preset, when the job's command does not name one")->type_name("PRESET");
  k8s->add_option("--out", opt.out, "scenario file to write")->required()->type_name("scenario.toml");
  std::string job_name;
  k8s->add_option("--job", job_name, "the job to import (metadata.name), when the file holds several")
      ->type_name("NAME");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    refuse_outputs_over_inputs({{"--out", opt.out}}, {job_path, opt.deepspeed, opt.trainer_args});
    const K8sJob job = read_k8s_job(job_path, job_name);
    std::vector<std::string> read{job_path, opt.trainer_args};
    const std::string toml = scenario_from_k8s(job, opt, &read);
    refuse_outputs_over_inputs({{"--out", opt.out}}, read);
    write_file_atomically(opt.out, toml);
    std::printf("%s: %s, %d pod%s x %d GPU%s -> %s\n", job_path.c_str(), job.kind.c_str(), job.pods,
                job.pods == 1 ? "" : "s", job.gpus_per_pod.value_or(job.procs_per_pod.value_or(0)),
                job.gpus_per_pod.value_or(job.procs_per_pod.value_or(0)) == 1 ? "" : "s", opt.out.c_str());
    return 0;
  });
}

}  // namespace scenarios
