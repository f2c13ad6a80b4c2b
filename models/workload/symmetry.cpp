// Rank classes (symmetry.hpp) and the executor's use of them.
#include "models/workload/symmetry.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <tuple>

#include "models/workload/executor.hpp"

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
  weight_ = c.size;
  rep_ = c.rep;
  // Per group, its members that are simulated (in the group's order).
  group_sim_.assign(groups_.size(), {});
  for (std::size_t g = 0; g < groups_.size(); ++g)
    for (int m : groups_[g].ranks)
      if (weight_[m] > 0) group_sim_[g].push_back(m);
  return c;
}

void StepExecutor::expand_classes() {
  if (rep_.empty()) return;
  for (std::size_t r = 0; r < rep_.size(); ++r)
    if (rep_[r] != static_cast<int>(r)) acct_[r] = acct_[rep_[r]];
}

}  // namespace models::workload
