#pragma once
// Reading Hugging Face Trainer arguments, which `commsim import k8s --trainer-args` adds to the
// scenario written from a Kubernetes job (k8s_job.hpp).
#include <optional>
#include <string>

#include "scenarios/import/fsdp_option.hpp"

namespace scenarios {

// Hugging Face TrainingArguments as written in code (`per_device_train_batch_size=1,`) or on the
// command line (`--per_device_train_batch_size 1`, a bare `--bf16` meaning true as the Trainer's
// parser takes it). Unknown arguments are ignored.
struct TrainerArgs {
  std::optional<int> micro_batch;  // per_device_train_batch_size
  std::optional<int> grad_accum;   // gradient_accumulation_steps
  std::optional<int> steps;        // max_steps
  std::optional<int> seq;          // max_seq_length / max_seq_len / model_max_length / block_size / seq_length /
                                   // max_length (the script's own arguments, as the job's command reads them)
  std::string seq_key;             // which of them, for comments
  std::string model_id;            // model_name_or_path / model_id / model_name / model_path, as written
  std::optional<bool> bf16, fp16;
  std::optional<bool> grad_checkpointing;
  std::string deepspeed;  // deepspeed="ds.json", as written
  std::optional<std::string> fsdp;  // fsdp="full_shard auto_wrap", as written
  FsdpChoice fsdp_choice;           // what it is simulated as (an unknown option is refused at it)
};
TrainerArgs parse_trainer_args(const std::string& text, const std::string& file_name);
TrainerArgs read_trainer_args(const std::string& path);

}  // namespace scenarios
