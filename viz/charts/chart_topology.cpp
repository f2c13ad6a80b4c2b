// Topology picture: nodes, pods inside them, GPUs (with their rank) inside pods, and the transport
// NCCL uses at each level, colour-coded: inside a pod (usually P2P), between pods of one node
// (SHM, or the network when pods cannot share memory), between nodes (the network). NET links
// leave the node box through a NIC and meet on a network bar, so "pods on one host talk over the
// network" is visible at a glance. Large clusters draw a few nodes and say how many are left out.
#include <algorithm>
#include <cmath>
#include <map>

#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"

namespace viz::charts {
namespace {

constexpr int kMaxNodesDrawn = 4, kMaxPodsDrawn = 8, kMaxGpusDrawn = 8;
constexpr double kGpuW = 42, kGpuH = 36, kGpuGap = 10, kPodPad = 10, kPodLabel = 18, kPodGap = 18;
constexpr double kNodePad = 12, kNodeLabel = 22, kNodeGap = 36, kMaxRowWidth = 1120;

struct Scope {
  bool present = false;
  TransportClass cls = TransportClass::Unknown;
  std::string label;
};

struct Gpu {
  int gpu = 0, rank = 0;
};
using Pods = std::map<int, std::vector<Gpu>>;

// Which transport each level uses: from the per-pair list when the run gave one (majority label
// per level), else inferred from the transport counts by kind.
void infer_scopes(const models::RunResult& r, Scope& intra_pod, Scope& cross_pod, Scope& cross_node) {
  if (!r.pair_transports.empty()) {
    std::map<int, std::pair<int, int>> where;  // rank -> (node, pod)
    for (const auto& k : r.ranks) where[k.rank] = {k.node, k.pod};
    std::map<std::string, int> counts[3];
    std::map<std::string, std::string> link_class;
    for (const auto& p : r.pair_transports) {
      const auto a = where[p.a], b = where[p.b];
      const int scope = a.first != b.first ? 2 : a.second != b.second ? 1 : 0;
      counts[scope][p.label]++;
      link_class[p.label] = p.link_class;
    }
    Scope* scopes[3] = {&intra_pod, &cross_pod, &cross_node};
    for (int s = 0; s < 3; ++s) {
      if (counts[s].empty()) continue;
      auto best = std::max_element(counts[s].begin(), counts[s].end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
      *scopes[s] = {true, classify_transport(best->first, link_class[best->first]), best->first};
    }
    return;
  }
  const models::TransportCount *p2p = nullptr, *shm = nullptr, *net = nullptr;
  for (const auto& t : r.transports) {
    const TransportClass c = classify_transport(t.label, t.link_class);
    if ((c == TransportClass::NVLink || c == TransportClass::PCIe) && !p2p)
      p2p = &t;
    else if (c == TransportClass::SHM && !shm)
      shm = &t;
    else if (transport_is_net(c) && !net)
      net = &t;
  }
  auto make = [](const models::TransportCount* t) {
    return t ? Scope{true, classify_transport(t->label, t->link_class), t->label} : Scope{};
  };
  intra_pod = make(p2p ? p2p : shm ? shm : net);
  cross_pod = make(shm ? shm : net ? net : p2p);
  cross_node = make(net);
}

}  // namespace

std::string topology(const models::RunResult& r) {
  std::map<int, Pods> nodes;
  for (const auto& k : r.ranks) nodes[k.node][k.pod].push_back({k.gpu, k.rank});
  for (auto& [_, pods] : nodes)
    for (auto& [__, gpus] : pods)
      std::sort(gpus.begin(), gpus.end(), [](const Gpu& a, const Gpu& b) { return a.gpu < b.gpu; });
  Scope intra_pod, cross_pod, cross_node;
  infer_scopes(r, intra_pod, cross_pod, cross_node);
  int max_pods = 0;
  for (const auto& [_, pods] : nodes) max_pods = std::max(max_pods, static_cast<int>(pods.size()));
  const bool pods_use_net = max_pods > 1 && cross_pod.present && transport_is_net(cross_pod.cls);
  const bool nodes_use_net = nodes.size() > 1 && cross_node.present;
  const bool any_net = pods_use_net || nodes_use_net;
  const bool shm_bracket = max_pods > 1 && cross_pod.present && !pods_use_net;

  // Layout: which nodes are drawn, their widths, rows.
  auto pod_width = [](size_t gpus) {
    const double g = static_cast<double>(std::min<size_t>(gpus, kMaxGpusDrawn));
    return g * kGpuW + (g - 1) * kGpuGap + 2 * kPodPad + (gpus > kMaxGpusDrawn ? 34 : 0);
  };
  auto node_width = [&](const Pods& pods) {
    double w = 2 * kNodePad;
    int i = 0;
    for (const auto& [_, gpus] : pods) {
      if (i == kMaxPodsDrawn) {
        w += 70;
        break;
      }
      w += (i++ ? kPodGap : 0) + pod_width(gpus.size());
    }
    return std::max(w, 150.0);
  };
  // Nodes are drawn on one row (the network bar runs under them): as many as fit, at most
  // kMaxNodesDrawn, and a "N more" box for the rest.
  std::vector<int> drawn;
  double used = 10;
  for (const auto& [id, pods] : nodes) {
    const bool last_slot = static_cast<int>(drawn.size()) == kMaxNodesDrawn - 1 && nodes.size() > kMaxNodesDrawn;
    const double more_box = nodes.size() > drawn.size() + 1 ? 166 : 0;
    if (last_slot || (!drawn.empty() && used + node_width(pods) + more_box > kMaxRowWidth)) break;
    drawn.push_back(id);
    used += node_width(pods) + kNodeGap;
  }
  const double pod_h = kPodLabel + kGpuH + 22;
  const double node_h = kNodeLabel + pod_h + kNodePad + (shm_bracket ? 26 : 0);
  struct Placed {
    int node;
    double x, y, w;
  };
  std::vector<Placed> placed;
  double cx = 10, cy = 30, row_w = 0;
  for (int id : drawn) {
    const double w = node_width(nodes[id]);
    placed.push_back({id, cx, cy, w});
    cx += w + kNodeGap;
    row_w = std::max(row_w, cx - kNodeGap);
  }
  const bool more_nodes = nodes.size() > drawn.size();
  if (more_nodes) row_w += 150;
  const double net_y = cy + node_h + 34;
  std::vector<svg::LegendItem> legend;
  auto add_legend = [&](const Scope& s, const std::string& where) {
    if (!s.present) return;
    legend.push_back(
        {std::string(transport_class_name(s.cls)) + ": " + s.label + " (" + where + ")", transport_color(s.cls)});
  };
  if (!nodes.empty() && nodes.begin()->second.begin()->second.size() > 1) add_legend(intra_pod, "within a pod");
  if (max_pods > 1) add_legend(cross_pod, "between pods of a node");
  if (nodes.size() > 1) add_legend(cross_node, "between nodes");
  // Narrow clusters get a narrow picture (capped when drawn) rather than a wide empty one.
  const double W = std::max(560.0, row_w + 20);
  const double legend_y = (any_net ? net_y + 40 : cy + node_h + 16);
  if (legend.empty()) legend.push_back({"single GPU: no communication", okabe_ito::kGrey});
  const double H = legend_y + svg::legend_height(W - 20, legend) + 8;

  svg::Writer w(W, H, "chart chart-topology", "Nodes, pods and GPUs, with the transport NCCL uses between them",
                W * 1.5);
  w.text(10, 18,
         fmt::count(static_cast<long long>(nodes.size())) + (nodes.size() == 1 ? " node, " : " nodes, ") +
             fmt::count(static_cast<long long>(r.ranks.size())) + " ranks" +
             (more_nodes ? " (first " + std::to_string(drawn.size()) + " nodes drawn)" : ""),
         {.size = 12, .fill = "#444"});
  const double bar_x0 = 10, bar_x1 = W - 10;
  for (const auto& pl : placed) {
    const Pods& pods = nodes[pl.node];
    w.open_group("topo-node", "data-node=\"" + std::to_string(pl.node) + "\"");
    w.rect(pl.x, pl.y, pl.w, node_h, "#fafafa", "", "", "rx=\"8\" stroke=\"#555\" stroke-width=\"1.5\"");
    w.text(pl.x + kNodePad, pl.y + 16, "node " + std::to_string(pl.node), {.size = 12.5, .weight = "bold"});
    double px = pl.x + kNodePad;
    const double py = pl.y + kNodeLabel;
    std::vector<double> pod_centers;
    int pi = 0;
    for (const auto& [pod, gpus] : pods) {
      if (pi++ == kMaxPodsDrawn) {
        w.text(px + 8, py + pod_h / 2, "+" + std::to_string(pods.size() - kMaxPodsDrawn) + " pods",
               {.size = 11, .fill = "#555"});
        break;
      }
      const double pw = pod_width(gpus.size());
      w.open_group("topo-pod", "data-pod=\"" + std::to_string(pod) + "\"");
      w.rect(px, py, pw, pod_h, "#fff", "", "", "rx=\"6\" stroke=\"#888\" stroke-dasharray=\"4 3\"");
      w.text(px + 6, py + 13, "pod " + std::to_string(pod), {.size = 11, .fill = "#555"});
      const double gy = py + kPodLabel;
      std::vector<double> gx;
      for (size_t g = 0; g < gpus.size() && g < kMaxGpusDrawn; ++g) gx.push_back(px + kPodPad + g * (kGpuW + kGpuGap));
      // Ring inside the pod: neighbour lines, and the return path under the GPUs.
      if (gx.size() > 1 && intra_pod.present) {
        const char* c = transport_color(intra_pod.cls);
        const std::string attrs =
            "class=\"topo-link\" data-transport=\"" + svg::esc(transport_class_name(intra_pod.cls)) + "\"";
        for (size_t g = 0; g + 1 < gx.size(); ++g)
          w.line(gx[g] + kGpuW, gy + kGpuH / 2, gx[g + 1], gy + kGpuH / 2, c, 4, attrs);
        if (gx.size() > 2)
          w.polyline({{gx.back() + kGpuW / 2, gy + kGpuH},
                      {gx.back() + kGpuW / 2, gy + kGpuH + 10},
                      {gx.front() + kGpuW / 2, gy + kGpuH + 10},
                      {gx.front() + kGpuW / 2, gy + kGpuH}},
                     c, 2.5, attrs);
      }
      for (size_t g = 0; g < gx.size(); ++g) {
        w.open_group("topo-gpu", "data-rank=\"" + std::to_string(gpus[g].rank) + "\"");
        w.rect(gx[g], gy, kGpuW, kGpuH, "#eef3f8", "",
               "GPU " + std::to_string(gpus[g].gpu) + ", rank " + std::to_string(gpus[g].rank),
               "rx=\"4\" stroke=\"#333\" stroke-width=\"1.2\"");
        w.text(gx[g] + kGpuW / 2, gy + 14, "GPU" + std::to_string(gpus[g].gpu),
               {.size = 10, .anchor = "middle", .fill = "#555"});
        w.text(gx[g] + kGpuW / 2, gy + 29, std::string("r").append(std::to_string(gpus[g].rank)),
               {.size = 12, .anchor = "middle", .weight = "bold"});
        w.close_group();
      }
      if (gpus.size() > kMaxGpusDrawn)
        w.text(px + pw - 30, gy + kGpuH / 2 + 4, "+" + std::to_string(gpus.size() - kMaxGpusDrawn),
               {.size = 11, .fill = "#555"});
      w.close_group();
      pod_centers.push_back(px + pw / 2);
      px += pw + kPodGap;
    }
    const double pod_bottom = py + pod_h;
    if (shm_bracket && pod_centers.size() > 1) {
      const char* c = transport_color(cross_pod.cls);
      const std::string attrs =
          "class=\"topo-link\" data-transport=\"" + svg::esc(transport_class_name(cross_pod.cls)) + "\"";
      const double by = pod_bottom + 14;
      for (double pc : pod_centers) w.line(pc, pod_bottom, pc, by, c, 3, attrs);
      w.line(pod_centers.front(), by, pod_centers.back(), by, c, 3, attrs);
      w.text((pod_centers.front() + pod_centers.back()) / 2, by + 13, transport_class_name(cross_pod.cls),
             {.size = 10.5, .anchor = "middle", .fill = "#333"});
    }
    // NET: a NIC per pod (pods talk over the network) or per node, down to the network bar.
    if (any_net) {
      const TransportClass nc = pods_use_net ? cross_pod.cls : cross_node.cls;
      const char* c = transport_color(nc);
      const std::string attrs = "class=\"topo-link\" data-transport=\"" + svg::esc(transport_class_name(nc)) + "\"";
      std::vector<double> exits = pods_use_net ? pod_centers : std::vector<double>{pl.x + pl.w / 2};
      for (double ex : exits) {
        const double from = pods_use_net ? pod_bottom : pl.y + node_h;
        w.line(ex, from, ex, net_y, c, 3.5, attrs);
        w.rect(ex - 9, from - 4, 18, 8, c, "topo-nic", "NIC", "stroke=\"#333\" stroke-width=\"0.8\"");
      }
    }
    w.close_group();
  }
  if (more_nodes) {
    const auto& last = placed.back();
    const double gx = last.x + last.w + kNodeGap;
    w.rect(gx, last.y, 130, node_h, "#fff", "", "", "rx=\"8\" stroke=\"#aaa\" stroke-dasharray=\"6 4\"");
    w.text(gx + 65, last.y + node_h / 2,
           "… " + fmt::count(static_cast<long long>(nodes.size() - drawn.size())) + " more",
           {.size = 12, .anchor = "middle", .fill = "#555"});
    // Not "like these": a mixed cluster's other groups may be other machines, which the picture
    // does not know (their ranks, pods and transports are in the per-rank table and the links).
    w.text(gx + 65, last.y + node_h / 2 + 16, "nodes not drawn", {.size = 11, .anchor = "middle", .fill = "#777"});
    if (any_net)
      w.line(gx + 65, last.y + node_h, gx + 65, net_y, transport_color(cross_node.cls), 3.5,
             "stroke-dasharray=\"5 4\"");
  }
  if (any_net) {
    const Scope& s = pods_use_net ? cross_pod : cross_node;
    w.rect(bar_x0, net_y, bar_x1 - bar_x0, 22, "#fff", "topo-network", "",
           std::string("rx=\"11\" stroke=\"") + transport_color(s.cls) + "\" stroke-width=\"3\"");
    w.text((bar_x0 + bar_x1) / 2, net_y + 15,
           std::string("network: ") + s.label + " (" + transport_class_name(s.cls) + ")",
           {.size = 12, .anchor = "middle", .weight = "bold"});
  }
  svg::legend(w, 10, legend_y, W - 20, legend);
  return w.finish();
}

}  // namespace viz::charts
