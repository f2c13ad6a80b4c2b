// The NVLSTree part of a plan laid out folded by the GPU rotation (complete_plan with a rotation,
// comm_plan.hpp): tree set 0 and each node's first `step` GPUs' port pairs only, set 0's
// rings_sharing counted over every set's images (models/scale/README.md: why a fold is exact).
#include <bit>
#include <cstdint>
#include <unordered_map>

#include "models/comm_plan/comm_plan_steps.hpp"

namespace models::collectives {

namespace plan_steps {

namespace {

// Folded (trees: set 0 alone): link b is a bottleneck of set r iff rotating it back r GPUs gives
// one of set 0's, so its sets are the r with b among set 0's bottlenecks rotated r times. False
// when a bottleneck has no known image (the fold is then abandoned).
bool count_folded_sets_sharing(std::vector<CommPlan::TreeSet>& trees, const std::vector<sim::LinkId>& chain_shared,
                               const scale::GpuRotation& rot) {
  std::unordered_map<uint32_t, uint64_t> sets_of;  // per link: a bit per set
  bool known = true;
  const auto add = [&](sim::LinkId b) {
    uint32_t x = b.index;
    for (int r = 0; r < rot.order; ++r) {
      if (x == scale::GpuRotation::kNone) {
        known = false;
        return;
      }
      sets_of[x] |= uint64_t{1} << r;
      x = rot.rotate_link(x);
    }
  };
  for (Edge* e : tree_edges(trees.front())) add(e->bottleneck);
  for (sim::LinkId l : chain_shared) add(l);
  for (Edge* e : tree_edges(trees.front())) e->rings_sharing = std::popcount(sets_of[e->bottleneck.index]);
  return known && rot.order <= 64;
}

// The folded flows' links: each in an orbit (a class of folded links), no class twice on one edge.
bool folded_links_ok(const CommPlan& plan, const scale::GpuRotation& rot) {
  for (const auto* list : {&plan.nvls_net_merged, &plan.nvls_switch})
    for (const auto& m : *list)
      if (!rot.foldable(m.edge.path)) return false;
  return true;
}

}  // namespace

// Whether the NVLSTree part may be built folded by `rotation`: one tree set per GPU of whole
// nodes, each NCCL node one World node in local GPU order (set r's leaders are then GPU r's).
bool may_fold(const World& world, const CommPlan& plan, const scale::GpuRotation& rot) {
  if (!rot.applies() || plan.sets != rot.order || static_cast<int>(plan.members.size()) != world.nodes()) return false;
  for (const auto& m : plan.members) {
    if (static_cast<int>(m.size()) != rot.k) return false;
    const int node = world.rank(m[0]).node;
    for (int j = 0; j < rot.k; ++j)
      if (m[j] != rot.rank_at[node][j]) return false;
    for (int r = 0; r < plan.sets; ++r)
      if (rotation(r, plan.sets, rot.k) != r * rot.step) return false;
  }
  return true;
}

// The NVLSTree part folded (may_fold holds); false (nothing kept) when a bottleneck has no known
// image or a kept edge crosses a link outside the orbits of k.
bool plan_nvls_tree_folded(const World& world, const sim::FlowNetwork& net, CommPlan& plan, const scale::GpuRotation& rot) {
  if (plan.trees.empty()) {
    build_tree_sets(world, net, plan.members, plan.sets, false, plan, 1);
    const auto shared = chain_bottlenecks_shared(world, net, plan.members, plan.sets, plan, &rot);
    if (!count_folded_sets_sharing(plan.trees, shared.front(), rot)) {
      plan.trees.clear();
      return false;
    }
  }
  plan_nvls_tree(world, net, plan.members, plan, /*folded=*/rot.step);
  if (!folded_links_ok(plan, rot)) {
    if (static_cast<int>(plan.trees.size()) < plan.sets) plan.trees.clear();
    plan.nvls_net_merged.clear();
    plan.nvls_switch.clear();
    return false;
  }
  plan.nvls_rotation = rot.order;
  return true;
}

}  // namespace plan_steps

void unfold_nvls_tree(CommPlan& plan) {
  if (plan.nvls_rotation == 0) return;
  if (static_cast<int>(plan.trees.size()) < plan.sets) plan.trees.clear();
  plan.nvls_net_merged.clear();
  plan.nvls_switch.clear();
  plan.nvls_rotation = 0;
  plan.built &= ~static_cast<unsigned>(kPlanNvlsTree);
}

}  // namespace models::collectives
