// What a checkpoint saves per parameter (checkpoint_state.hpp).
#include "models/memory/checkpoint_state.hpp"

namespace models::memory {

CheckpointStateBytes checkpoint_state_bytes(const MemoryInputs& in) {
  const double moments = 2.0 * adam_moment_bytes(in);
  switch (in.strategy) {
    case workload::Strategy::Zero1:
    case workload::Strategy::Zero2:
    case workload::Strategy::Zero3:  // DeepSpeed clones an fp32 master whatever the model's dtype
      return {.weights = double(in.compute_bytes), .master = 4, .moments = moments};
    case workload::Strategy::Megatron:
      if (in.megatron_without_master) return {.weights = double(in.param_bytes), .master = 0, .moments = moments};
      if (in.compute_bytes >= 4) return {.weights = 4, .master = 0, .moments = moments};  // fp32: its own master
      return {.weights = 2, .master = 4, .moments = moments};                             // bf16, fp16
    case workload::Strategy::Fsdp:
    case workload::Strategy::Hsdp:
    case workload::Strategy::Ddp: return {.weights = double(in.param_bytes), .master = 0, .moments = moments};
  }
  return {};
}

}  // namespace models::memory
