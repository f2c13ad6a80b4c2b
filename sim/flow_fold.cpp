// The flow network's folded links and their guard (set_folded_links, flow_network.hpp; the scale
// engine's theorem and guard: models/scale/README.md), and watches on links (the all-to-all
// fold's guard: the first flow that arrives on a watched link turns the fold into its pairs).
#include <algorithm>
#include <string>

#include "sim/check.hpp"
#include "sim/flow_network.hpp"

namespace sim {

void FlowNetwork::set_folded_links(std::vector<uint32_t> class_of_link, std::span<const LinkId> model_of_class) {
  SIM_CHECK(!folded() && active_flows_ == 0 && live_blocks_ == 0, "folded links are set once, before any flow");
  SIM_CHECK(class_of_link.size() == links_.size(), "a class (or none) for every link");
  const uint32_t classes = static_cast<uint32_t>(model_of_class.size());
  for (uint32_t c : class_of_link) SIM_CHECK(c == kNoClass || c < classes, "a link of an unknown class");
  const uint32_t first = static_cast<uint32_t>(links_.size());
  for (LinkId m : model_of_class) {
    SIM_CHECK(m.index < first, "a class's model must be a link");
    const Link& model = links_[m.index];
    const double capacity = model.capacity;
    const Time latency = model.latency;
    const std::string name = "fold/" + std::string(link_name(m)), kind = link_kind(m);
    add_link(name, kind, capacity, latency);
  }
  first_folded_ = first;
  class_of_link_ = std::move(class_of_link);
  real_flows_.assign(classes, 0);
  real_held_.assign(classes, Time::zero());
}

// `flow`: li had no flow and now carries one (else a block holds it until `until`). The guard
// only needs the instants at which one side of a class becomes busy: an overlap starts at one.
void FlowNetwork::occupy(uint32_t li, bool flow, Time until) {
  const Time now = sim_.now();
  uint32_t c;
  bool other_busy;
  if (li >= first_folded_) {
    c = li - first_folded_;
    other_busy = real_busy(c);
  } else {
    if (li >= class_of_link_.size() || class_of_link_[li] == kNoClass) return;
    c = class_of_link_[li];
    if (flow)
      ++real_flows_[c];
    else if (until > now)
      real_held_[c] = std::max(real_held_[c], until);
    other_busy = folded_busy(c);
  }
  if (!other_busy) return;
  suspects_.push_back(c);
  if (!check_scheduled_) {
    check_scheduled_ = true;
    sim_.schedule_end_of_instant([this] { check_folds(); });
  }
}

// A held link stays busy until its flow's drain (a block turned into flows keeps the bound: its
// flows drain no earlier, as they ran alone at the fastest rate their links allow).
bool FlowNetwork::folded_busy(uint32_t c) const {
  const Link& s = links_[first_folded_ + c];
  return !s.flows.empty() || s.held_until > sim_.now();
}

bool FlowNetwork::real_busy(uint32_t c) const { return real_flows_[c] > 0 || real_held_[c] > sim_.now(); }

// End of an instant: a class whose folded link and one of whose real links both still carry traffic
// would have shared that link in the full network from this instant on.
void FlowNetwork::check_folds() {
  check_scheduled_ = false;
  for (uint32_t c : suspects_)
    if (!fold_violated_ && folded_busy(c) && real_busy(c)) violate(first_folded_ + c);
  suspects_.clear();
}

void FlowNetwork::violate(uint32_t li) {
  if (fold_violated_) return;
  fold_violated_ = true;
  violation_time_ = sim_.now();
  violation_link_ = LinkId{li};
  sim_.stop();
}

uint32_t FlowNetwork::watch_links(std::span<const LinkId> links, Completion on_touch) {
  uint32_t w;
  if (!free_watches_.empty()) {
    w = free_watches_.back();
    free_watches_.pop_back();
  } else {
    w = static_cast<uint32_t>(watches_.size());
    watches_.emplace_back();
  }
  Watch& x = watches_[w];
  x.links.clear();
  for (LinkId l : links) {
    SIM_CHECK(l.index < links_.size(), "a watch names an unknown link");
    links_[l.index].watch = w;
    x.links.push_back(l.index);
  }
  x.on_touch = std::move(on_touch);
  x.live = true;
  return w;
}

void FlowNetwork::unwatch(uint32_t w) {
  SIM_CHECK(w < watches_.size(), "unknown watch");
  Watch& x = watches_[w];
  if (!x.live) return;
  for (uint32_t li : x.links)
    if (links_[li].watch == w) links_[li].watch = UINT32_MAX;
  x.live = false;
  x.on_touch.reset();
  free_watches_.push_back(w);
}

void FlowNetwork::fire_watch(uint32_t w) {
  Completion touch = std::move(watches_[w].on_touch);
  unwatch(w);  // before the watcher runs: the flows it starts attach freely
  if (touch) touch();
}

}  // namespace sim
