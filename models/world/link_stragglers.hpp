#pragma once
// [[stragglers]] link = "...": one slow link, or every link a pattern names (a degraded NVLink
// port, a fabric uplink running at half rate, a node's PCIe slot down-trained to fewer lanes).
//
// Every link of the World whose name (as run --json names links: "node1/gpu3/nvlink.tx",
// "node0/nic0.rx", "fabric/pod1/up") matches the entry's pattern ('*' any run of characters,
// '?' one character) keeps bandwidth_factor f of its capacity and takes latency_factor g times
// its latency:
//   C' = f x C   (the FlowNetwork capacity, and World::raw_capacity, so a flow's rate cap
//                 eta x B_path, flow_cap.hpp, follows when the link is its path's narrowest)
//   L' = g x L   (the link's own latency: plain transfers such as pipeline send/recv pay it)
// A collective's per-hop latency is calibrated per link class (link_params.hpp) and does not
// read node links' latencies, so the excess (g - 1) x L of every slowed link an edge crosses is
// added to that edge's hop latency (World::added_latency_s, comm_plan.cpp fill_edge); fabric
// links' latencies are already counted per hop there. Entries that match one link twice
// multiply. A pattern that matches no link is a SpecError naming the closest link names.
// The shortcuts that assume alike ranks or nodes check capacities and latencies and fall back
// (replica fold: node links compared one by one; all-to-all fold: per-link signature;
// closed-form blocks read the links as they are): tests/models/world/link_stragglers_test.cpp
// compares each with --full.
#include <cstdint>
#include <string_view>
#include <vector>

#include "models/spec.hpp"
#include "sim/flow_network.hpp"

namespace models {

// Glob match of a link name: '*' any run of characters (including '/'), '?' one character.
bool link_name_matches(std::string_view pattern, std::string_view name);

// Applies the spec's link stragglers to links first_link .. net.link_count() - 1 (the World's).
// `raw` (per link index, 0 where the capacity is the raw bandwidth) is scaled with them;
// `added_latency_s` (resized to the link count) receives (g - 1) x L per slowed link.
// Throws SpecError("stragglers.<i>.link" / ".bandwidth_factor" / ".latency_factor").
void apply_link_stragglers(const ScenarioSpec& spec, sim::FlowNetwork& net, uint32_t first_link,
                           std::vector<double>& raw, std::vector<double>& added_latency_s);

}  // namespace models
