// Data-parallel replicas that share nodes, taken as blocks of consecutive replicas (replicas.hpp,
// node_whole_replicas).
#include <algorithm>

#include "models/scale/step/replicas.hpp"

namespace models::scale {

std::vector<int> node_whole_replicas(const World& world, const std::vector<int>& replica_of_rank) {
  if (replica_of_rank.empty()) return replica_of_rank;
  const int m = 1 + *std::max_element(replica_of_rank.begin(), replica_of_rank.end());
  const int n = static_cast<int>(replica_of_rank.size());
  if (m < 2 || world.size() != n) return replica_of_rank;
  std::vector<int> owner(world.nodes());
  // The smallest block g (dividing m, below m) such that no node holds ranks of two blocks.
  for (int g = 1; g < m; ++g) {
    if (m % g != 0) continue;
    std::fill(owner.begin(), owner.end(), -1);
    bool whole = true;
    for (int r = 0; r < n && whole; ++r) {
      if (replica_of_rank[r] < 0) return replica_of_rank;
      const int block = replica_of_rank[r] / g;
      int& o = owner[world.rank(r).node];
      whole = o < 0 || o == block;
      o = block;
    }
    if (!whole) continue;
    if (g == 1) return replica_of_rank;
    std::vector<int> blocks(replica_of_rank);
    for (int& k : blocks) k /= g;
    return blocks;
  }
  return replica_of_rank;  // every replica shares a node with every other: the fold says so
}

}  // namespace models::scale
