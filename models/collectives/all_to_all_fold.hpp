#pragma once
// All-to-all without n(n-1) flows: the fold.
//
// NCCL's all-to-all is every ordered pair (a, b) of the n ranks sending S/n at once
// (point_to_point.cpp), n(n-1) flows max-min shared on their links. World::path_split cuts
// each pair's path where it changes hands: a's side (its GPU, node, NIC and the fabric's up
// links) then b's side (down links, b's NIC, node and GPU), each link on exactly one side.
// For rank a, its peers fall into classes B (same node: each peer alone; other nodes: by local
// GPU and fabric relation, same pod or not), each class with
//   (1) one sender side for a's out-pairs:  side_a(a, b) = src(a, B) for all b in B,
//   (2) one receiver side for a's in-pairs: side_a(b, a) = dst(a, B) for all b in B,
//   (3) one edge (link class, B_path, read mode: the same flow cap and hop) for all its pairs.
// The fold replaces a's |B| out-pairs by one flow of weight |B| (sim::FlowNetwork::start_weighted)
// along src(a, B) + dst(a, B): it stands for a's own sends on a's side and, mirrored, for what a
// receives on a's side. Classes with the same two sides and edge merge (all of a rank's peers on
// other nodes through its NIC are typically one flow), so a rank has a few flows, not n-1.
//
// Link loads are exact for any rates that are equal within classes: a link on a's sender side
// carries a's out-pairs (1); a link on a's receiver side carries a's in-pairs, |B| of them per
// class (2), as the folded flow counts. Exactness of the rates: if the folded network is
// symmetric (a group of link permutations preserving capacities maps every rank's folded flows
// onto every other's), the folded max-min gives every folded flow of a type the same rate per
// unit of weight, and these rates, given to the pairs, are max-min fair for the n(n-1) flows: the
// loads are equal link by link, every pair crosses its folded flow's sender-side bottleneck or,
// by the symmetry, the receiver's image of its receiver-side bottleneck, saturated with the same
// rates on it (Bertsekas & Gallager prop. 6.5.2); max-min rates are unique, so they are the pairs'
// rates. Equal rates and bytes drain the pairs of a class together, so this holds at every instant.
// What is checked (build_fold): the group is a rectangle (the same local GPUs on every node),
// the fabric depends on a node pair only through pods (World::fabric_pod: no ECMP hash), (1)-(3)
// on two members of each class, no link twice on a folded path, and every rank's folded flows
// have the same signature (weights, caps, and per link: capacity and the folded weight it carries;
// a straggler NIC, an uneven pod or a GPU without its own NIC differ there). Otherwise: pairs.
// At launch the fold also needs every link it uses idle (nothing else shares them); a flow that
// later arrives on one of them while the fold runs turns the folded flows back into pairs first
// (FlowNetwork::watch_links), each pair resuming with its share of the remaining bytes -- from
// that instant the pairs' max-min is the flow engine's, as without the fold.
// Closed form of a folded all-to-all alone on symmetric links (tests/models/collectives/algorithms/
// all_to_all_fold_test.cpp): each class drains when its most loaded link does, at
//   T = lat + max over the links L of the class of  (pairs crossing L x S/n) / C_L
// when that link is every pair's bottleneck (rate caps aside); the pairs' run gives the same.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/comm_plan/comm_plan.hpp"

namespace models::collectives {

struct FoldFlow {
  int rank = 0;                           // World rank a
  uint32_t weight = 0;                    // pairs it stands for
  uint32_t path_begin = 0, path_end = 0;  // into Fold::links_of_flows
  Edge edge;                              // a representative pair's edge (its path left empty)
};

struct Fold {
  std::vector<FoldFlow> flows;
  std::vector<sim::LinkId> links_of_flows;  // the flows' paths, one after another
  std::vector<sim::LinkId> links;           // every link the fold uses, once
  // Back to pairs (expansion): per rank of the group (by position) and peer class (the peer's
  // local GPU x its relation: same node, same pod, another pod), the index of its folded flow.
  static constexpr uint32_t kNone = UINT32_MAX;
  int gpus = 0;                         // GPUs per node
  std::vector<uint32_t> flow_of_class;  // [position * gpus * 3 + class]
  std::vector<uint32_t> position;       // per World rank: its position in the group, or kNone
  std::vector<int> pod_of_node;         // per World node: World::fabric_pod (nodes of the group)
  // The folded flow that carries pair a -> b (World ranks of the group, a != b).
  uint32_t flow_of_pair(const World& world, int a, int b) const;
};

// The fold of an all-to-all over `ranks` (World ranks), or the reason there is none.
struct FoldOrReason {
  std::optional<Fold> fold;
  std::string reason;
};
FoldOrReason build_fold(const World& world, const sim::FlowNetwork& net, const std::vector<int>& ranks);

}  // namespace models::collectives
