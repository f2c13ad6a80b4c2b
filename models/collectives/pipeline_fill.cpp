// The fill of a store-and-forward chain (pipeline_fill.hpp).
#include "models/collectives/pipeline_fill.hpp"

#include <algorithm>

namespace models::collectives {

double chain_fill_s(Proto proto, int64_t buffsize, double bytes_per_channel, double sum_time_s, double max_time_s) {
  if (proto != Proto::Simple || bytes_per_channel <= 0 || sum_time_s <= max_time_s) return 0;
  return std::min(1.0, simple_chain_slice_bytes(buffsize) / bytes_per_channel) * (sum_time_s - max_time_s);
}

}  // namespace models::collectives
