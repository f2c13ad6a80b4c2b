#pragma once
// Reading a torchtitan job config (the TOML passed to torchtitan's train.py with --job.config_file,
// torchtitan/config/job_config.py before torchtitan moved its configs to Python) into a scenario
// for `commsim run`, as `commsim import torchtitan` writes it.
//
// What is read: [model] name and flavor (a commsim preset of the same shape), [training]
// local_batch_size (older batch_size), global_batch_size, seq_len, steps, dtype,
// mixed_precision_param, mixed_precision_reduce, enable_cpu_offload, compile; [parallelism] the
// data-parallel replicate and shard degrees (shard -1: the ranks left over), tensor, pipeline,
// context and expert degrees, fsdp_reshard_after_forward; [activation_checkpoint] mode and
// selective_ac_option; model.converters (float8, mx), [quantize.linear.float8] / older [float8]
// enable_fsdp_float8_all_gather; [compile] enable; [optimizer] name and implementation. Other keys
// are ignored; a known key of the wrong type is an error.
//
// Refused, at the key's FILE:LINE:COL, where commsim has no strategy that is torchtitan's: tensor,
// pipeline, context or expert parallelism beside FSDP2 or DDP (2D/3D), CPU offload, parameters
// kept gathered after forward (fsdp_reshard_after_forward = "never"), an optimizer other than
// Adam/AdamW, a model flavor without a dense preset of its shape (commsim's experts run under
// megatron only). What is read but not modelled (torch.compile, float8 all-gathers, per-op
// selective checkpointing) is a note in the scenario.
#include <optional>
#include <string>
#include <vector>

namespace scenarios {

struct TorchtitanOptions {
  std::string instance;      // catalog instance (required: the config names none)
  std::optional<int> nodes;  // hosts of the instance, all GPUs used
  std::optional<int> gpus;   // ranks in all (torchrun's world size)
};

struct TorchtitanImport {
  std::string toml;                 // the scenario
  std::vector<std::string> read;    // "training.seq_len = 8192 -> model.seq": each value read, for stderr
  std::vector<std::string> chosen;  // "training.recompute = \"none\": why": what the importer chose
  std::vector<std::string> notes;   // read but not modelled
  std::string strategy;             // fsdp, hsdp or ddp
  int gpus = 0, nodes = 0;
};

// Throws UserError at FILE:LINE:COL of the config (or of --gpus / --nodes / --instance).
TorchtitanImport import_torchtitan(const std::string& text, const std::string& file_name,
                                   const TorchtitanOptions& options);
TorchtitanImport read_torchtitan_config(const std::string& path, const TorchtitanOptions& options);

}  // namespace scenarios
