#pragma once
// What a training job's own command line says: the launcher (torchrun, accelerate launch,
// deepspeed, mpirun), Hugging Face Trainer flags (--model_name_or_path, per-device batch,
// --fsdp, bare --bf16 / --gradient_checkpointing, --deepspeed) and Megatron-LM flags
// (--tensor-model-parallel-size, --micro-batch-size, --global-batch-size, --seq-length, ...).
// Read by `commsim import k8s` before the defaults, each value with the flag it came from, so the
// import can say on stderr what it took from where.
#include <optional>
#include <string>
#include <vector>

namespace scenarios {

struct JobCommand {
  std::string launcher;                // "torchrun", "accelerate", "deepspeed", "mpirun", "" (none found)
  std::optional<int> procs_per_node;   // --nproc_per_node / --num_processes per machine / --num_gpus
  std::optional<int> nodes;            // --nnodes / --num_machines / --num_nodes
  std::string model_id;                // --model_name_or_path / --model_id / --model (as written)
  std::optional<int> micro_batch;      // --per_device_train_batch_size / --micro-batch-size
  std::optional<int> grad_accum;       // --gradient_accumulation_steps
  std::optional<int> global_batch;     // --global-batch-size (Megatron)
  std::optional<int> steps;            // --max_steps / --train-iters
  std::optional<int> seq;  // --max_seq_length / --max_seq_len / --block_size / --model_max_length / --seq-length
  std::optional<bool> bf16, fp16, grad_checkpointing;
  std::string recompute;               // Megatron --recompute-granularity (full | selective)
  std::string fsdp;                    // --fsdp "full_shard auto_wrap" (as written); "" if not given
  std::string deepspeed;               // --deepspeed ds.json (as written)
  std::optional<int> tp, pp, vp, cp;   // Megatron parallel sizes
  std::optional<int> vocab_divisible_by;  // Megatron --make-vocab-size-divisible-by
  bool megatron = false;               // a Megatron flag was seen
  bool sequence_parallel = false, distributed_optimizer = false;
  // "key = value (from --flag)" per value taken, in order: what the import lists on stderr.
  std::vector<std::string> taken;
  // NCCL_*, FI_* and OFI_NCCL_* assignments in the command itself ("export NCCL_ALGO=Tree; ...",
  // "NCCL_PROTO=Simple torchrun ..."), as written: not read into [nccl.env] (a shell's variables
  // need not reach the ranks as written), said so by the import.
  std::vector<std::string> shell_env;
};

// Tolerant: unknown flags are skipped, a value that is not a number where one is expected is
// skipped with a line in `taken` saying so. Never throws.
JobCommand parse_job_command(const std::string& command);

// The ranks an MPI launcher line starts: Open MPI's and MPICH/Hydra's `-np N` / `-n N` / `--np N`
// (total) and `-N N` / `--npernode N` / `-ppn N` / `--map-by ppr:N:node` (per node), read up to the
// program it launches (whose own `-n` is not the launcher's). `flags` is what was read, as written.
// Also the variables it sets in the ranks' environment: Open MPI's `-x VAR=VAL` and `-x VAR` (the
// launcher's own value), Hydra's `-genv VAR VAL` / `-env VAR VAL` (or VAR=VAL).
struct MpiEnv {
  std::string name;
  std::optional<std::string> value;  // unset: `-x VAR`, the value the launcher's environment holds
  std::string as_written;            // "-x NCCL_ALGO=Ring"
};
struct MpiRanks {
  std::optional<int> total;
  std::optional<int> per_node;
  std::string flags;
  std::string unread;  // rank counts that are not numbers ("-np $NP"), as written
  std::vector<MpiEnv> env;
};
MpiRanks mpi_ranks(const std::string& command);

// A Hugging Face model id (or a local path ending in one) -> the preset of the same shape, from a
// small offline table ("meta-llama/Meta-Llama-3-8B" -> "llama-3-8b"); "" if none matches.
std::string preset_for_model_id(const std::string& model_id);

}  // namespace scenarios
