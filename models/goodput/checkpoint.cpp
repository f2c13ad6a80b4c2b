// One checkpoint's size, write time and the part the training loop waits for (checkpoint.hpp).
#include "models/goodput/checkpoint.hpp"

#include <algorithm>

namespace models::goodput {

CheckpointCost checkpoint_cost(const CheckpointInputs& in) {
  CheckpointCost c;
  c.bytes = in.params * in.bytes_per_param;
  c.write_s = in.storage_bandwidth > 0 ? c.bytes / in.storage_bandwidth : 0;
  const double shard = c.bytes / std::max(1, in.gpus);
  c.blocking_s = in.async && in.host_copy_bandwidth > 0 ? shard / in.host_copy_bandwidth : c.write_s;
  return c;
}

}  // namespace models::goodput
