// Building the host graph and classifying paths the way NCCL (src/graph/paths.cc) and
// nvidia-smi name them.
#include "models/topology/node_graph.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "models/hw/links.hpp"

namespace models::topology {

namespace {
constexpr double kUnlimited = std::numeric_limits<double>::infinity();

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void unite(int a, int b) { parent[find(a)] = find(b); }
};

bool is_pcie_relation(PathType t) {
  return t == PathType::PIX || t == PathType::PXB || t == PathType::PHB || t == PathType::NODE || t == PathType::SYS;
}
}  // namespace

NodeGraph::Vertex NodeGraph::add_vertex(VertexKind kind, int index, int numa, std::string name) {
  return boost::add_vertex(VertexProps{kind, index, numa, std::move(name)}, graph_);
}

void NodeGraph::add_edge(Vertex a, Vertex b, EdgeKind kind, double bw, double nccl_bw, int nv_links) {
  boost::add_edge(a, b, EdgeProps{kind, nv_links, bw, nccl_bw}, graph_);
}

NodeGraph::NodeGraph(const hw::NodeSpec& node) {
  if (node.imported)
    build_from_matrix(node, *node.imported);
  else
    build_from_layout(node);
  compute_all();
}

void NodeGraph::add_nvlinks(const hw::NodeSpec& node, const std::vector<std::vector<int>>* pair_links) {
  if (node.nvlink_gen == 0 || gpus() < 2) return;
  hw::LinkTech link = hw::nvlink(node.nvlink_gen);
  if (node.nvswitch) {
    Vertex sw = add_vertex(VertexKind::NvSwitch, 0, 0, "NVSwitch");
    for (int g = 0; g < gpus(); ++g)
      add_edge(gpu_v_[g], sw, EdgeKind::NvLink, node.nvlink_links * link.bytes_per_s,
               node.nvlink_links * link.nccl_bytes_per_s, node.nvlink_links);
    return;
  }
  for (int a = 0; a < gpus(); ++a)
    for (int b = a + 1; b < gpus(); ++b) {
      // Without NVSwitch, a GPU's links are split among its peers (a full mesh of bonded links).
      int n = pair_links ? (*pair_links)[a][b] : std::max(1, node.nvlink_links / (gpus() - 1));
      if (n > 0) add_edge(gpu_v_[a], gpu_v_[b], EdgeKind::NvLink, n * link.bytes_per_s, n * link.nccl_bytes_per_s, n);
    }
}

