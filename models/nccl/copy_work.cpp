#include "models/nccl/copy_work.hpp"

namespace models::nccl {

namespace {
// Memory operations per chunk sent by the busiest rank (see the header's table).
double ops_per_chunk_sent(CollOp op, int n, bool in_place) {
  switch (op) {
    case CollOp::AllReduce: return (6.0 * n - 4) / (2.0 * n - 2);
    case CollOp::AllGather: return in_place ? (3.0 * n - 2) / (n - 1) : (3.0 * n - 1) / (n - 1);
    case CollOp::ReduceScatter: return (3.0 * n - 1) / (n - 1);
    case CollOp::Broadcast: return n == 2 ? 2.0 : 3.0;
    case CollOp::Reduce: return 3.0;  // recvReduceSend along the chain, recvReduceCopy at the root
    default: return 0;
  }
}
}  // namespace

double copy_work_vs_all_reduce(CollOp op, int n, bool in_place) {
  if (n < 2) return 1.0;
  const double ops = ops_per_chunk_sent(op, n, in_place);
  if (ops <= 0) return 1.0;
  return ops / ops_per_chunk_sent(CollOp::AllReduce, n, false);
}

}  // namespace models::nccl
