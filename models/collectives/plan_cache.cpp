// Per-communicator caches of the collective engine (plan_cache.hpp), and the engine's cached
// lookups: the plan, NCCL's choice, the ring and tree latency terms.
#include "models/collectives/plan_cache.hpp"

#include <algorithm>

#include "models/collectives/engine.hpp"

namespace models::collectives {

namespace {
constexpr std::size_t kMaxCachedGroupId = std::size_t{1} << 24;  // larger ids: lookup by ranks
}

PlanEntry& PlanCache::get(const World& world, const sim::FlowNetwork& net, const Group& group) {
  const std::size_t id = group.id >= 0 ? static_cast<std::size_t>(group.id) : SIZE_MAX;
  if (id < by_id_.size() && by_id_[id] != nullptr && by_id_[id]->first == group.ranks) return by_id_[id]->second;
  auto it = by_ranks_.find(group.ranks);
  if (it == by_ranks_.end()) {
    it = by_ranks_.try_emplace(group.ranks).first;
    it->second.plan = build_plan(world, net, group.ranks, 0);  // parts: Engine::launch
  }
  if (id < kMaxCachedGroupId) {
    if (id >= by_id_.size()) by_id_.resize(id + 1, nullptr);
    by_id_[id] = &*it;
  }
  return it->second;
}

PlanEntry& Engine::plan_for(const Group& group) const { return plans_.get(world_, net_, group); }

const nccl::Choice& Engine::tuned(PlanEntry& entry, CollOp op, int64_t bytes) const {
  const uint64_t key = PlanCache::choice_key(op, bytes);
  auto it = entry.choices.find(key);
  if (it == entry.choices.end()) it = entry.choices.emplace(key, nccl::choose(entry.plan.view, env_, op, bytes)).first;
  return it->second;
}

std::pair<double, double> Engine::ring_hops(const Launch& l) const {
  const uint32_t key = PlanCache::latency_key(l.rec.proto, l.rec.channels);
  auto it = l.cache->ring_hops.find(key);
  if (it != l.cache->ring_hops.end()) return it->second;
  double hop_sum = 0, step_floor = 0;
  for (const Edge& e : l.plan->rings.front()) {
    hop_sum += hop(e, l.rec.proto, l.rec.channels);
    step_floor = std::max(step_floor, params_.of(e.link_class).step_floor_s);
  }
  l.cache->ring_hops.emplace(key, std::make_pair(hop_sum, step_floor));
  return {hop_sum, step_floor};
}

std::pair<double, double> Engine::tree_hops(const Launch& l) const {
  const uint32_t key = PlanCache::latency_key(l.rec.proto, l.rec.channels);
  auto it = l.cache->tree_hops.find(key);
  if (it != l.cache->tree_hops.end()) return it->second;
  double intra_hop = 0;
  for (const Edge& e : l.plan->trees.front().chain_up)
    intra_hop = std::max(intra_hop, hop(e, l.rec.proto, l.rec.channels));
  const double inter_hop = tree_inter_hop(l);
  l.cache->tree_hops.emplace(key, std::make_pair(intra_hop, inter_hop));
  return {intra_hop, inter_hop};
}

double Engine::tree_inter_hop(const Launch& l) const {
  const uint32_t key = PlanCache::latency_key(l.rec.proto, l.rec.channels);
  auto it = l.cache->tree_inter_hop.find(key);
  if (it != l.cache->tree_inter_hop.end()) return it->second;
  double inter_hop = 0;
  for (const Edge& e : l.plan->trees.front().up[0])
    inter_hop = std::max(inter_hop, hop(e, l.rec.proto, l.rec.channels));
  l.cache->tree_inter_hop.emplace(key, inter_hop);
  return inter_hop;
}

}  // namespace models::collectives
