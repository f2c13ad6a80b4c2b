#pragma once
// The Hugging Face Trainer's `fsdp` argument ("full_shard auto_wrap", as TrainingArguments reads
// it: words split on whitespace, each an FSDPOption; True means full_shard) -> the strategy a
// scenario simulates it with, and why. Used for a job's own `--fsdp` (job_command.hpp) and for a
// --trainer-args file (trainer_args.hpp).
//   full_shard                  -> fsdp (FSDP2, every parameter sharded, gathered per unit)
//   shard_grad_op               -> zero2: parameters kept gathered from forward through backward,
//                                  gradients and optimizer state sharded, which is ZeRO-2's
//                                  traffic (commsim models no FSDP variant of it)
//   hybrid_shard                -> hsdp (sharded within a node, replicated across nodes)
//   hybrid_shard_zero2          -> hsdp (its SHARD_GRAD_OP inside a node is simulated as full sharding)
//   no_shard                    -> ddp
//   offload                     -> with shard_grad_op, zero2's optimizer offload; with the others
//                                  it is not modelled (FSDP's CPUOffload) and the run says so
//   auto_wrap                   -> one unit per decoder block, which is how commsim wraps anyway
#include <string>
#include <vector>

namespace scenarios {

struct FsdpChoice {
  std::string strategy;            // fsdp | zero2 | hsdp | ddp; "" when FSDP is off ("", False)
  bool offload_optimizer = false;  // zero.offload_optimizer = "cpu" (shard_grad_op offload)
  std::string why;                 // what was chosen from what, for the scenario's comment
  std::vector<std::string> notes;  // what is simulated differently from the job
  std::string error;               // not an fsdp value the Trainer accepts: why ("" if it is)
};

FsdpChoice fsdp_choice(const std::string& value);

}  // namespace scenarios
