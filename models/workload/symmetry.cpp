// Rank classes (symmetry.hpp) and the executor's use of them.
#include "models/workload/symmetry.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <tuple>

#include "models/workload/executor.hpp"
#include "sim/check.hpp"

namespace models::workload {

namespace {
RankClasses every_rank(int n, std::string why) {
  RankClasses c;
  c.rep.resize(n);
  c.size.assign(n, 1);
  for (int r = 0; r < n; ++r) c.rep[r] = r;
  c.simulated = n;
  c.why_full = std::move(why);
  return c;
}
}  // namespace

RankClasses rank_classes(const std::vector<Program>& programs, const std::vector<RankSetup>& ranks,
                         const std::vector<int>& keep) {
  const int n = static_cast<int>(ranks.size());
  for (const Program& p : programs)
    for (const auto& stream : p.ops)
      for (const Op& op : stream) {
        if (op.kind == OpKind::Send || op.kind == OpKind::Recv)
          return every_rank(n, "point-to-point transfers are per rank pair");
        if (op.kind == OpKind::Copy) return every_rank(n, "offload copies share each node's host links");
      }
  // Class key: program, compute speed (its bits), the group of every slot.
  using Key = std::tuple<int, uint64_t, std::array<int, kMaxSlots>>;
  std::map<Key, int> first;
  RankClasses c;
  c.rep.resize(n);
  c.size.assign(n, 0);
  std::vector<uint8_t> kept(n, 0);
  for (int r : keep)
    if (r >= 0 && r < n) kept[r] = 1;
  for (int r = 0; r < n; ++r) {
    if (kept[r]) {
      c.rep[r] = r;
      c.size[r] = 1;
      continue;
    }
    uint64_t scale_bits = 0;
    std::memcpy(&scale_bits, &ranks[r].compute_scale, sizeof scale_bits);
    Key key{ranks[r].program, scale_bits, {}};
    std::copy(std::begin(ranks[r].group), std::end(ranks[r].group), std::get<2>(key).begin());
    const int rep = first.try_emplace(key, r).first->second;
    c.rep[r] = rep;
    ++c.size[rep];
  }
  for (int r = 0; r < n; ++r) c.simulated += c.size[r] > 0;
  return c;
}

RankClasses StepExecutor::simulate_classes(const std::vector<int>& keep) {
  RankClasses c = rank_classes(programs_, ranks_, keep);
  if (c.simulated == static_cast<int>(ranks_.size())) return c;
  set_simulated(c.size, c.rep);
  return c;
}

void StepExecutor::simulate_replicas(ReplicaQuotient q) {
  SIM_CHECK(q.applies() && q.rep.size() == ranks_.size(), "replicas simulated without their quotient");
  set_simulated(std::move(q.weight), std::move(q.rep));
  mirrored_group_ = std::move(q.mirrored_group);
  launches_ = std::move(q.launches);
  images_ = std::move(q.images);
  net_.set_mirrors(std::move(q.class_of_link), q.model_of_class);
  // Nodes simulated once: the simulated ranks' copies stand for their images' too, and the
  // collectives launch as node orbits.
  mirror_copies_ = q.node_orbits && q.spanning_group.empty();
  if (!q.spanning_group.empty()) {  // replica orbits: the spanning groups' collectives launch as orbits
    orbit_group_ = std::move(q.spanning_group);
    engine_.set_orbit_blocks(std::move(q.block_of_node), std::move(q.place_of_node));
    return;
  }
  engine_.set_node_orbits(q.node_orbits);
}

void StepExecutor::simulate_node_orbits(ReplicaQuotient q) {
  SIM_CHECK(q.applies() && q.node_orbits, "node orbits without their quotient");
  mirrored_group_ = std::move(q.mirrored_group);
  net_.set_mirrors(std::move(q.class_of_link), q.model_of_class);
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
