#pragma once
// A communicator as the collective engine replays it: ring order, tree edges, the link paths of
// every edge, and the view NCCL's tuner has of it. Built once per group and cached; the steps
// of build_plan are named in comm_plan.cpp (the tuner's view: graph_search.hpp).
#include <vector>

#include "models/comm_plan/link_params.hpp"
#include "models/hw/links.hpp"
#include "models/nccl/tuning.hpp"
#include "models/scale/gpu_rotation.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"

namespace models::collectives {

// What one TCP connection moves per direction from a thread that also receives (models/hw/links.hpp).
inline constexpr double kTcpStreamBytesPerS = hw::kTcpThreadBytesPerS;
// The raw bandwidth of an edge whose path crosses no link (a rank to itself): far above any
// link, so that only the cap's other terms bound it.
inline constexpr double kSameGpuBytesPerS = 1e12;

struct Edge {
  int from = 0, to = 0;           // World ranks
  std::vector<sim::LinkId> path;  // links a flow from -> to crosses
  LinkClass link_class = LinkClass::NVLink;
  bool p2p_read = false;         // P2P in read mode (the receiver pulls)
  double raw_bandwidth = 0;      // bytes/s of the narrowest link on the path
  double simple_raw_factor = 1;  // Socket: Simple's raw over raw_bandwidth (a thread sending only, flow_cap.hpp)
  sim::LinkId bottleneck;        // the narrowest link
  int rings_sharing = 1;         // rings whose edges cross `bottleneck` (they split its channels)
  double fabric_latency_s = 0;   // per step: switch traversals of [cluster.fabric] links on the path, and
                                 // what nic.latency, eth.latency (their change from the catalog's, may be
                                 // negative) and [[stragglers]] link entries added (World::added_latency_s)
};

struct CommPlan {
  nccl::CommView view;
  int channels_ref = 1;   // NCCL's default coll channels (before env limits)
  std::vector<int> ring;  // World ranks in ring order (by NCCL node, then local GPU)
  // NCCL's channels do not all follow one ring: across nodes, each ring leaves a node through a
  // different GPU and its NIC (src/graph/search.cc), so all the node's NICs carry traffic. One
  // ring per NIC group of a node (1 on a single node); each carries 1/rings of the data.
  // rings[r][i] is the edge from the i-th rank of ring r to the next.
  std::vector<std::vector<Edge>> rings;
  // Trees, one set per ring (the same NIC spreading): a chain inside each NCCL node and NCCL's
  // double binary tree across node leaders; `up` edges go child -> parent, `down` the reverse.
  struct TreeSet {
    std::vector<Edge> chain_up, chain_down;
    std::vector<Edge> up[2], down[2];
  };
  std::vector<TreeSet> trees;