void NodeGraph::build_from_layout(const hw::NodeSpec& node) {
  hw::LinkTech pci = hw::pcie(node.pcie_gen, node.pcie_lanes);
  hw::LinkTech nic_pci = hw::pcie(node.pcie_gen, 16);
  hw::LinkTech smp = hw::inter_socket(node.cpu_family);
  for (int c = 0; c < node.numa_nodes; ++c)
    cpu_v_.push_back(add_vertex(VertexKind::Cpu, c, c, "CPU" + std::to_string(c)));
  for (int a = 0; a < node.numa_nodes; ++a)
    for (int b = a + 1; b < node.numa_nodes; ++b)
      add_edge(cpu_v_[a], cpu_v_[b], EdgeKind::InterSocket, smp.bytes_per_s, smp.nccl_bytes_per_s);
  int hb_count = 0;
  auto new_host_bridge = [&](int numa) {
    Vertex hb = add_vertex(VertexKind::HostBridge, hb_count, numa, "HB" + std::to_string(hb_count));
    ++hb_count;
    add_edge(hb, cpu_v_[numa], EdgeKind::RootComplex, kUnlimited, kUnlimited);
    return hb;
  };
  std::vector<Vertex> host_bridges, switches;
  int per_hb = std::max(1, node.gpus_per_host_bridge);
  for (int g = 0; g < node.gpus; ++g) {
    int numa = g * node.numa_nodes / node.gpus;
    if (g % per_hb == 0) host_bridges.push_back(new_host_bridge(numa));
    Vertex parent = host_bridges.back();
    gpu_switch_.push_back(-1);
    if (node.gpus_per_switch > 0) {
      if (g % node.gpus_per_switch == 0) {
        switches.push_back(
            add_vertex(VertexKind::PcieSwitch, switch_count_, numa, "PCIsw" + std::to_string(switch_count_)));
        ++switch_count_;
        add_edge(switches.back(), parent, EdgeKind::Pcie, pci.bytes_per_s, pci.nccl_bytes_per_s);
      }
      parent = switches.back();
      gpu_switch_.back() = switch_count_ - 1;
    }
    gpu_v_.push_back(add_vertex(VertexKind::Gpu, g, numa, "GPU" + std::to_string(g)));
    add_edge(gpu_v_.back(), parent, EdgeKind::Pcie, pci.bytes_per_s, pci.nccl_bytes_per_s);
  }
  for (int n = 0; n < node.nics; ++n) {
    Vertex parent;
    int numa;
    nic_switch_.push_back(-1);
    if (node.nics_per_switch > 0 && switch_count_ > 0) {
      int s = std::min(n / node.nics_per_switch, switch_count_ - 1);
      parent = switches[s];
      numa = graph_[parent].numa;
      nic_switch_.back() = s;
    } else {
      numa = n % node.numa_nodes;
      parent = new_host_bridge(numa);
    }
    // The NIC's own line rate bounds its PCIe edge (NCCL: NIC speed / 8000 GB/s, topo.h).
    double nic_bw = node.nic_bytes_per_s > 0 ? node.nic_bytes_per_s : nic_pci.bytes_per_s;
    nic_v_.push_back(add_vertex(VertexKind::Nic, n, numa, "NIC" + std::to_string(n)));
    add_edge(nic_v_.back(), parent, EdgeKind::Pcie, std::min(nic_pci.bytes_per_s, nic_bw),
             std::min(nic_pci.nccl_bytes_per_s, nic_bw));
  }
  add_nvlinks(node, nullptr);
}

