// The max-min fair rates of one connected component of flows: progressive filling over the
// component's links (rate_component), its one-flow shortcut (rate_single_flow) and the audit that
// checks a component's rates against the definition (audit_component). The event bookkeeping that
// decides which components to re-rate is in flow_network.cpp.
#include <algorithm>
#include <cmath>

#include "sim/check.hpp"
#include "sim/flow_network.hpp"

namespace sim {

// A flow alone on every link of its path is its own component. Progressive filling would fix it
// at the first constraint: its cap if cap <= the narrowest capacity (each link's share is
// capacity / 1), else that capacity -- computed here with the same comparison, so the same double.
bool FlowNetwork::rate_single_flow(uint32_t seed) {
  const Link& first = links_[seed];
  if (first.flows.size() != 1) return false;
  const uint32_t fs = first.flows[0];
  const Flow& f = flows_[fs];
  const Hop* hops = f.hops.data();
  double narrowest = kUnlimitedRate;
  for (uint32_t i = 0; i < f.hops.size(); ++i) {
    const Link& l = links_[hops[i].link];
    if (l.flows.size() != 1) return false;
    narrowest = std::min(narrowest, l.capacity);
  }
  for (uint32_t i = 0; i < f.hops.size(); ++i) links_[hops[i].link].mark = epoch_;
  flow_mark_[fs] = epoch_;
  ++flows_rated_;
  ++single_flow_components_;
  const double rate = f.cap <= narrowest ? f.cap : narrowest;
  apply_rate(fs, rate);
  if (audit_) {
    comp_links_.clear();
    for (uint32_t i = 0; i < f.hops.size(); ++i) comp_links_.push_back(hops[i].link);
    comp_flows_.assign(1, fs);
    audit_component();
  }
  return true;
}

// The component's links get dense local numbers as the walk reaches them, and progressive
// filling works on dense arrays (each link's remaining capacity, unfixed weight, version; each
// flow's links by local number, its cap and weight): a million-link network's Link and Flow
// records are touched once each by the walk, not again at every step of the filling.
void FlowNetwork::rate_component(uint32_t seed) {
  comp_links_.clear();
  comp_flows_.clear();
  stack_.clear();
  local_link_.clear();
  local_remaining_.clear();
  local_unfixed_.clear();
  comp_local_.clear();
  comp_hops_.clear();
  comp_hop_begin_.clear();
  comp_cap_.clear();
  comp_weight_.clear();
  auto reach = [this](uint32_t li) {
    Link& l = links_[li];
    l.mark = epoch_;
    l.local = static_cast<uint32_t>(local_link_.size());
    local_link_.push_back(li);
    local_remaining_.push_back(l.capacity);
    local_unfixed_.push_back(l.weight);
    stack_.push_back(l.local);
  };
  reach(seed);
  while (!stack_.empty()) {
    const uint32_t lo = stack_.back();
    stack_.pop_back();
    const uint32_t li = local_link_[lo];
    comp_links_.push_back(li);
    comp_local_.push_back(lo);
    for (uint32_t fs : links_[li].flows) {
      if (flow_mark_[fs] == epoch_) continue;
      flow_mark_[fs] = epoch_;
      flow_pos_[fs] = static_cast<uint32_t>(comp_flows_.size());
      comp_flows_.push_back(fs);
      const Flow& f = flows_[fs];
      comp_cap_.push_back(f.cap);
      comp_weight_.push_back(f.weight);
      comp_hop_begin_.push_back(static_cast<uint32_t>(comp_hops_.size()));
      const Hop* hops = f.hops.data();
      for (uint32_t i = 0; i < f.hops.size(); ++i) {
        if (links_[hops[i].link].mark != epoch_) reach(hops[i].link);
        comp_hops_.push_back(links_[hops[i].link].local);
      }
    }
  }
  comp_hop_begin_.push_back(static_cast<uint32_t>(comp_hops_.size()));
  flows_rated_ += comp_flows_.size();
  if (comp_flows_.empty()) return;

  // Progressive filling: raise every unfixed flow's rate together; the first constraint to
  // saturate (a link's equal share, or a flow's own cap) fixes its flows; repeat.
  auto heap_less = [](const Share& a, const Share& b) { return a.share > b.share; };
  heap_.clear();
  local_version_.assign(local_link_.size(), 0);
  for (uint32_t lo : comp_local_) heap_.push_back({local_remaining_[lo] / local_unfixed_[lo], lo, 0});
  std::make_heap(heap_.begin(), heap_.end(), heap_less);
  // By cap per unit of weight (a weight-1 flow's cap itself: the same order as unweighted), ties
  // by slot.
  capped_.clear();
  for (uint32_t k = 0; k < comp_flows_.size(); ++k) {
    new_rate_[comp_flows_[k]] = -1;  // unfixed
    if (std::isfinite(comp_cap_[k])) capped_.push_back({comp_cap_[k] / comp_weight_[k], comp_flows_[k]});
  }
  std::sort(capped_.begin(), capped_.end());
  std::size_t next_cap = 0;
  std::size_t fixed = 0;
  // The fill level only rises. Rounding can leave a link's computed share a hair under the level
  // already reached (or its remaining capacity clamped to 0); such a link saturates at the level.
  double level = 0;

  // Fixing a flow at the current level r <= share(l) can only raise share(l) = remaining/unfixed:
  // (rem - r) / (n - 1) >= rem / n (weighted: (rem - w r) / (n - w) >= rem / n). So a link's heap entry is never above
  // its true share, and the heap is updated lazily: one entry per link, refreshed only when a stale one reaches the
  // top. A fresh entry on top is then the true minimum. This keeps the heap at the component's
  // link count instead of pushing once per (flow, link) pair.
  auto fix = [&](uint32_t fs, double rate) {
    new_rate_[fs] = rate;
    ++fixed;
    const uint32_t k = flow_pos_[fs];
    const uint64_t w = comp_weight_[k];
    for (uint32_t j = comp_hop_begin_[k]; j < comp_hop_begin_[k + 1]; ++j) {
      const uint32_t lo = comp_hops_[j];
      local_remaining_[lo] = std::max(0.0, local_remaining_[lo] - rate);
      local_unfixed_[lo] -= w;
      ++local_version_[lo];
    }
  };

  while (fixed < comp_flows_.size()) {
    while (!heap_.empty()) {
      Share& top = heap_.front();
      const uint32_t lo = top.link;
      if (local_unfixed_[lo] == 0) {
        std::pop_heap(heap_.begin(), heap_.end(), heap_less);
        heap_.pop_back();
      } else if (local_version_[lo] != top.version) {
        const Share fresh{local_remaining_[lo] / local_unfixed_[lo], lo, local_version_[lo]};
        std::pop_heap(heap_.begin(), heap_.end(), heap_less);
        heap_.back() = fresh;
        std::push_heap(heap_.begin(), heap_.end(), heap_less);
      } else {
        break;
      }
    }
    while (next_cap < capped_.size() && new_rate_[capped_[next_cap].second] >= 0) ++next_cap;
    const double link_share = heap_.empty() ? kUnlimitedRate : std::max(level, heap_.front().share);
    const double cap_share = next_cap < capped_.size() ? capped_[next_cap].first : kUnlimitedRate;
    SIM_CHECK(std::isfinite(link_share) || std::isfinite(cap_share),
              "progressive filling found no constraint for an unfixed flow");
    if (cap_share <= link_share) {
      level = std::max(level, cap_share);
      const uint32_t fs = capped_[next_cap].second;
      fix(fs, comp_cap_[flow_pos_[fs]]);
      continue;
    }
    level = link_share;
    const uint32_t li = local_link_[heap_.front().link];
    std::pop_heap(heap_.begin(), heap_.end(), heap_less);
    heap_.pop_back();
    // Fix every unfixed flow on the bottleneck link at its share (times its weight). Copy first:
    // fix() edits links.
    stack_.clear();
    for (uint32_t fs : links_[li].flows)
      if (new_rate_[fs] < 0) stack_.push_back(fs);
    for (uint32_t fs : stack_) {
      const uint32_t w = comp_weight_[flow_pos_[fs]];
      fix(fs, w == 1 ? link_share : link_share * w);
    }
  }

  for (uint32_t fs : comp_flows_) apply_rate(fs, new_rate_[fs]);

  if (audit_) audit_component();
}

void FlowNetwork::audit_component() const {
  constexpr double kTolerance = 1e-9;  // relative: rates are doubles summed along links
  for (uint32_t li : comp_links_) {
    const Link& l = links_[li];
    double load = 0;
    for (uint32_t fs : l.flows) load += flows_[fs].rate;
    SIM_CHECK(load <= l.capacity * (1 + kTolerance), "a link carries more than its capacity");
  }
  // Max-min optimality (Bertsekas & Gallager, prop. 6.5.2): a flow's rate can only be raised by
  // lowering a flow with an equal or smaller rate, i.e. it is at its cap or it has a bottleneck:
  // a saturated link on its path where no flow has a larger rate (rates per unit of weight).
  for (uint32_t fs : comp_flows_) {
    const Flow& f = flows_[fs];
    SIM_CHECK(f.rate > 0 && f.rate <= f.cap * (1 + kTolerance), "a flow's rate is outside (0, cap]");
    if (f.rate >= f.cap * (1 - kTolerance)) continue;
    bool bottlenecked = false;
    const Hop* hops = f.hops.data();
    for (uint32_t i = 0; i < f.hops.size(); ++i) {
      const Link& l = links_[hops[i].link];
      double load = 0, top = 0;
      for (uint32_t other : l.flows) {
        load += flows_[other].rate;
        top = std::max(top, flows_[other].rate / flows_[other].weight);
      }
      if (load >= l.capacity * (1 - kTolerance) && f.rate / f.weight >= top * (1 - kTolerance)) {
        bottlenecked = true;
        break;
      }
    }
    SIM_CHECK(bottlenecked, "a flow could go faster: the rates are not max-min fair");
  }
}

}  // namespace sim
