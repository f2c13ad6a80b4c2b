#pragma once
// Moving every node's GPUs `step` on (rank at local GPU g -> the rank at g + step mod k, on every
// node; step the smallest divisor of k for which this holds, 1 on p5, 2 on p4d whose GPUs pair on
// PCIe switches and NICs):
// when that maps the World onto itself, NCCL's tree sets (one per NIC group, each the previous
// one with its node leaders one GPU on: comm_plan.cpp rotation()) are images of one another, and
// a tree all-reduce can be simulated for one set (models/collectives/rotation_fold.cpp): the GPU
// rotation fold, whose folded links are the rotation's link orbits.
//
// It maps the World onto itself when (gpu_rotation checks it, else says why not):
// - there are >= 2 nodes of one kind on a non-blocking fabric (no fabric link on any path), each
//   holding k ranks on local GPUs 0..k-1, and every node
//   lays out its links alike (World::node_links) with equal capacity, latency, raw capacity and
//   added latency ([[stragglers]] link entries) at every offset;
// - a permutation pi of a node's link offsets maps path(a, b) hop by hop onto
//   path(rot a, rot b) for every pair of local GPUs inside node 0 and between nodes 0 and 1 (both
//   ways); those paths cross only the two nodes' own links (no fabric link); pi keeps each
//   link's capacity, latency, raw capacity, added latency and kind; and NCCL's transport for
//   (rot a, rot b) is that of (a, b) (kind, class, read mode, plugin, GDR, PXN relay rotated).
// One node pair stands for all: World::path builds a path between two ranks from their own
// nodes' links by local GPU and NCCL's transport choice, which depends on the ranks' local GPUs,
// pods and whether they share a host, not on which nodes they are on, once no fabric link is
// crossed (world.cpp path_impl, nccl/transport.cpp). tests/models/scale/gpu_rotation_test.cpp
// checks random pairs of other nodes too.
//
// The rotation's link orbits of size order = k / step (a node's GPU ports, its NICs ...) are the
// classes of the network's folded links (FoldedLinks); links it fixes or moves in shorter cycles
// are in no class.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/scale/fold.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::scale {

struct GpuRotation : FoldedLinks {
  static constexpr uint32_t kNone = UINT32_MAX;
  int k = 0;                                // GPUs (ranks) per node
  int step = 1;                             // GPUs one rotation moves (the smallest that is a symmetry)
  int order = 0;                            // k / step: rotations before every GPU is back
  std::vector<std::vector<int>> rank_at;    // [node][local GPU] -> World rank
  std::vector<uint32_t> image;              // per link: its image under the rotation, or kNone
  std::string why_not;                      // set when the rotation is not a symmetry

  bool applies() const { return why_not.empty(); }
  // The rank `times` rotations on from `rank` on its node (times x step GPUs).
  int rotate(const World& world, int rank, int times = 1) const {
    const RankInfo& r = world.rank(rank);
    return rank_at[r.node][(r.local_gpu + times * step) % k];
  }
  // The image of link l (kNone: a link no checked path crosses, or outside the nodes).
  uint32_t rotate_link(uint32_t l) const { return l < image.size() ? image[l] : kNone; }
  // A kept flow may stand for its images on folded links: every link of its path in a class, no class
  // twice (its images then cross each real link at most once each). Paths of more than 16 links
  // (none today: a NET path with PXN has 9) are refused.
  bool foldable(std::span<const sim::LinkId> path) const;
};

// The rotation of `world` (on links of `net`), or why it is not a symmetry (why_not).
GpuRotation gpu_rotation(const World& world, const sim::FlowNetwork& net);

}  // namespace models::scale
