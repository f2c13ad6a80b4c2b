#include "models/collectives/copy_work.hpp"

#include <algorithm>

namespace models::collectives {

namespace {
constexpr double kLocal = 1.0;   // L: a load or store in the GPU's own memory
constexpr double kRemote = 2.0;  // R: a store across NVLink (R/L measured 1.96, see the header)

// Cost per chunk sent by the busiest rank (see the header's table).
double cost_per_chunk_sent(CollOp op, int n, bool in_place) {
  const double L = kLocal, R = kRemote, m = n - 1.0;
  switch (op) {
    case CollOp::AllReduce: return (L * (4.0 * n - 2) + R * 2 * m) / (2 * m);
    case CollOp::AllGather: return ((in_place ? 2.0 * n - 1 : 2.0 * n) * L + m * R) / m;
    case CollOp::ReduceScatter: return (2.0 * n * L + m * R) / m;
    case CollOp::Broadcast: return n == 2 ? L + R : 2 * L + R;
    case CollOp::Reduce: return n == 2 ? std::max(L + R, 3 * L) : 2 * L + R;
    default: return 0;
  }
}
}  // namespace

double copy_work_vs_all_reduce(CollOp op, int n, bool in_place) {
  if (n < 2) return 1.0;
  const double cost = cost_per_chunk_sent(op, n, in_place);
  if (cost <= 0) return 1.0;
  return cost / cost_per_chunk_sent(CollOp::AllReduce, n, false);
}

double ring_channel_gain(int n) {
  if (n <= 2) return 1.0;
  return cost_per_chunk_sent(CollOp::AllReduce, 2, false) / cost_per_chunk_sent(CollOp::AllReduce, n, false);
}

double one_rank_copy_seconds(double bytes, double hbm_bytes_per_s) {
  constexpr double kOneRankCopyFraction = 0.876;  // measured on one H200 (copy_work.hpp)
  if (!(hbm_bytes_per_s > 0) || !(bytes > 0)) return 0;
  return 2 * bytes / (kOneRankCopyFraction * hbm_bytes_per_s);
}

}  // namespace models::collectives
