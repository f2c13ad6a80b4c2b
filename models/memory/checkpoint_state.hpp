#pragma once
// What a training checkpoint saves per parameter: the model states that outlive a step, as the
// memory model holds them (memory_peak.hpp), summed over their shards. A checkpoint holds the
// weights, the optimizer's fp32 master copy where the strategy keeps one, and Adam's m and v;
// gradients are rebuilt by the next step and are not saved (nor Megatron's fp32 main-gradient
// copy under fp16). In bytes per parameter, w = training.dtype's bytes, p = the parameters'
// dtype (training.param_dtype, else w), o = each moment's (adam_moment_bytes: training.optimizer_dtype,
// else fp32 for DeepSpeed and Megatron-LM, else the parameters' dtype for torch.optim.AdamW):
//   ZeRO 1-3 (DeepSpeed):  w + 4 + 2o   the module's weights (mp_rank_*_model_states.pt) and the
//                                        optimizer's fp32 partition, m, v (zero_pp_rank_*_optim_states.pt);
//                                        ZeRO section 5.1's K = 12 plus the weights: bf16 14, fp32 16
//   Megatron-LM:           w + 4 + 2o   bf16 and fp16 (the fp32 master, m, v of distrib_optimizer.md's
//                                        bytes per parameter): 14;
//                          4 + 2o       fp32 (the parameters are the master): 12;
//                          p + 2o       with training.param_dtype (no master: the optimizer updates them)
//   FSDP, HSDP, DDP:       p + 2o       torch.optim.AdamW on the parameters themselves, m and v in their
//                                        dtype (PyTorch DCP saves the model's and the optimizer's
//                                        state_dict): bf16 2 + 4 = 6
#include "models/memory/memory_peak.hpp"

namespace models::memory {

struct CheckpointStateBytes {
  double weights = 0, master = 0, moments = 0;  // moments: m and v together
  double total() const { return weights + master + moments; }
};

// Bytes per parameter of the model a checkpoint of `in`'s strategy and dtypes saves.
CheckpointStateBytes checkpoint_state_bytes(const MemoryInputs& in);

}  // namespace models::memory
