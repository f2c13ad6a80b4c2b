#pragma once
// What one checkpoint costs. Its size is the model's state: the parameters in their training
// format plus the optimizer's states (Adam: fp32 master copy, m and v, 12 B per parameter;
// Rajbhandari et al. 2020, ZeRO section 5.1, K = 12), which is what Megatron's distributed
// checkpoint and PyTorch's DCP save (gradients are not saved):
//   bytes = params x (weight bytes + 12)          (14 B per parameter in bf16/fp16 training)
// Writing it to storage of aggregate bandwidth B_s takes W = bytes / B_s. Synchronous (the
// frameworks' default: Megatron-LM without --async-save, DeepSpeed, DCP's save) the step loop
// stops for W. Asynchronous (Megatron-core --async-save, DCP async_save) each rank only copies its
// shard to pinned host memory, bytes / gpus over its PCIe link, and the write runs beside the
// next steps: the loop stops for that copy, a checkpoint is usable W later, and the next one
// cannot start before it is written.
namespace models::goodput {

struct CheckpointInputs {
  double params = 0;               // model parameters
  double bytes_per_param = 14;     // weights + optimizer states
  int gpus = 1;                    // ranks writing their shard in parallel
  double storage_bandwidth = 0;    // aggregate, B/s
  double host_copy_bandwidth = 0;  // one GPU to host memory, B/s (PCIe)
  bool async = false;
};

struct CheckpointCost {
  double bytes = 0;
  double write_s = 0;     // bytes / storage bandwidth
  double blocking_s = 0;  // what the training loop waits: write_s, or the shard's copy when async
};

CheckpointCost checkpoint_cost(const CheckpointInputs& in);

}  // namespace models::goodput
