// commsim import k8s JOB.yaml [--job NAME] [--deepspeed ds.json] [--trainer-args FILE]
//                             [--instance NAME] [--model PRESET] [--nodes N | --spread]
//                             --out scenario.toml [--json]
// Turns what users deploy (a Kubeflow TrainJob / PyTorchJob / MPIJob, a batch/v1 Job, a JobSet,
// a Pod, a kind: List of them, or a pasted pod spec or trainer: block) into a scenario; the
// file is written atomically, only when everything parsed. Every value the job does not give is
// written with a "default:" comment and listed on standard error; paths in the scenario are
// relative to it.
// commsim import torchtitan CONFIG.toml --instance NAME [--nodes N | --gpus N] [--out scenario.toml]
// Turns a torchtitan job config into a scenario (scenarios/import/torchtitan_config.hpp): written
// atomically to --out, else to standard output; each value read is listed on standard error.
#include <algorithm>
#include <cstdio>
#include <string>

#include "models/utf8.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_schema.hpp"
#include "scenarios/import/k8s_job.hpp"
#include "scenarios/import/torchtitan_config.hpp"

namespace scenarios {

int cmd_import(int argc, char** argv) {
  CLI::App app{
      "Turn a Kubernetes job (and its DeepSpeed config, Trainer arguments) or a torchtitan config into a "
      "scenario.",
      "commsim import"};
  app.require_subcommand(1);
  CLI::App* k8s = app.add_subcommand(
      "k8s",
      "Kubeflow TrainJob / PyTorchJob / MPIJob, batch/v1 Job, JobSet, Pod, kind: List, or a pod spec / "
      "trainer: fragment (YAML)");
  std::string job_path, job_name;
  ImportOptions opt;
  int nodes = 0;
  bool json = false;
  k8s->add_option("job", job_path, "the job's YAML")->required()->type_name("JOB.yaml");
  k8s->add_option("--job", job_name, "the job to import (metadata.name) when the file holds several")
      ->type_name("NAME");
  k8s->add_option("--deepspeed", opt.deepspeed, "the job's DeepSpeed JSON config")->type_name("ds.json");
  k8s->add_option("--trainer-args", opt.trainer_args, "Hugging Face Trainer arguments (key=value, or --key value)")
      ->type_name("FILE");
  k8s->add_option("--instance", opt.instance, "catalog instance, when the YAML has no instance-type nodeSelector")
      ->type_name("NAME");
  k8s->add_option("--model", opt.model, "model preset, when the job's command does not name one")->type_name("PRESET");
  auto* nodes_opt =
      k8s->add_option("--nodes", nodes, "spread the pods evenly over N hosts (default: packed onto as few as fit)")
          ->type_name("N")
          ->check(whole_number(1, 1000000));
  k8s->add_flag("--spread", opt.spread, "one pod per host (default: packed onto as few as fit)")->excludes(nodes_opt);
  k8s->add_option("--out", opt.out, "scenario file to write")->required()->type_name("scenario.toml");
  k8s->add_flag("--json", json, "print what was imported as one JSON object (docs/result.schema.json)");
  CLI::App* titan = app.add_subcommand(
      "torchtitan", "a torchtitan job config (the TOML of train.py --job.config_file): FSDP2, HSDP or DDP");
  std::string titan_path, titan_out;
  TorchtitanOptions titan_opt;
  int titan_nodes = 0, titan_gpus = 0;
  titan->add_option("config", titan_path, "the torchtitan job config")->required()->type_name("CONFIG.toml");
  titan->add_option("--instance", titan_opt.instance, "catalog instance the job runs on (commsim instances)")
      ->required()
      ->type_name("NAME");
  auto* titan_nodes_opt = titan->add_option("--nodes", titan_nodes, "hosts of the instance, every GPU one rank")
                              ->type_name("N")
                              ->check(whole_number(1, 1000000));
  titan->add_option("--gpus", titan_gpus, "ranks in all, torchrun's world size (default: the config's degrees)")
      ->type_name("N")
      ->check(whole_number(1, 1 << 20))
      ->excludes(titan_nodes_opt);
  titan->add_option("--out", titan_out, "scenario file to write (default: standard output)")
      ->type_name("scenario.toml");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  if (titan->parsed()) {
    if (titan_nodes_opt->count() > 0) titan_opt.nodes = titan_nodes;
    if (titan_gpus > 0) titan_opt.gpus = titan_gpus;
    return guarded([&] {
      if (!titan_out.empty()) refuse_outputs_over_inputs({{"--out", titan_out}}, {titan_path});
      const TorchtitanImport imported = read_torchtitan_config(titan_path, titan_opt);
      if (titan_out.empty())
        std::fputs(imported.toml.c_str(), stdout), std::fflush(stdout);  // before stderr's list, on a terminal
      else
        write_file_atomically(titan_out, imported.toml);
      std::fprintf(stderr, "commsim import: read from %s:\n", titan_path.c_str());
      for (const auto& r : imported.read) std::fprintf(stderr, "  %s\n", r.c_str());
      if (!imported.chosen.empty()) {
        std::fprintf(stderr, "commsim import: %zu value%s chosen by commsim, written with a 'default:' comment:\n",
                     imported.chosen.size(), imported.chosen.size() == 1 ? "" : "s");
        for (const auto& d : imported.chosen) std::fprintf(stderr, "  %s\n", d.c_str());
      }
      for (const auto& n : imported.notes) std::fprintf(stderr, "commsim import: note: %s\n", n.c_str());
      if (!titan_out.empty())
        std::printf("%s: %s on %d GPU%s, %d host%s -> %s\n", titan_path.c_str(), imported.strategy.c_str(),
                    imported.gpus, imported.gpus == 1 ? "" : "s", imported.nodes, imported.nodes == 1 ? "" : "s",
                    titan_out.c_str());
      return 0;
    });
  }
  if (nodes_opt->count() > 0) opt.nodes = nodes;

  return guarded([&] {
    refuse_outputs_over_inputs({{"--out", opt.out}}, {job_path, opt.deepspeed, opt.trainer_args});
    const K8sJob job = read_k8s_job(job_path, job_name);
    const ImportedScenario imported = import_scenario(job, opt);
    // again with what the import found to read (a DeepSpeed JSON the trainer arguments name)
    refuse_outputs_over_inputs({{"--out", opt.out}}, imported.files);
    const int gpus = job.gpus_per_pod.value_or(job.procs_per_pod.value_or(0));
    // Everything that could still fail (the JSON) is made before the file is written: an import
    // that exits with an error leaves an existing --out as it was.
    std::string json_out;
    if (json) {
      CommandInputs inputs{{job_path}, {}};
      for (const auto* f : {&opt.deepspeed, &opt.trainer_args})
        if (!f->empty()) inputs.files.push_back(*f);
      for (const auto& f : imported.files)  // found by the import: a config.json, a JSON the arguments name
        if (std::find(inputs.files.begin(), inputs.files.end(), f) == inputs.files.end()) inputs.files.push_back(f);
      Json j = json_header("import", inputs);
      j["output"] = models::utf8_text(opt.out);  // a file name is bytes; JSON needs UTF-8
      j["kind"] = job.kind;
      j["name"] = job.name;
      j["pods"] = job.pods;
      j["gpus_per_pod"] = gpus;
      j["nodes"] = imported.nodes;
      j["pods_per_node"] = imported.pods_per_node;
      Json defaults = Json::array();
      for (const auto& d : imported.defaults) defaults.push_back({{"key", d.key}, {"value", d.value}, {"why", d.why}});
      j["defaults"] = std::move(defaults);
      json_out = dump_json(std::move(j));
    }
    write_file_atomically(opt.out, imported.toml);
    if (!imported.defaults.empty()) {
      std::fprintf(stderr, "commsim import: %zu value%s not in the job, written to %s with a 'default:' comment:\n",
                   imported.defaults.size(), imported.defaults.size() == 1 ? "" : "s", opt.out.c_str());
      for (const auto& d : imported.defaults)
        std::fprintf(stderr, "  %s = %s: %s\n", d.key.c_str(), d.value.c_str(), d.why.c_str());
    }
    for (const auto& n : imported.env_unknown) std::fprintf(stderr, "commsim import: note: %s\n", n.c_str());
    if (!imported.taken.empty()) {
      std::fprintf(stderr, "commsim import: read from the job's command:\n");
      for (const auto& t : imported.taken) std::fprintf(stderr, "  %s\n", t.c_str());
    }
    if (json) {
      std::fputs(json_out.c_str(), stdout);
      return 0;
    }
    std::printf("%s: %s, %d pod%s x %d GPU%s on %d host%s -> %s\n", job_path.c_str(), job.kind.c_str(), job.pods,
                job.pods == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s", imported.nodes, imported.nodes == 1 ? "" : "s",
                opt.out.c_str());
    return 0;
  });
}

}  // namespace scenarios
