// Pods' NICs and GPUs' NIC groups on one node (see nic_groups.hpp).
#include "models/nccl/nic_groups.hpp"

#include <algorithm>
#include <string>

#include "models/error.hpp"

namespace models::nccl {

namespace {

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Step 1 with placement.nics_per_pod: `k` NICs per pod, round-robin over its GPUs, each taking
// the closest NIC no pod holds yet.
std::vector<std::vector<int>> pod_nics_fixed(const topology::NodeGraph& graph, const topology::Placement& layout,
                                             int k) {
  if (k * layout.pods_per_node > graph.nics())
    throw SpecError("placement.nics_per_pod", "placement.nics_per_pod: " + std::to_string(layout.pods_per_node) +
                                                  " pod(s) x " + std::to_string(k) + " NIC(s) but the node has " +
                                                  std::to_string(graph.nics()) + " (expected at most " +
                                                  std::to_string(graph.nics() / std::max(1, layout.pods_per_node)) +
                                                  " per pod)");
  std::vector<std::vector<int>> out;
  std::vector<int> free;
  for (int n = 0; n < graph.nics(); ++n) free.push_back(n);
  for (int pod = 0; pod < layout.pods_per_node; ++pod) {
    const int first = pod * layout.gpus_per_pod;
    std::vector<int> visible;
    for (int i = 0; static_cast<int>(visible.size()) < k; ++i) {
      const int best = graph.closest_nic(first + i % layout.gpus_per_pod, free);
      visible.push_back(best);
      free.erase(std::find(free.begin(), free.end(), best));
    }
    std::sort(visible.begin(), visible.end());
    out.push_back(std::move(visible));
  }
  return out;
}

// Step 1: the NICs each pod sees.
std::vector<std::vector<int>> pod_nics(const topology::NodeGraph& graph, const topology::Placement& layout) {
  std::vector<std::vector<int>> out;
  std::vector<bool> taken(graph.nics(), false);
  // With fewer NICs than pods no pod can hold one alone: each uses the one next to its GPU.
  const bool exclusive = layout.pods_per_node <= graph.nics();
  const int total_gpus = layout.pods_per_node * layout.gpus_per_pod;
  const int per_gpu = std::max(1, (graph.nics() + total_gpus - 1) / std::max(1, total_gpus));
  for (int pod = 0; pod < layout.pods_per_node; ++pod) {
    const int first = pod * layout.gpus_per_pod, last = first + layout.gpus_per_pod;
    std::vector<int> candidates;
    for (int n = 0; n < graph.nics(); ++n)
      if (!exclusive || !taken[n]) candidates.push_back(n);
    std::vector<int> visible;
    for (int g = first; g < last; ++g) {
      const int best = graph.closest_nic(g, candidates);
      int took = 0;
      for (int n : candidates) {
        const bool closest = best >= 0 && graph.gpu_nic(g, n).type == graph.gpu_nic(g, best).type;
        if (layout.pods_per_node == 1 || (closest && took < per_gpu && !contains(visible, n))) {
          if (!contains(visible, n)) visible.push_back(n);
          ++took;
        }
      }
    }
    for (int n : visible) taken[n] = true;
    std::sort(visible.begin(), visible.end());
    out.push_back(std::move(visible));
  }
  return out;
}

// GPU `i`'s NICs among the GPUs' closest ones: where the m GPUs that have the same closest c
// NICs number no more than the NICs (DGX A100: two GPUs and two HDR NICs under each PCIe switch),
// the j-th of them takes NICs [j c / m, (j + 1) c / m), as NCCL pairs each GPU with its own NIC
// (src/graph/topo.cc ncclTopoGetLocalNet: the GPU's device index, mirrored, modulo the local
// NICs); with fewer NICs than GPUs (p4d: one EFA for two GPUs) they share them all.
// Only NICs under the GPU's own PCIe switch are split: NICs reached across the CPU stay one
// group, over which the GPU's traffic spreads.
std::vector<int> share_of_closest(const topology::NodeGraph& graph, const std::vector<std::vector<int>>& closest,
                                  int first, int i) {
  const std::vector<int>& nics = closest[i];
  const int sw = graph.gpu_switch(first + i);
  if (sw < 0 || std::any_of(nics.begin(), nics.end(), [&](int n) { return graph.nic_switch(n) != sw; })) return nics;
  int m = 0, j = 0;
  for (int k = 0; k < static_cast<int>(closest.size()); ++k)
    if (closest[k] == closest[i]) {
      if (k < i) ++j;
      ++m;
    }
  const int c = static_cast<int>(nics.size());
  if (m <= 1 || c < m) return nics;
  return std::vector<int>(nics.begin() + j * c / m, nics.begin() + (j + 1) * c / m);
}

// Step 2: each GPU's group among its pod's NICs.
void group_nics(const topology::NodeGraph& graph, const topology::Placement& layout, NicAssignment& a) {
  a.gpu_group.assign(graph.gpus(), -1);
  a.gpu_nic_label.assign(graph.gpus(), 0);
  for (int pod = 0; pod < layout.pods_per_node; ++pod) {
    const std::vector<int>& visible = a.pod_nics[pod];
    const int first = pod * layout.gpus_per_pod, last = first + layout.gpus_per_pod;
    // Each GPU's closest NICs, then, where several GPUs have the same closest NICs and there are
    // at least as many NICs as GPUs, each GPU its own share of them.
    std::vector<std::vector<int>> closest(last - first);
    for (int g = first; g < last; ++g) {
      const int best = graph.closest_nic(g, visible);
      if (best < 0) continue;
      for (int n : visible)
        if (graph.gpu_nic(g, n).type == graph.gpu_nic(g, best).type) closest[g - first].push_back(n);
    }
    for (int g = first; g < last; ++g) {
      if (closest[g - first].empty()) continue;
      NicGroup group;
      group.nics = share_of_closest(graph, closest, first, g - first);
      group.pcie_switch = graph.nic_switch(group.nics.front());
      for (int n : group.nics)
        if (graph.nic_switch(n) != group.pcie_switch) group.pcie_switch = -1;
      auto it = std::find_if(a.groups.begin(), a.groups.end(), [&](const NicGroup& x) { return x.nics == group.nics; });
      a.gpu_group[g] = static_cast<int>(it - a.groups.begin());
      if (it == a.groups.end()) a.groups.push_back(group);
      a.gpu_nic_label[g] =
          static_cast<int>(std::find(visible.begin(), visible.end(), group.nics.front()) - visible.begin());
    }
  }
}

}  // namespace

NicAssignment assign_nics(const topology::NodeGraph& graph, const topology::Placement& layout, int nics_per_pod) {
  NicAssignment a;
  a.pod_nics = nics_per_pod > 0 ? pod_nics_fixed(graph, layout, nics_per_pod) : pod_nics(graph, layout);
  group_nics(graph, layout, a);
  return a;
}

}  // namespace models::nccl
