#pragma once
// The orbit check of models/scale/README.md ("The guard"), written once for every fold that keeps
// one flow per orbit (node orbits and replica orbits: collectives/node_orbits.cpp; the GPU
// rotation: collectives/rotation_fold.cpp).
//
// A move sigma shifts blocks (nodes, replicas, groups of `step` GPUs) one on. Each flow leaves one
// block, and its key is the flow described relative to that block: moved back to block 0 (its
// bytes, rate cap, latency and path hop by hop in the block's own terms, ...). The flow list is
// invariant under sigma exactly when every block's multiset of keys is block 0's; then block 0's
// flows are one per orbit, and each stands for its images.
// Cost: O(F log F + total key words) (keys hashed, sorted per block, then compared word by word:
// a hash collision can only make the check fail, never pass wrongly).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace models::scale {

// Keys in flat words: flow i's are words[begin[i] .. begin[i + 1]). `block_of[i]`: the block flow
// i leaves (0 .. blocks - 1). Returns kOrbitsHold, kUnevenBlocks (not as many flows leave every
// block), or the first block whose flows are not block 0's moved on.
// `orbit_of`, if given and the orbits hold: per flow, the flow of block 0 whose orbit it is in
// (ECMP orbits, ecmp_orbits.hpp, lift each member's shared hops onto it).
inline constexpr int kOrbitsHold = -1;
inline constexpr int kUnevenBlocks = -2;
int orbit_check(std::span<const int> block_of, int blocks, std::span<const uint64_t> words,
                std::span<const std::size_t> begin, std::vector<uint32_t>* orbit_of = nullptr);

}  // namespace models::scale