void NodeGraph::build_from_matrix(const hw::NodeSpec& node, const hw::SmiMatrix& m) {
  hw::LinkTech pci = hw::pcie(node.pcie_gen, node.pcie_lanes);
  hw::LinkTech smp = hw::inter_socket(node.cpu_family);
  const int ng = m.gpus, nn = m.nics, nd = ng + nn;
  // Relation between devices (GPUs first, then NICs); DIS when nvidia-smi printed none (NV#).
  auto rel = [&](int a, int b) -> PathType {
    PathType t = PathType::DIS;
    if (a < ng && b < ng)
      t = m.gpu_gpu[a][b];
    else if (a < ng)
      t = m.gpu_nic[a][b - ng];
    else if (b < ng)
      t = m.gpu_nic[b][a - ng];
    else if (!m.nic_nic.empty())
      t = m.nic_nic[a - ng][b - ng];
    return is_pcie_relation(t) ? t : PathType::DIS;
  };
  auto groups = [&](PathType max_type) {
    UnionFind uf(nd);
    for (int a = 0; a < nd; ++a)
      for (int b = a + 1; b < nd; ++b)
        if (rel(a, b) != PathType::DIS && rel(a, b) <= max_type) uf.unite(a, b);
    std::vector<int> id(nd);
    for (int d = 0; d < nd; ++d) id[d] = uf.find(d);
    return id;
  };
  // NUMA: the affinity column where printed, else devices closer than SYS share a node.
  std::vector<int> numa_group = groups(PathType::NODE);
  std::vector<int> numa(nd, -1);
  bool affinity =
      !m.gpu_numa.empty() && std::all_of(m.gpu_numa.begin(), m.gpu_numa.end(), [](int x) { return x >= 0; });
  for (int d = 0; d < nd; ++d) {
    if (affinity && d < ng) numa[d] = m.gpu_numa[d];
  }
  for (int d = 0; d < nd; ++d)
    if (numa[d] < 0)
      for (int e = 0; e < ng && numa[d] < 0; ++e)
        if (numa_group[e] == numa_group[d] && (affinity || e < d)) numa[d] = affinity ? numa[e] : -1;
  if (!affinity) {  // number the NUMA groups in order of first device
    std::vector<int> seen;
    for (int d = 0; d < nd; ++d) {
      auto it = std::find(seen.begin(), seen.end(), numa_group[d]);
      numa[d] = static_cast<int>(it - seen.begin());
      if (it == seen.end()) seen.push_back(numa_group[d]);
    }
  }
  for (auto& x : numa) x = std::max(x, 0);
  int numa_nodes = *std::max_element(numa.begin(), numa.end()) + 1;
  for (int c = 0; c < numa_nodes; ++c) cpu_v_.push_back(add_vertex(VertexKind::Cpu, c, c, "CPU" + std::to_string(c)));
  for (int a = 0; a < numa_nodes; ++a)
    for (int b = a + 1; b < numa_nodes; ++b)
      add_edge(cpu_v_[a], cpu_v_[b], EdgeKind::InterSocket, smp.bytes_per_s, smp.nccl_bytes_per_s);
  std::vector<int> hb = groups(PathType::PHB), pxb = groups(PathType::PXB), pix = groups(PathType::PIX);
  std::map<int, Vertex> hb_v, pxb_v, pix_v;
  auto count_distinct = [&](const std::vector<int>& inner, const std::vector<int>& outer, int key) {
    std::vector<int> ids;
    for (int d = 0; d < nd; ++d)
      if (outer[d] == key && std::find(ids.begin(), ids.end(), inner[d]) == ids.end()) ids.push_back(inner[d]);
    return static_cast<int>(ids.size());
  };
  auto members = [&](const std::vector<int>& g, int key) {
    return static_cast<int>(std::count(g.begin(), g.end(), key));
  };
  gpu_switch_.assign(ng, -1);
  nic_switch_.assign(nn, -1);
  for (int d = 0; d < nd; ++d) {
    if (!hb_v.count(hb[d])) {
      Vertex v = add_vertex(VertexKind::HostBridge, static_cast<int>(hb_v.size()), numa[d],
                            "HB" + std::to_string(hb_v.size()));
      add_edge(v, cpu_v_[numa[d]], EdgeKind::RootComplex, kUnlimited, kUnlimited);
      hb_v[hb[d]] = v;
    }
    Vertex parent = hb_v[hb[d]];
    int sw = -1;
    bool parent_switch = count_distinct(pix, pxb, pxb[d]) > 1;
    // The switch keyed `key` in `switches` (made under `parent` the first time) becomes the parent.
    auto descend_into = [&](auto& switches, auto key) {
      if (!switches.count(key)) {
        Vertex v = add_vertex(VertexKind::PcieSwitch, switch_count_, numa[d], "PCIsw" + std::to_string(switch_count_));
        ++switch_count_;
        add_edge(v, parent, EdgeKind::Pcie, pci.bytes_per_s, pci.nccl_bytes_per_s);
        switches[key] = v;
      }
      parent = switches[key];
      sw = graph_[parent].index;
    };
    if (parent_switch) descend_into(pxb_v, pxb[d]);
    if (parent_switch || members(pix, pix[d]) > 1) descend_into(pix_v, pix[d]);
    if (d < ng) {
      gpu_v_.push_back(add_vertex(VertexKind::Gpu, d, numa[d], "GPU" + std::to_string(d)));
      add_edge(gpu_v_.back(), parent, EdgeKind::Pcie, pci.bytes_per_s, pci.nccl_bytes_per_s);
      gpu_switch_[d] = sw;
    } else {
      double bw = node.nic_bytes_per_s > 0 ? std::min(node.nic_bytes_per_s, pci.bytes_per_s) : pci.bytes_per_s;
      nic_v_.push_back(add_vertex(VertexKind::Nic, d - ng, numa[d], "NIC" + std::to_string(d - ng)));
      add_edge(nic_v_.back(), parent, EdgeKind::Pcie, bw, std::min(bw, pci.nccl_bytes_per_s));
      nic_switch_[d - ng] = sw;
    }
  }
  // NVLink: NV# to every peer with the same # and more than two GPUs: an NVSwitch; else
  // bonded links between the pairs nvidia-smi names.
  hw::NodeSpec nv = node;
  bool all_same = ng > 2;
  for (int a = 0; a < ng; ++a)
    for (int b = 0; b < ng; ++b)
      if (a != b && m.nv_links[a][b] != m.nv_links[0][1]) all_same = false;
  nv.nvswitch = all_same && m.nv_links[0][1] > 0;
  if (nv.nvswitch) nv.nvlink_links = m.nv_links[0][1];
  bool any = false;
  for (int a = 0; a < ng; ++a)
    for (int b = 0; b < ng; ++b) any |= m.nv_links[a][b] > 0;
  if (!any)
    nv.nvlink_gen = 0;
  else if (nv.nvlink_gen == 0)
    nv.nvlink_gen = std::max(node.gpu.nvlink_gen, 2);
  add_nvlinks(nv, nv.nvswitch ? nullptr : &m.nv_links);
}

