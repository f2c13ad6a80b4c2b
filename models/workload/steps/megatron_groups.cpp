// Megatron-LM's communicators on the parallel grid (semantics and sources in megatron.hpp): the
// data-parallel (with context parallel), tensor-parallel, embedding and expert groups, and each
// rank's pipeline and context-parallel peers.
#include <algorithm>
#include <utility>
#include <vector>

#include "models/workload/steps/megatron.hpp"
#include "models/workload/steps/megatron_layer.hpp"

namespace models::workload {

using namespace megatron_slots;

void megatron_layout(const MegatronConfig& c, std::vector<collectives::Group>& groups, std::vector<RankSetup>& ranks) {
  const ParallelLayout& l = c.layout;
  const int n = l.size();
  ranks.assign(n, RankSetup{});
  auto add_group = [&](const char* name, int slot, const std::vector<int>& members) {
    collectives::Group g{members, int(groups.size()), name};
    for (int r : members) ranks[r].group[slot] = int(groups.size());
    groups.push_back(std::move(g));
  };
  // Data parallel with context parallel (gradients are summed over both), per (t, s).
  for (int s = 0; s < l.pp; ++s)
    for (int t = 0; t < l.tp; ++t) {
      std::vector<int> m;
      for (int d = 0; d < l.dp; ++d)
        for (int cp = 0; cp < l.cp; ++cp) m.push_back(megatron_rank(l, {t, cp, d, s}));
      std::sort(m.begin(), m.end());
      add_group("dp", kGroupDp, m);
    }
  for (int s = 0; s < l.pp; ++s)
    for (int d = 0; d < l.dp; ++d)
      for (int cp = 0; cp < l.cp; ++cp) {
        std::vector<int> m;
        for (int t = 0; t < l.tp; ++t) m.push_back(megatron_rank(l, {t, cp, d, s}));
        add_group("tp", kGroupTp, m);
      }
  if (l.pp > 1 && c.model.tied_embeddings)
    for (int d = 0; d < l.dp; ++d)
      for (int cp = 0; cp < l.cp; ++cp)
        for (int t = 0; t < l.tp; ++t)
          add_group("embedding", kGroupEmbedding,
                    {megatron_rank(l, {t, cp, d, 0}), megatron_rank(l, {t, cp, d, l.pp - 1})});
  // Expert grid (layout.hpp): within a stage, y = t + tp (c + cp d) = te + etp (e + ep j) for
  // ETP index te, EP index e and expert-data-parallel index j; an EP group fixes (te, j, s), an
  // EDP group (te, e, s), an ETP group (e, j, s). With etp = tp an ETP group is a TP group: the
  // MoE collectives use the TP communicator (no second one).
  if (c.model.is_moe()) {
    const int edp = l.edp(), stage_size = l.tp * l.cp * l.dp;
    auto rank_of = [&](int te, int e, int j, int s) { return s * stage_size + te + l.etp * (e + l.ep * j); };
    for (int s = 0; s < l.pp; ++s)
      for (int te = 0; te < l.etp; ++te) {
        if (l.ep > 1)
          for (int j = 0; j < edp; ++j) {
            std::vector<int> m;
            for (int e = 0; e < l.ep; ++e) m.push_back(rank_of(te, e, j, s));
            add_group("ep", kGroupEp, m);
          }
        if (edp > 1)
          for (int e = 0; e < l.ep; ++e) {
            std::vector<int> m;
            for (int j = 0; j < edp; ++j) m.push_back(rank_of(te, e, j, s));
            add_group("edp", kGroupEdp, m);
          }
      }
    if (l.etp == l.tp) {
      for (RankSetup& r : ranks) r.group[kGroupEtp] = r.group[kGroupTp];
    } else if (l.etp > 1) {
      for (int s = 0; s < l.pp; ++s)
        for (int j = 0; j < edp; ++j)
          for (int e = 0; e < l.ep; ++e) {
            std::vector<int> m;
            for (int te = 0; te < l.etp; ++te) m.push_back(rank_of(te, e, j, s));
            add_group("etp", kGroupEtp, m);
          }
    }
  }
  for (int r = 0; r < n; ++r) {
    const MegatronCoord x = megatron_coord(l, r);
    ranks[r].program = x.s;
    if (l.pp > 1) {
      ranks[r].peer[kPeerNext] = megatron_rank(l, {x.t, x.c, x.d, (x.s + 1) % l.pp});
      ranks[r].peer[kPeerPrev] = megatron_rank(l, {x.t, x.c, x.d, (x.s + l.pp - 1) % l.pp});
    }
    if (l.cp > 1) {
      ranks[r].peer[kPeerCpNext] = megatron_rank(l, {x.t, (x.c + 1) % l.cp, x.d, x.s});
      ranks[r].peer[kPeerCpPrev] = megatron_rank(l, {x.t, (x.c + l.cp - 1) % l.cp, x.d, x.s});
    }
  }
}

}  // namespace models::workload
