// The planner's cell layout (see channel_layout.hpp for the equations and their source).
#include "models/nccl/channel_layout.hpp"

#include <algorithm>

namespace models::nccl {

namespace {
int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up16(int64_t a) { return div_up(a, 16) * 16; }

int traffic_per_byte(CollOp op, int nranks) {
  switch (op) {
    case CollOp::AllReduce: return 2;
    case CollOp::AllGather:
    case CollOp::ReduceScatter: return nranks;
    default: return 1;
  }
}
}  // namespace

int planned_channels(CollOp op, Proto proto, int nranks, int64_t bytes, int max_channels) {
  if (max_channels <= 1 || bytes <= 0) return 1;
  const int64_t per_byte = traffic_per_byte(op, nranks) * (proto == Proto::LL ? 4 : 1);
  const int64_t traffic = std::max(kMinTrafficPerChannel, bytes * per_byte);
  const int64_t per_channel = round_up16(traffic / max_channels);
  const int64_t cell = round_up16(div_up(kMinTrafficPerChannel, per_byte));
  const int64_t cells = div_up(bytes, cell);
  const int64_t per_cell = cell * per_byte;
  const int64_t cells_per_channel = std::min(cells, div_up(per_channel, per_cell));
  // The first channel takes as many cells as the others (it starts with no traffic), the last
  // one what is left.
  const int64_t channels = div_up(cells, cells_per_channel);
  return static_cast<int>(std::min<int64_t>(channels, max_channels));
}

}  // namespace models::nccl
