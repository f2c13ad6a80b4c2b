// [[stragglers]] link = "..." (link_stragglers.hpp states the model).
#include "models/world/link_stragglers.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "models/error.hpp"
#include "models/suggest.hpp"

namespace models {

bool link_name_matches(std::string_view pattern, std::string_view name) {
  // Iterative glob with one backtrack point (the last '*'): O(|pattern| x |name|) at worst.
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

void apply_link_stragglers(const ScenarioSpec& spec, sim::FlowNetwork& net, uint32_t first_link,
                           std::vector<double>& raw, std::vector<double>& added_latency_s) {
  const auto count = static_cast<uint32_t>(net.link_count());
  for (std::size_t i = 0; i < spec.stragglers.size(); ++i) {
    const StragglerSpec& st = spec.stragglers[i];
    if (st.link.empty()) continue;
    const std::string key = "stragglers." + std::to_string(i);
    if (!(st.bandwidth_factor > 0 && st.bandwidth_factor <= 1))
      throw SpecError(key + ".bandwidth_factor", key + ".bandwidth_factor: " + std::to_string(st.bandwidth_factor) +
                                                     " (expected a fraction of the link's capacity in (0, 1])");
    if (!(st.latency_factor >= 1))
      throw SpecError(key + ".latency_factor", key + ".latency_factor: " + std::to_string(st.latency_factor) +
                                                   " (expected a factor of at least 1, 2 = twice the latency)");
    bool matched = false;
    for (uint32_t l = first_link; l < count; ++l) {
      const sim::LinkId id{l};
      if (!link_name_matches(st.link, net.link_name(id))) continue;
      matched = true;
      const sim::Time lat = net.link_latency(id);
      const sim::Time slow = sim::Time::from_seconds(lat.seconds() * st.latency_factor);
      net.set_link(id, net.link_capacity(id) * st.bandwidth_factor, slow);
      if (l < raw.size() && raw[l] > 0) raw[l] *= st.bandwidth_factor;
      if (added_latency_s.size() < count) added_latency_s.resize(count, 0.0);
      added_latency_s[l] += (slow - lat).seconds();
    }
    if (matched) continue;
    // The closest names by edit distance alone (link names share long prefixes, which
    // closest_names would count as evidence: "node1/gpu9" is nearer node1/gpu0 than node0/gpu0).
    std::vector<std::pair<std::size_t, std::string>> scored;
    scored.reserve(count - first_link);
    for (uint32_t l = first_link; l < count; ++l) {
      const std::string name(net.link_name(sim::LinkId{l}));
      scored.emplace_back(edit_distance(st.link, name), name);
    }
    const std::size_t shown = std::min<std::size_t>(3, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(shown), scored.end());
    std::vector<std::string> close;
    for (std::size_t c = 0; c < shown; ++c) close.push_back(scored[c].second);
    std::string msg = key + ".link: no link matches '" + st.link + "'";
    if (!close.empty()) {
      msg += " (did you mean ";
      for (std::size_t c = 0; c < close.size(); ++c) msg += (c ? ", " : "") + close[c];
      msg += "? expected a link name as run --json names links, '*' for any run of characters)";
    } else {
      msg += " (expected a link name as run --json names links; this World has none)";
    }
    throw SpecError(key + ".link", msg);
  }
}

}  // namespace models
