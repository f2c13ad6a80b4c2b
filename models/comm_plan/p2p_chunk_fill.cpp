#include "models/comm_plan/p2p_chunk_fill.hpp"

#include <algorithm>

namespace models::collectives {

double p2p_chunk_fill(const P2pChannels& c, int64_t part) {
  if (part <= 0 || c.chunk <= 0) return 1.0;
  const double bytes = static_cast<double>(part);
  return bytes / (bytes + static_cast<double>(std::min(part, c.chunk)));
}

}  // namespace models::collectives
