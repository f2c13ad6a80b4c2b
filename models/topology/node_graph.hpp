#pragma once
// models::topology::NodeGraph: one host as a Boost.Graph of GPUs, NVSwitch, PCIe switches, host
// bridges (root complexes), CPUs (one per NUMA node) and NICs, with the path type and bottleneck
// bandwidth of the best path between any two devices, computed from the graph the way NCCL's
// src/graph/paths.cc does: NVLink paths first (NVL, or NVB through another GPU), otherwise the
// PCIe tree: PIX (at most one switch), PXB (several switches), PHB (through a host bridge), NODE
// (through the CPU between host bridges of one NUMA node; NCCL calls it PHB), SYS (across the
// inter-socket link).
//
// Layout from a NodeSpec (catalog or custom): GPUs split evenly over NUMA nodes in order;
// `gpus_per_switch` GPUs share a PCIe switch; `gpus_per_host_bridge` GPUs share a host bridge;
// NICs sit `nics_per_switch` to a GPU switch, else each on its own host bridge, round-robin over
// NUMA nodes. An imported `nvidia-smi topo -m` builds the tree that reproduces its matrix.
#include <boost/graph/adjacency_list.hpp>
#include <string>
#include <vector>

#include "models/hw/node.hpp"
#include "models/hw/path_type.hpp"

namespace models::topology {

enum class VertexKind { Gpu, NvSwitch, PcieSwitch, HostBridge, Cpu, Nic };
enum class EdgeKind { NvLink, Pcie, RootComplex, InterSocket };

struct VertexProps {
  VertexKind kind = VertexKind::Gpu;
  int index = 0;  // GPU, NIC, switch ... index within its kind
  int numa = 0;
  std::string name;  // "GPU0", "NIC1", "PCIsw2", "HB0", "CPU1", "NVSwitch"
};

struct EdgeProps {
  EdgeKind kind = EdgeKind::Pcie;
  int nv_links = 0;             // NVLink edges: links bonded
  double bytes_per_s = 0;       // physical, per direction (infinity: no limit of its own)
  double nccl_bytes_per_s = 0;  // what NCCL's graph assumes (src/graph/topo.h)
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;

struct PathInfo {
  PathType type = PathType::DIS;
  int nv_links = 0;             // NV# for NVLink paths
  double bytes_per_s = 0;       // bottleneck of the best path, physical
  double nccl_bytes_per_s = 0;  // bottleneck as NCCL's graph sees it
  int hops = 0;
};

class NodeGraph {
 public:
  explicit NodeGraph(const hw::NodeSpec& node);

  const Graph& graph() const { return graph_; }
  int gpus() const { return static_cast<int>(gpu_v_.size()); }
  int nics() const { return static_cast<int>(nic_v_.size()); }
  int pcie_switches() const { return switch_count_; }

  // Best path between two GPUs (a != b), precomputed.
  const PathInfo& gpu_gpu(int a, int b) const { return gpu_gpu_[a * gpus() + b]; }
  // The PCIe-only path between two GPUs (what P2P over PCIe or SHM would cross).
  const PathInfo& gpu_gpu_pcie(int a, int b) const { return gpu_gpu_pcie_[a * gpus() + b]; }
  const PathInfo& gpu_nic(int g, int n) const { return gpu_nic_[g * nics() + n]; }
  // GPU to the CPU of its own NUMA node.
  const PathInfo& gpu_cpu(int g) const { return gpu_cpu_[g]; }
  int gpu_numa(int g) const { return graph_[gpu_v_[g]].numa; }
  int nic_numa(int n) const { return graph_[nic_v_[n]].numa; }
  // PCIe switch above a GPU or NIC, -1 when it sits on a root port.
  int gpu_switch(int g) const { return gpu_switch_[g]; }
  int nic_switch(int n) const { return nic_switch_[n]; }
  // Among `candidates` (NIC indices), the one with the best (smallest type, then highest
  // bandwidth, then lowest index) path from GPU g; -1 when candidates is empty.
  int closest_nic(int g, const std::vector<int>& candidates) const;
  // NCCL's bandwidth between GPUs a and b when P2P is not used: through the local CPU
  // (paths.cc addInterStep): min(a->CPU, CPU(s)->b).
  double nccl_via_cpu_bytes_per_s(int a, int b) const;

  // The matrix as `nvidia-smi topo -m` would print it.
  hw::SmiMatrix smi_matrix() const;

 private:
  using Vertex = Graph::vertex_descriptor;
  Vertex add_vertex(VertexKind kind, int index, int numa, std::string name);
  void add_edge(Vertex a, Vertex b, EdgeKind kind, double bw, double nccl_bw, int nv_links = 0);
  void build_from_layout(const hw::NodeSpec& node);
  void build_from_matrix(const hw::NodeSpec& node, const hw::SmiMatrix& m);
  void add_nvlinks(const hw::NodeSpec& node, const std::vector<std::vector<int>>* pair_links);
  // One breadth-first search from `from` over NVLink only or PCIe only: every vertex's
  // predecessor and edge on its shortest path (null_vertex where unreachable). GPUs, NICs and NVSwitches
  // are never crossed on PCIe paths (they are reached, not passed through), as in NCCL.
  struct Tree {
    std::vector<Vertex> pred;
    std::vector<Graph::edge_descriptor> edge;  // the edge from pred[v] to v
  };
  Tree bfs_tree(Vertex from, bool nvlink_only) const;
  // The path from the tree's root to `to`, classified.
  PathInfo path_in_tree(const Tree& tree, Vertex from, Vertex to, bool nvlink_only) const;
  void compute_all();

  Graph graph_;
  std::vector<Vertex> gpu_v_, nic_v_, cpu_v_;
  std::vector<int> gpu_switch_, nic_switch_;
  int switch_count_ = 0;
  std::vector<PathInfo> gpu_gpu_, gpu_gpu_pcie_, gpu_nic_, gpu_cpu_;
};

}  // namespace models::topology
