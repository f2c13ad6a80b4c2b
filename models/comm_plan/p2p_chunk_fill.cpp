#include "models/comm_plan/p2p_chunk_fill.hpp"

namespace models::collectives {

double p2p_chunk_fill(const P2pChannels& c, int64_t part) {
  if (part <= 0 || c.chunk <= 0) return 1.0;
  const double k = static_cast<double>((part + c.chunk - 1) / c.chunk);
  return k / (k + 1.0);
}

}  // namespace models::collectives