  // The same edges with identical (from, to) pairs merged: rotated rings share all intra-node
  // pairs but one, so R rings cost about one ring's flows. A merged edge moves `bytes_frac` of
  // an edge's bytes with `share_frac` of the channels -- the same granularity as merging a
  // ring's channels into one flow (contention weights a merged flow as one).
  struct MergedEdge {
    Edge edge;
    double bytes_frac = 0;  // of the per-edge bytes of one full ring (tree: of S)
    double share_frac = 0;  // of the collective's channel share
    double down_frac = 0;   // of bytes_frac, what a tree broadcasts down (the rest it reduces up)
  };
  std::vector<MergedEdge> ring_merged, tree_merged;
  // NVLSTree (view.nvls; nvls_tree.cpp): the tree sets' inter-node edges between the nodes'
  // heads (the sets' leaders), merged like tree_merged; and per rank its NVLink port to the
  // switch and from it (a one-link path each; bytes_frac in units of S).
  std::vector<MergedEdge> nvls_net_merged, nvls_switch;
  // Folded by the GPU rotation (complete_plan with a GpuRotation; rotation_fold.cpp): k > 0 when
  // nvls_net_merged holds tree set 0's edges only and nvls_switch each node's first GPU's pair
  // only, each standing for its k images (trees then holds set 0 alone unless built with chains).
  int nvls_rotation = 0;
  // NVLS and CollNet (nvls.cpp, collnet.cpp): per rank its NVLink port towards the switch (tx) and
  // from it (rx), a one-link path each, with the share of S it handles as a head (1/H for each of
  // the H heads of its node, 0 for the others); the bytes each moves depend on the op (at launch).
  struct Port {
    Edge edge;
    bool tx = true;
    double head_frac = 0;
    int node_ranks = 0;  // ranks of its NCCL node
  };
  std::vector<Port> nvls_ports, collnet_ports;
  // Across nodes, per head its NIC towards the SHARP switches (tx) and from them (rx), a one-link
  // path each, bytes_frac its share of S; for NVLS (over CollNet), CollNetDirect, CollNetChain.
  std::vector<MergedEdge> nvls_sharp, collnet_sharp, chain_sharp;
  // CollNetChain: the tree sets' chains inside each node, merged (each set S/sets up and down).
  std::vector<MergedEdge> chain_merged;
  std::vector<int> node_of;  // per position in `ring`: NCCL node index
  // Point to point (p2p_channels.hpp): the smallest topo(peer) over the communicator's peers
  // (2 x NVLink links, else 2) and whether NVLink joins every pair (NCCL's 512 KiB p2p chunk).
  int p2p_topo_per_peer = 2;
  bool p2p_all_nvlink = false;

  // What complete_plan builds from, kept by build_plan: each NCCL node's ranks in ring order and
  // the rings (tree sets) per NIC group; `built`: the PlanPart bits laid out so far.
  std::vector<std::vector<int>> members;
  int sets = 1;
  unsigned built = 0;
};

// The parts of a plan each algorithm reads, laid out on demand (a 131,072-rank communicator that
// runs only NVLSTree never builds its 8 rings of 131,072 edges nor its trees' intra-node chains).
// A part is the same whether it is built alone or with the others.
enum PlanPart : unsigned {
  kPlanRings = 1,  // rings, ring_merged (ring algorithms, PAT, broadcast/reduce chains)
  kPlanTrees = 2,  // trees with their chains, tree_merged (tree all-reduce)
  // trees' inter-node edges (their chains only counted for rings_sharing, not kept unless
  // kPlanTrees is built too), nvls_net_merged, nvls_switch (NVLSTree all-reduce)
  kPlanNvlsTree = 4,
  kPlanNvls = 8,      // nvls_ports, nvls_sharp (NVLS)
  kPlanCollNet = 16,  // collnet_ports, collnet_sharp (CollNetDirect)
  kPlanChain = 32,    // tree sets with their chains, chain_merged, chain_sharp (CollNetChain)
  kPlanAll = 63,
};

// NCCL's Socket plugin: 10 Gb/s when the interface's speed cannot be read (ncclTopo keeps 1.25 GB/s).
inline constexpr double kSocketReportedGbs = 1.25;

// The plan of `ranks` with the given parts (the view, ring order and point-to-point rating always).
CommPlan build_plan(const World& world, const sim::FlowNetwork& net, const std::vector<int>& ranks,
                    unsigned parts = kPlanAll);
// Adds the parts not built yet (a no-op for those already there). With `rotation` (a symmetry of
// the World: models/scale/gpu_rotation.hpp), the NVLSTree part is built folded where the plan's
// NCCL nodes are whole nodes in local GPU order, one tree set per GPU, and set 0's edges cross
// only links in orbits of k, none twice (CommPlan::nvls_rotation says whether it was).
void complete_plan(const World& world, const sim::FlowNetwork& net, CommPlan& plan, unsigned parts,
                   const scale::GpuRotation* rotation = nullptr);
// Drops the NVLSTree part (and folded tree sets), to be laid out again unfolded.
void unfold_nvls_tree(CommPlan& plan);
Edge make_edge(const World& world, const sim::FlowNetwork& net, int from, int to);
// make_edge's fields from e.from, e.to and e.path, the path already there.
void fill_edge(const World& world, const sim::FlowNetwork& net, Edge& e);

}  // namespace models::collectives
