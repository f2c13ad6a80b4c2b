// Rank classes (rank_classes.hpp).
#include "models/scale/step/rank_classes.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace models::scale {

using workload::kMaxSlots;
using workload::Op;
using workload::OpKind;
using workload::Program;
using workload::RankSetup;

namespace {
RankClasses every_rank(int n, std::string why) {
  RankClasses c;
  c.rep.resize(n);
  c.weight.assign(n, 1);
  for (int r = 0; r < n; ++r) c.rep[r] = r;
  c.simulated = n;
  c.why_not = std::move(why);
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
  c.weight.assign(n, 0);
  std::vector<uint8_t> kept(n, 0);
  for (int r : keep)
    if (r >= 0 && r < n) kept[r] = 1;
  for (int r = 0; r < n; ++r) {
    if (kept[r]) {
      c.rep[r] = r;
      c.weight[r] = 1;
      continue;
    }
    Key key{ranks[r].program, bits(ranks[r].compute_scale), {}};
    std::copy(std::begin(ranks[r].group), std::end(ranks[r].group), std::get<2>(key).begin());
    const int rep = first.try_emplace(key, r).first->second;
    c.rep[r] = rep;
    ++c.weight[rep];
  }
  for (int r = 0; r < n; ++r) c.simulated += c.weight[r] > 0;
  return c;
}

}  // namespace models::scale
