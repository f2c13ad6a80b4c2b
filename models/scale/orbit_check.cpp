// The orbit check (orbit_check.hpp).
#include "models/scale/orbit_check.hpp"

#include <algorithm>

namespace models::scale {

int orbit_check(std::span<const int> block_of, int blocks, std::span<const uint64_t> words,
                std::span<const std::size_t> begin, std::vector<uint32_t>* orbit_of) {
  const std::size_t count = block_of.size();
  const auto key = [&](uint32_t i) { return words.subspan(begin[i], begin[i + 1] - begin[i]); };
  // Flows sorted by (block, hash of the key) and compared key by key with block 0's at the same
  // rank: equal multisets give equal sequences.
  struct Sorted {
    int block;
    uint64_t hash;
    uint32_t flow;
    bool operator<(const Sorted& o) const { return block != o.block ? block < o.block : hash < o.hash; }
  };
  std::vector<Sorted> order(count);
  for (std::size_t i = 0; i < count; ++i) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the key's words, then mixed
    for (uint64_t w : key(static_cast<uint32_t>(i))) h = (h ^ w) * 1099511628211ull;
    order[i] = {block_of[i], h ^ (h >> 29), static_cast<uint32_t>(i)};
  }
  std::sort(order.begin(), order.end());
  if (blocks <= 0 || count % static_cast<std::size_t>(blocks) != 0) return kUnevenBlocks;
  const std::size_t per_block = count / static_cast<std::size_t>(blocks);
  for (std::size_t j = 0; j < count; ++j) {
    const Sorted &x = order[j], &y = order[j % per_block];
    const auto a = key(x.flow), b = key(y.flow);
    if (x.block != static_cast<int>(j / per_block) || x.hash != y.hash || !std::equal(a.begin(), a.end(), b.begin(), b.end()))
      return x.block;
  }
  if (orbit_of) {  // a member of an orbit sits at its block-0 flow's rank among its block's
    orbit_of->assign(count, 0);
    for (std::size_t j = 0; j < count; ++j) (*orbit_of)[order[j].flow] = order[j % per_block].flow;
  }
  return kOrbitsHold;
}

}  // namespace models::scale
