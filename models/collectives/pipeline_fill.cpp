// The fill of a store-and-forward chain (pipeline_fill.hpp).
#include "models/collectives/pipeline_fill.hpp"

#include <algorithm>

namespace models::collectives {

double chain_fill_s(Proto proto, int64_t buffsize, double bytes_per_channel, double sum_time_s, double max_time_s) {
  if (proto != Proto::Simple || bytes_per_channel <= 0 || sum_time_s <= max_time_s) return 0;
  return std::min(1.0, simple_chain_slice_bytes(buffsize) / bytes_per_channel) * (sum_time_s - max_time_s);
}

int64_t nvls_tree_chunk_bytes(int64_t bytes, int channels, int heads, int nodes) {
  const int64_t ops = static_cast<int64_t>(std::max(1, channels)) * std::max(1, heads);
  int64_t chunk = int64_t{128} << 10;       // NCCL_NVLS_CHUNKSIZE
  if (nodes >= 4) chunk = int64_t{64} << 10;  // NCCL_NVLSTREE_MAX_CHUNKSIZE's default from 4 nodes
  if (bytes < 32 * ops * chunk && chunk > (int64_t{256} << 10)) chunk = int64_t{256} << 10;
  if (bytes < 16 * ops * chunk && chunk > (int64_t{128} << 10)) chunk = int64_t{128} << 10;
  if (bytes < 4 * ops * chunk && chunk > (int64_t{64} << 10)) chunk = int64_t{64} << 10;
  if (bytes < ops * chunk && chunk > (int64_t{32} << 10)) chunk = int64_t{32} << 10;
  return chunk;
}

double loop_fill_s(double loop_bytes, double bytes_per_channel, double sum_time_s, double max_time_s) {
  if (loop_bytes <= 0 || bytes_per_channel <= 0 || sum_time_s <= max_time_s) return 0;
  return std::min(1.0, loop_bytes / bytes_per_channel) * (sum_time_s - max_time_s);
}

}  // namespace models::collectives
