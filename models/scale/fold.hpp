#pragma once
// A fold: which simulated entity stands for which real ones. Every way commsim simulates a large
// step by a small part of it (models/scale/README.md lists them) is an instance: some simulated
// ranks each stand for several real ranks (`rep`, `weight`), and some folded links each stand
// for a class of real links (`FoldedLinks`), carrying the simulated ranks' flows rated exactly as
// each real link of the class would be. The theorem that makes every fold exact, and its one
// guard, are stated once, in models/scale/README.md ("Why a fold is exact", "The guard").
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "sim/flow_network.hpp"
#include "sim/time.hpp"

namespace models::scale {

// Links folded by class: the network's folded link of class c (sim::FlowNetwork::set_folded_links)
// stands for every real link l with class_of_link[l] == c, and takes the capacity and latency of
// model_of_class[c]. Empty: no link folded.
struct FoldedLinks {
  std::vector<uint32_t> class_of_link;      // per link: its class, or sim::FlowNetwork::kNoClass
  std::vector<sim::LinkId> model_of_class;  // per class: one of its real links
};

// Ranks folded, and the links their traffic runs on.
struct Fold : FoldedLinks {
  std::vector<int> rep;     // per rank: the simulated rank standing for it (itself if simulated)
  std::vector<int> weight;  // per rank: how many ranks it stands for (0: not simulated)
  std::string why_not;      // non-empty: the fold does not apply, and why
};

// Installs the folded links on the network (once, on an idle network): from then on the guard
// watches them (README, "The guard").
inline void fold_links(sim::FlowNetwork& net, FoldedLinks links) {
  net.set_folded_links(std::move(links.class_of_link), links.model_of_class);
}

// Where the guard stopped a run: when, and the real link (a class's model) whose folded link met
// other traffic. nullopt: the guard held.
struct GuardFailure {
  sim::Time at;
  std::string link;
};
inline std::optional<GuardFailure> guard_failure(const sim::FlowNetwork& net) {
  if (!net.fold_violated()) return std::nullopt;
  std::string name(net.link_name(net.fold_violation_link()));
  if (name.rfind("fold/", 0) == 0) name = name.substr(5);  // a folded link: its model's name
  return GuardFailure{net.fold_violation_time(), std::move(name)};
}

// A double's bits: folds compare rates and sizes exactly (an image must be the same number).
inline uint64_t bits(double x) {
  uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace models::scale