NodeGraph::Tree NodeGraph::bfs_tree(Vertex from, bool nvlink_only) const {
  // NVLink paths may not pass through a NIC or CPU; PCIe paths never through a GPU, NIC or
  // NVSwitch (a GPU or NIC on a PCIe path can only be its end). The edges are visited in the
  // graph's order, so each predecessor is the one a search towards that vertex alone would find.
  auto passable = [&](Vertex v) {
    const VertexKind k = graph_[v].kind;
    return nvlink_only ? (k == VertexKind::Gpu || k == VertexKind::NvSwitch)
                       : (k != VertexKind::Gpu && k != VertexKind::Nic && k != VertexKind::NvSwitch);
  };
  auto reachable = [&](Vertex v) {
    const VertexKind k = graph_[v].kind;
    return nvlink_only ? (k == VertexKind::Gpu || k == VertexKind::NvSwitch) : k != VertexKind::NvSwitch;
  };
  Tree tree;
  std::vector<Vertex>& pred = tree.pred;
  pred.assign(boost::num_vertices(graph_), Graph::null_vertex());
  tree.edge.resize(pred.size());
  std::vector<Vertex> queue{from};
  pred[from] = from;
  // NVLink paths are only asked between GPUs: once every GPU is reached the rest of the search
  // cannot change a predecessor (a full mesh without NVSwitch stops after its first vertex).
  int gpus_left = nvlink_only ? gpus() - 1 : -1;
  for (size_t head = 0; head < queue.size() && gpus_left != 0; ++head) {
    const Vertex u = queue[head];
    if (u != from && !passable(u)) continue;
    for (auto [e, end] = boost::out_edges(u, graph_); e != end; ++e) {
      if ((graph_[*e].kind == EdgeKind::NvLink) != nvlink_only) continue;
      const Vertex v = boost::target(*e, graph_);
      if (pred[v] != Graph::null_vertex() || !reachable(v)) continue;
      pred[v] = u;
      tree.edge[v] = *e;
      queue.push_back(v);
      if (nvlink_only && graph_[v].kind == VertexKind::Gpu && --gpus_left == 0) break;
    }
  }
  return tree;
}

PathInfo NodeGraph::path_in_tree(const Tree& tree, Vertex from, Vertex to, bool nvlink_only) const {
  const std::vector<Vertex>& pred = tree.pred;
  PathInfo p;
  if (pred[to] == Graph::null_vertex()) return p;  // DIS
  p.bytes_per_s = kUnlimited;
  p.nccl_bytes_per_s = kUnlimited;
  p.nv_links = std::numeric_limits<int>::max();
  int switches = 0;
  bool host_bridge = false, cpu = false, smp = false, via_gpu = false;
  for (Vertex v = to; v != from; v = pred[v]) {
    const EdgeProps& ep = graph_[tree.edge[v]];
    p.bytes_per_s = std::min(p.bytes_per_s, ep.bytes_per_s);
    p.nccl_bytes_per_s = std::min(p.nccl_bytes_per_s, ep.nccl_bytes_per_s);
    if (ep.kind == EdgeKind::NvLink) p.nv_links = std::min(p.nv_links, ep.nv_links);
    if (ep.kind == EdgeKind::InterSocket) smp = true;
    ++p.hops;
    Vertex mid = pred[v];
    if (mid == from) break;
    switch (graph_[mid].kind) {
      case VertexKind::PcieSwitch: ++switches; break;
      case VertexKind::HostBridge: host_bridge = true; break;
      case VertexKind::Cpu: cpu = true; break;
      case VertexKind::Gpu: via_gpu = true; break;
      default: break;
    }
  }
  if (nvlink_only) {
    p.type = via_gpu ? PathType::NVB : PathType::NVL;
  } else {
    p.nv_links = 0;
    p.type = smp            ? PathType::SYS
             : cpu          ? PathType::NODE
             : host_bridge  ? PathType::PHB
             : switches > 1 ? PathType::PXB
                            : PathType::PIX;
  }
  return p;
}

