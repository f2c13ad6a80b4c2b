// K8sJob (+ DeepSpeed JSON, Trainer arguments) -> scenario TOML. Every value the job does not
// give is a default the importer chooses: it is written with a comment starting "default:"
// and returned in ImportedScenario::defaults, which `commsim import` lists on standard error,
// so nothing is filled silently (a plain torchrun job does not become ZeRO-3 without a word).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <tuple>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "models/nccl/env_names.hpp"
#include "scenarios/import/fsdp_option.hpp"
#include "scenarios/import/job_command.hpp"
#include "scenarios/import/job_model.hpp"
#include "scenarios/import/k8s_job.hpp"
#include "scenarios/import/scenario_writer.hpp"
#include "scenarios/import/trainer_args.hpp"
#include "scenarios/load/deepspeed_config.hpp"
#include "scenarios/load/loader.hpp"

namespace fs = std::filesystem;

namespace scenarios {
namespace {

// A value chosen by the importer: written with "default: WHY" and listed.
struct Filler {
  ScenarioWriter& w;
  std::vector<FilledDefault>& list;
  void operator()(const std::string& table, const std::string& key, const TomlScalar& value, const std::string& why) {
    w.set(table, key, value, "default: " + why);
    list.push_back({table.empty() ? key : table + "." + key, toml_value_text(value), why});
  }
};

// `path` as the scenario (written to `out`) will read it: relative to the scenario's folder.
std::string relative_to_output(const std::string& path, const std::string& out) {
  const fs::path out_dir = fs::absolute(fs::path(out.empty() ? "scenario.toml" : out)).parent_path();
  const fs::path target = fs::absolute(path).lexically_normal();
  const fs::path rel = target.lexically_relative(out_dir);
  return rel.empty() ? target.string() : rel.string();
}

}  // namespace

ImportedScenario import_scenario(const K8sJob& job, const ImportOptions& opt) {
  const SourcePos at{job.source, job.line, 1};
  const std::string instance = !opt.instance.empty() ? opt.instance : job.instance_type;
  if (instance.empty())
    throw UserError(at,
                    "the job does not name the instance type (expected a nodeSelector "
                    "node.kubernetes.io/instance-type, or --instance NAME)");
  const models::hw::NodeSpec* node = nullptr;
  try {
    node = &models::hw::find_instance(instance);
  } catch (const models::SpecError& e) {
    throw UserError(opt.instance.empty() ? at : SourcePos{"--instance", 1, 1}, e.what());
  }
  if (job.gpus_per_pod && *job.gpus_per_pod == 0)  // the training's pods hold no GPU to run ranks on
    throw UserError(job.gpus_at, "nvidia.com/gpu: 0 GPUs per pod would run no rank (expected 1 or more)");
  const int gpus = job.gpus_per_pod.value_or(job.procs_per_pod.value_or(0));
  if (gpus <= 0) throw UserError(at, "no GPU count (expected resources.limits nvidia.com/gpu or numProcPerNode)");
  if (job.pods < 1)
    throw UserError(at, "the job runs no GPU pod: its replica counts add up to 0 (expected 1 or more)");
  if (gpus > node->gpus)
    throw UserError(at, "nvidia.com/gpu: " + std::to_string(gpus) + " per pod but " + instance + " has " +
                            std::to_string(node->gpus) + " GPUs (expected at most " + std::to_string(node->gpus) +
                            " per pod, or another --instance)");
  // Ranks per pod: the launcher's processes (one per GPU each) where it starts fewer than the pod's
  // GPU limit; the other GPUs of the pod are reserved but idle. More processes than GPUs would
  // share GPUs, which NCCL refuses.
  int ranks = gpus;
  if (job.gpus_per_pod && job.procs_per_pod && *job.procs_per_pod != *job.gpus_per_pod) {
    if (*job.procs_per_pod > *job.gpus_per_pod)
      throw UserError(at, std::to_string(*job.procs_per_pod) + " processes per pod on " +
                              std::to_string(*job.gpus_per_pod) +
                              " GPUs: ranks would share GPUs, which NCCL refuses (expected at most one process per "
                              "GPU: nproc_per_node, numProcPerNode or slotsPerWorker up to nvidia.com/gpu)");
    ranks = *job.procs_per_pod;
  }

  ImportedScenario result;
  ScenarioWriter w;
  Filler fill{w, result.defaults};
  const std::string file = fs::path(job.source).filename().string();
  w.header("Written by `commsim import k8s " + file + "`: the job's layout, as a scenario.");
  w.header("Values marked 'default:' are not in the job: commsim chose them; check them before trusting a run.");
  for (const auto& n : job.notes) w.header("note: " + n);
  // NCCL variables set where the file does not show them, here and from mpirun -x (below).
  std::vector<std::string> env_unknown = job.env_unknown;
  const MpiRanks mpi = mpi_ranks(job.command);
  auto value_in = [](const std::vector<std::pair<std::string, std::string>>& env,
                     const std::string& name) -> std::optional<std::string> {
    for (const auto& [k, v] : env)
      if (k == name) return v;
    return std::nullopt;
  };
  std::vector<std::tuple<std::string, std::string, std::string>> mpi_env;  // name, value, comment
  for (const auto& e : mpi.env) {
    if (!models::nccl::is_nccl_env_name(e.name)) continue;
    if (e.value) {
      mpi_env.emplace_back(e.name, *e.value, "the launcher's mpirun " + e.as_written);
    } else if (const auto v = value_in(job.launcher_env, e.name)) {
      mpi_env.emplace_back(e.name, *v, "the launcher's mpirun " + e.as_written + ", the launcher's container env");
    } else if (const auto pv = value_in(job.env, e.name)) {
      mpi_env.emplace_back(e.name, *pv, "the launcher's mpirun " + e.as_written + ", the container env");
    } else {
      env_unknown.push_back(e.name + " is passed by the launcher's mpirun " + e.as_written +
                            " from an environment this file does not show: not in [nccl.env] (add it by hand)");
    }
  }
  for (const auto& n : env_unknown) w.header("note: " + n);
  result.env_unknown = env_unknown;
  w.set("", "name", job.name.empty() ? "imported from " + file : job.name);

  // Placement: the scheduler packs pods onto as few hosts as fit (what Karpenter did in
  // seeds/000: four 1-GPU pods on one p4d.24xlarge) unless --spread or --nodes says otherwise.
  // Every host gets the same number of pods.
  const int fit = std::max(1, node->gpus / gpus);
  int pods_per_node = 1;
  std::string placement_why;
  if (opt.nodes) {
    if (*opt.nodes < 1 || job.pods % *opt.nodes != 0 || job.pods / *opt.nodes > fit)
      throw UserError({"--nodes", 1, 1}, std::to_string(job.pods) + " pods of " + std::to_string(gpus) +
                                             " GPUs do not spread evenly over " + std::to_string(*opt.nodes) +
                                             " hosts of " + std::to_string(node->gpus) +
                                             " GPUs (expected a number of hosts that divides the pods, at most " +
                                             std::to_string(fit) + " pods per host)");
    pods_per_node = job.pods / *opt.nodes;
  } else if (opt.spread) {
    pods_per_node = 1;
  } else {
    pods_per_node = std::min(job.pods, fit);
    while (job.pods % pods_per_node != 0) --pods_per_node;
    // A choice only where several pods could share a host.
    if (job.pods > 1 && fit > 1)
      placement_why = std::to_string(job.pods) + " pods packed " + std::to_string(pods_per_node) +
                      " per host, as a bin-packing scheduler places them (--spread: one per host; --nodes N)";
  }
  result.pods_per_node = pods_per_node;
  result.nodes = job.pods / pods_per_node;
  w.set("cluster", "instance", instance,
        opt.instance.empty() ? "nodeSelector node.kubernetes.io/instance-type" : "given with --instance");
  if (placement_why.empty()) {
    const std::string how = opt.nodes       ? "--nodes " + std::to_string(*opt.nodes)
                            : opt.spread    ? std::string("--spread")
                            : job.pods == 1 ? std::string("one pod")
                                            : std::to_string(gpus) + " GPUs per pod fill a host";
    w.set("cluster", "nodes", static_cast<long long>(result.nodes),
          std::to_string(job.pods) + " pods, " + std::to_string(pods_per_node) + " per host (" + how + ")");
    w.set("placement", "pods_per_node", static_cast<long long>(pods_per_node), how);
  } else {
    fill("cluster", "nodes", static_cast<long long>(result.nodes), placement_why);
    fill("placement", "pods_per_node", static_cast<long long>(pods_per_node), "see cluster.nodes");
  }
  if (ranks != gpus) {
    const std::string why = "the launcher starts " + std::to_string(ranks) + " processes per pod; its " +
                            std::to_string(gpus) + " GPUs (resources.limits nvidia.com/gpu) leave " +
                            std::to_string(gpus - ranks) + " idle";
    w.set("placement", "gpus_per_pod", static_cast<long long>(ranks), why);
    result.taken.push_back("placement.gpus_per_pod = " + std::to_string(ranks) + " (" + why + ")");
  } else {
    w.set("placement", "gpus_per_pod", static_cast<long long>(gpus),
          job.gpus_per_pod ? "resources.limits nvidia.com/gpu" : "numProcPerNode");
  }
  if (job.host_ipc_set)
    w.set("placement", "host_ipc", job.host_ipc, "hostIPC");
  else if (pods_per_node > 1)
    fill("placement", "host_ipc", false,
         "no hostIPC in the pod spec (Kubernetes' default): pods on one host share no /dev/shm, so no SHM between "
         "them even on the host's network");
  else
    w.set("placement", "host_ipc", false, "no hostIPC (Kubernetes' default); one pod per host");
  w.set("placement", "host_network", job.host_network,
        job.host_network ? "hostNetwork"
        : pods_per_node > 1
            ? "no hostNetwork (Kubernetes' default): each pod its own hostname, so NCCL sees the pods of one "
              "host as different hosts (network only between them)"
            : "no hostNetwork (Kubernetes' default)");
  if (node->nics > 0)
    w.set("placement", "efa_plugin_ok", job.efa_per_pod.value_or(0) > 0,
          job.efa_per_pod ? "vpc.amazonaws.com/efa: " + std::to_string(*job.efa_per_pod)
                          : "no vpc.amazonaws.com/efa limit: aws-ofi-nccl finds no EFA device and NCCL uses Socket");
  if (node->nics >= pods_per_node && job.efa_per_pod.value_or(0) > 0)  // the device plugin: each pod its own EFAs
    w.set("placement", "nics_per_pod", static_cast<long long>(std::min(*job.efa_per_pod, node->nics / pods_per_node)),
          "vpc.amazonaws.com/efa: " + std::to_string(*job.efa_per_pod));
  for (const auto& [k, v] : job.env) w.set("nccl.env", k, v, "container env");
  for (const auto& [k, v, from] : mpi_env) w.set("nccl.env", k, v, from);  // what the ranks get: mpirun's wins
  if (job.omp_threads)
    w.set("training", "cpu_threads", static_cast<long long>(*job.omp_threads), "container env OMP_NUM_THREADS");

  // What the job's own command says (launcher, Trainer or Megatron flags); a --trainer-args file
  // given by the user wins over it, value by value.
  const JobCommand cmd = parse_job_command(job.command);
  for (const auto& t : cmd.taken) result.taken.push_back(t);
  for (const auto& assignment : cmd.shell_env)
    w.header("note: " + assignment +
             " is set in the container's command, not its env: not read into [nccl.env] (set it there if the ranks "
             "run with it)");
  TrainerArgs ta;
  if (!opt.trainer_args.empty()) ta = read_trainer_args(opt.trainer_args);
  const JobModel model = find_job_model(job, cmd, opt, ta.model_id,
                                        opt.trainer_args.empty() ? "" : fs::path(opt.trainer_args).filename().string());
  if (!model.config.empty()) result.files.push_back(model.config);  // an input: never an output
  if (opt.model.empty() && !model.from.empty())
    result.taken.push_back("model " + (model.preset.empty() ? std::string("shape") : model.preset) + ": " + model.from);
  std::string ds = opt.deepspeed;
  if (!opt.trainer_args.empty()) {
    result.files.push_back(opt.trainer_args);
    if (ds.empty() && !ta.deepspeed.empty()) {
      fs::path p = fs::path(opt.trainer_args).parent_path() / ta.deepspeed;
      if (fs::exists(p))
        ds = p.string();
      else
        w.header("note: the trainer arguments name deepspeed=\"" + ta.deepspeed +
                 "\", not found next to them; pass --deepspeed");
    }
  }
  const std::string ta_name = opt.trainer_args.empty() ? "" : fs::path(opt.trainer_args).filename().string();
  // Each training value: the trainer arguments file, else the job's command, else a default.
  auto pick = [&](std::optional<int> file_v, std::optional<int> cmd_v, const char* file_key,
                  const char* cmd_key) -> std::pair<std::optional<int>, std::string> {
    if (file_v) return {file_v, ta_name + ": " + file_key};
    if (cmd_v) return {cmd_v, std::string("the job's command: ") + cmd_key};
    return {std::nullopt, ""};
  };
  if (ds.empty() && !cmd.deepspeed.empty()) {
    const fs::path p = fs::path(job.source).parent_path() / cmd.deepspeed;
    if (fs::is_regular_file(p))
      ds = p.string();
    else
      w.header("note: the job's command names --deepspeed " + cmd.deepspeed +
               ", not found beside the job; pass --deepspeed FILE");
  }
  DeepSpeedSettings settings;
  if (!ds.empty()) {
    settings = read_deepspeed_json(ds, ds, {"--deepspeed", 1, 1});  // fail now, with the JSON's line
    result.files.push_back(ds);
  }
  const bool has_model = !model.preset.empty() || !model.shape.empty();
  if (!has_model) {
    // No model: the layout is exercised by one all-reduce, and every training value read is
    // still written (in [training], [parallel], [zero]) so that [model] in place of [collective]
    // makes it a step.
    fill("collective", "op", std::string("all_reduce"),
         "no model in the job (no --model, no Hugging Face id in its command, no config.json beside it, no "
         "preset name in the command): a 1 GiB all-reduce over all ranks exercises the layout; replace [collective] "
         "with [model] preset = ... (commsim presets) to simulate the training step with the values below");
    fill("collective", "bytes", std::string("1 GiB"), "see collective.op");
  } else if (!model.preset.empty()) {
    w.set("model", "preset", model.preset, model.from);
  } else {
    for (const auto& [k, v] : model.shape) w.set("model", k, v, model.from);
  }
  if (has_model) {
    if (ta.seq)
      w.set("model", "seq", static_cast<long long>(*ta.seq), ta_name + ": " + ta.seq_key);
    else if (cmd.seq)
      w.set("model", "seq", static_cast<long long>(*cmd.seq), "the job's command");
    else
      fill("model", "seq", 2048LL, "sequence length not in the job (edit it to the training's)");
  }
  if (!ds.empty()) w.set("", "deepspeed_config", relative_to_output(ds, opt.out), "the job's DeepSpeed config");
  const std::string trainer_hint = opt.trainer_args.empty() ? " (pass --trainer-args, or edit)" : "";
  const std::string ds_name = ds.empty() ? "" : fs::path(ds).filename().string();
  // A whole number >= 1 the DeepSpeed JSON gives for a trainer key (not "auto"): the run uses it,
  // and the loader refuses a [training] value that differs from it.
  auto ds_count = [&](const std::string& key) -> std::optional<int> {
    const auto it = settings.training.find(key);
    if (it == settings.training.end() || it->second.is_auto || !it->second.number) return std::nullopt;
    const double v = *it->second.number;
    if (v < 1 || v > 1e9 || v != std::floor(v)) return std::nullopt;  // the loader's error, at the JSON's line
    return static_cast<int>(v);
  };
  auto count = [&](const char* key, std::pair<std::optional<int>, std::string> v, const char* arg,
                   const std::string& ds_key) {
    if (v.first) {
      w.set("training", key, static_cast<long long>(*v.first), v.second);
      return;
    }
    if (const auto n = ds_count(ds_key)) {
      w.set("training", key, static_cast<long long>(*n), ds_name + ": " + ds_key + " (the DeepSpeed config)");
      return;
    }
    std::string why = std::string(arg) + " not given" + trainer_hint;
    if (const auto it = settings.training.find(ds_key); it != settings.training.end() && it->second.is_auto)
      why += "; the DeepSpeed config's " + ds_key + " = \"auto\" becomes this value";
    fill("training", key, 1LL, why);
  };
  count("micro_batch",
        pick(ta.micro_batch, cmd.micro_batch, "per_device_train_batch_size", "per-device / micro batch size"),
        "per_device_train_batch_size", "train_micro_batch_size_per_gpu");
  const auto grad_accum =
      pick(ta.grad_accum, cmd.grad_accum, "gradient_accumulation_steps", "--gradient_accumulation_steps");
  if (cmd.global_batch && !ta.grad_accum)
    w.set("training", "global_batch", static_cast<long long>(*cmd.global_batch), "the job's command: --global-batch-size");
  else if (const auto total = ds_count("train_batch_size");
           total && !grad_accum.first && !ds_count("gradient_accumulation_steps"))
    // DeepSpeed derives the accumulation from train_batch_size / (micro-batch x data-parallel
    // ranks), and so does the loader when [training] leaves grad_accum out.
    w.note("training", "grad_accum: " + ds_name + "'s train_batch_size = " + std::to_string(*total) +
                           " / (micro_batch x data-parallel ranks), as DeepSpeed derives it");
  else
    count("grad_accum", grad_accum, "gradient_accumulation_steps", "gradient_accumulation_steps");
  if (const auto steps = pick(ta.steps, cmd.steps, "max_steps", "--max_steps / --train-iters"); steps.first)
    w.set("training", "steps", static_cast<long long>(*steps.first), steps.second);
  else
    fill("training", "steps", 1LL, "max_steps not given" + trainer_hint + ": run time is one step");
  const std::optional<bool> ckpt = ta.grad_checkpointing ? ta.grad_checkpointing : cmd.grad_checkpointing;
  if (!cmd.recompute.empty())
    w.set("training", "recompute", cmd.recompute, "the job's command: --recompute-granularity");
  else if (ckpt)
    w.set("training", "grad_checkpointing", *ckpt,
          ta.grad_checkpointing ? ta_name + ": gradient_checkpointing" : "the job's command: --gradient_checkpointing");
  else
    fill("training", "grad_checkpointing", false, "gradient_checkpointing not given" + trainer_hint);
  const bool bf16 = (ta.bf16 && *ta.bf16) || (!ta.bf16 && !ta.fp16 && cmd.bf16 && *cmd.bf16);
  const bool fp16 = !bf16 && ((ta.fp16 && *ta.fp16) || (!ta.bf16 && !ta.fp16 && cmd.fp16 && *cmd.fp16));
  const std::string dtype_from = (ta.bf16 || ta.fp16) ? ta_name : std::string("the job's command");
  // The DeepSpeed JSON's "bf16"/"fp16": {"enabled": true} (the loader reads the same).
  auto ds_enabled = [&](const char* key) {
    const auto it = settings.training.find(key);
    return it != settings.training.end() && it->second.flag && *it->second.flag;
  };
  if (bf16)
    w.set("training", "dtype", std::string("bf16"), dtype_from + ": bf16");
  else if (fp16)
    w.set("training", "dtype", std::string("fp16"), dtype_from + ": fp16");
  else if (ds_enabled("bf16"))
    w.set("training", "dtype", std::string("bf16"), ds_name + ": bf16.enabled (the DeepSpeed config)");
  else if (ds_enabled("fp16"))
    w.set("training", "dtype", std::string("fp16"), ds_name + ": fp16.enabled (the DeepSpeed config)");
  else
    fill("training", "dtype", std::string("bf16"), "no bf16/fp16 flag given" + trainer_hint);
  // FSDP: the trainer arguments' fsdp, else the job's --fsdp (fsdp_option.hpp: what each option
  // is simulated as).
  FsdpChoice fsdp;
  std::string fsdp_from;
  if (ta.fsdp) {
    fsdp = ta.fsdp_choice;
    fsdp_from = ta_name + ": fsdp " + *ta.fsdp;
  } else if (!cmd.fsdp.empty()) {
    fsdp = fsdp_choice(cmd.fsdp);
    fsdp_from = "the job's command: --fsdp " + cmd.fsdp;
    if (!fsdp.error.empty()) {  // the command is read leniently (job_command.hpp): FSDP it is
      fsdp.strategy = "fsdp";
      fsdp.why = fsdp.error + "; read as full_shard";
    }
  }
  if (!ds.empty()) {
    // The engine DeepSpeed runs: zero_optimization.stage 1, 2 or 3 (3 when not given).
    std::string strategy = "zero3";
    if (auto st = settings.zero.find("stage");
        st != settings.zero.end() && st->second.number && (*st->second.number == 1 || *st->second.number == 2))
      strategy = *st->second.number == 1 ? "zero1" : "zero2";
    w.set("parallel", "strategy", strategy, "DeepSpeed ZeRO (stage from the config)");
    // DeepSpeed's "auto" values in zero_optimization come from the model's hidden size, as the
    // Hugging Face Trainer fills them; say which.
    std::vector<std::string> autos;
    for (const auto& [key, e] : settings.zero)
      if (e.is_auto) autos.push_back(key);
    if (!autos.empty()) {
      std::string keys;
      for (const auto& k : autos) keys += (keys.empty() ? "" : ", ") + k;
      w.header("default: \"auto\" in the DeepSpeed config (" + keys +
               "): resolved from the model's hidden size, as the Hugging Face Trainer does");
      result.defaults.push_back({"zero (DeepSpeed \"auto\")", keys,
                                 "resolved from the model's hidden size, as the "
                                 "Hugging Face Trainer does"});
    }
  } else if (cmd.megatron) {
    w.set("parallel", "strategy", std::string("megatron"), "the job's command: Megatron-LM flags");
    if (cmd.tp) w.set("parallel", "tp", static_cast<long long>(*cmd.tp), "--tensor-model-parallel-size");
    if (cmd.pp) w.set("parallel", "pp", static_cast<long long>(*cmd.pp), "--pipeline-model-parallel-size");
    if (cmd.vp) w.set("parallel", "vp", static_cast<long long>(*cmd.vp), "--virtual-pipeline-model-parallel-size");
    if (cmd.cp) w.set("parallel", "cp", static_cast<long long>(*cmd.cp), "--context-parallel-size");
    if (cmd.vocab_divisible_by)
      w.set("parallel", "make_vocab_size_divisible_by", static_cast<long long>(*cmd.vocab_divisible_by),
            "--make-vocab-size-divisible-by");
    if (cmd.sequence_parallel) w.set("parallel", "sequence_parallel", true, "--sequence-parallel");
    if (cmd.distributed_optimizer) w.set("parallel", "distributed_optimizer", true, "--use-distributed-optimizer");
  } else if (!fsdp.strategy.empty()) {
    w.set("parallel", "strategy", fsdp.strategy, fsdp_from + " (" + fsdp.why + ")");
    if (fsdp.offload_optimizer) w.set("zero", "offload_optimizer", std::string("cpu"), fsdp_from + ": offload");
    for (const auto& n : fsdp.notes) {
      w.header("note: " + n);
      result.taken.push_back(n);
    }
  } else {
    fill(
        "parallel", "strategy", std::string("ddp"),
        "no DeepSpeed config (pass --deepspeed), no --fsdp or Megatron flag in the job's command: plain data "
        "parallel (a script under torchrun or mpirun without ZeRO); set fsdp or megatron if the job uses them");
  }
  result.toml = w.str();
  return result;
}

}  // namespace scenarios
