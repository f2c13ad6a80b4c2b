// The executor's side of the folds (models/scale/step_fold.hpp): which ranks it simulates, for
// how many each stands, and which groups launch once for their images.
#include "models/workload/executor.hpp"
#include "sim/check.hpp"

namespace models::workload {

void StepExecutor::simulate_classes(const scale::RankClasses& c) {
  if (c.simulated == static_cast<int>(ranks_.size())) return;
  set_simulated(c.weight, c.rep);
}

void StepExecutor::simulate_fold(scale::StepFold q) {
  SIM_CHECK(q.applies() && q.rep.size() == ranks_.size(), "a fold simulated that does not apply");
  set_simulated(std::move(q.weight), std::move(q.rep));
  folded_group_ = std::move(q.folded_group);
  launches_ = std::move(q.launches);
  images_ = std::move(q.images);
  scale::fold_links(net_, std::move(static_cast<scale::FoldedLinks&>(q)));  // its links only
  // Alike nodes: the simulated ranks' copies stand for their images' too, and the collectives
  // launch as node orbits.
  folded_copies_ = q.node_orbits && q.spanning_group.empty();
  if (!q.spanning_group.empty()) {  // replica orbits: the spanning groups' collectives launch as orbits
    orbit_group_ = std::move(q.spanning_group);
    engine_.set_orbit_blocks(std::move(q.block_of_node), std::move(q.place_of_node));
    return;
  }
  engine_.set_node_orbits(q.node_orbits);
}

void StepExecutor::simulate_node_orbits(scale::StepFold q) {
  SIM_CHECK(q.applies() && q.node_orbits, "node orbits without their fold (alike nodes)");
  folded_group_ = std::move(q.folded_group);
  scale::fold_links(net_, std::move(static_cast<scale::FoldedLinks&>(q)));  // its links only
  engine_.set_node_orbits(true);
}

void StepExecutor::set_simulated(std::vector<int> weight, std::vector<int> rep) {
  weight_ = std::move(weight);
  rep_ = std::move(rep);
  // Per group, its members that are simulated (in the group's order), and the sum of their
  // weights: the arrivals that launch it (the group's size, or for a replica's own group its
  // size times the replicas it stands for).
  group_sim_.assign(groups_.size(), {});
  group_need_.assign(groups_.size(), 0);
  for (std::size_t g = 0; g < groups_.size(); ++g)
    for (int m : groups_[g].ranks)
      if (weight_[m] > 0) {
        group_sim_[g].push_back(m);
        group_need_[g] += uint32_t(weight_[m]);
      }
}

void StepExecutor::expand_classes() {
  if (rep_.empty()) return;
  for (std::size_t r = 0; r < rep_.size(); ++r)
    if (rep_[r] != static_cast<int>(r)) acct_[r] = acct_[rep_[r]];
  if (images_.empty()) return;
  // A replica's own transfers stand for their images' (pairs already listed are skipped).
  const std::size_t simulated = p2p_pairs_.size();
  for (std::size_t i = 0; i < simulated; ++i) {
    const auto [a, b] = p2p_pairs_[i];
    for (std::size_t k = 1; k < images_[a].size(); ++k) {
      const int x = images_[a][k], y = images_[b][k];
      if (p2p_seen_.insert((uint64_t(uint32_t(x)) << 32) | uint32_t(y)).second) p2p_pairs_.emplace_back(x, y);
    }
  }
}

}  // namespace models::workload