// Two searches per GPU (NVLink, PCIe) instead of two per pair of devices: a 1,024-GPU custom node
// set up in minutes before, O(GPUs x (V + E)) now.
void NodeGraph::compute_all() {
  const int ng = gpus(), nn = nics();
  gpu_gpu_.assign(static_cast<size_t>(ng) * ng, PathInfo{PathType::LOC, 0, kUnlimited, kUnlimited, 0});
  gpu_gpu_pcie_ = gpu_gpu_;
  gpu_nic_.resize(static_cast<size_t>(ng) * nn);
  gpu_cpu_.resize(ng);
  for (int a = 0; a < ng; ++a) {
    const Vertex from = gpu_v_[a];
    const Tree pcie = bfs_tree(from, false);
    const Tree nvl = bfs_tree(from, true);
    for (int b = 0; b < ng; ++b) {
      if (a == b) continue;
      const PathInfo pc = path_in_tree(pcie, from, gpu_v_[b], false);
      const PathInfo nv = path_in_tree(nvl, from, gpu_v_[b], true);
      gpu_gpu_pcie_[static_cast<size_t>(a) * ng + b] = pc;
      gpu_gpu_[static_cast<size_t>(a) * ng + b] = nv.type != PathType::DIS ? nv : pc;
    }
    for (int n = 0; n < nn; ++n) gpu_nic_[static_cast<size_t>(a) * nn + n] = path_in_tree(pcie, from, nic_v_[n], false);
    gpu_cpu_[a] = path_in_tree(pcie, from, cpu_v_[graph_[from].numa], false);
  }
}

int NodeGraph::closest_nic(int g, const std::vector<int>& candidates) const {
  int best = -1;
  for (int n : candidates) {
    if (best < 0) {
      best = n;
      continue;
    }
    const PathInfo &p = gpu_nic(g, n), &q = gpu_nic(g, best);
    if (p.type < q.type || (p.type == q.type && p.bytes_per_s > q.bytes_per_s)) best = n;
  }
  return best;
}

double NodeGraph::nccl_via_cpu_bytes_per_s(int a, int b) const {
  double bw = std::min(gpu_cpu(a).nccl_bytes_per_s, gpu_cpu(b).nccl_bytes_per_s);
  if (gpu_numa(a) != gpu_numa(b)) {
    auto [e, ok] = boost::edge(cpu_v_[gpu_numa(a)], cpu_v_[gpu_numa(b)], graph_);
    if (ok) bw = std::min(bw, graph_[e].nccl_bytes_per_s);
  }
  return bw;
}

hw::SmiMatrix NodeGraph::smi_matrix() const {
  hw::SmiMatrix m;
  m.gpus = gpus();
  m.nics = nics();
  m.gpu_gpu.assign(m.gpus, std::vector<PathType>(m.gpus, PathType::LOC));
  m.nv_links.assign(m.gpus, std::vector<int>(m.gpus, 0));
  for (int a = 0; a < m.gpus; ++a)
    for (int b = 0; b < m.gpus; ++b) {
      if (a == b) continue;
      const PathInfo& p = gpu_gpu(a, b);
      // nvidia-smi prints NV# for bonded NVLink (through NVSwitch too), else the PCIe relation.
      if (p.type == PathType::NVL) {
        m.gpu_gpu[a][b] = PathType::NVL;
        m.nv_links[a][b] = p.nv_links;
      } else {
        m.gpu_gpu[a][b] = gpu_gpu_pcie(a, b).type;
      }
    }
  m.gpu_nic.assign(m.gpus, std::vector<PathType>(m.nics));
  for (int g = 0; g < m.gpus; ++g)
    for (int n = 0; n < m.nics; ++n) m.gpu_nic[g][n] = gpu_nic(g, n).type;
  for (int g = 0; g < m.gpus; ++g) m.gpu_numa.push_back(gpu_numa(g));
  return m;
}

}  // namespace models::topology
