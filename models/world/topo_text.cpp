// Text rendering of the topology and the transport table.
#include "models/world/topo_text.hpp"

#include <map>
#include <optional>
#include <sstream>

#include "models/hw/node.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport.hpp"
#include "models/readers/smi_topo.hpp"
#include "models/topology/fabric.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/resolve.hpp"
#include "models/world/node_kinds.hpp"
#include "sim/check.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace models {

namespace {
void cell(std::ostringstream& os, const std::string& s) {
  os << s;
  for (std::size_t i = s.size(); i < 8; ++i) os << ' ';
}

std::string matrix(const hw::SmiMatrix& m) {
  std::ostringstream os;
  os << "        ";
  for (int g = 0; g < m.gpus; ++g) cell(os, "GPU" + std::to_string(g));
  for (int n = 0; n < m.nics; ++n) cell(os, "NIC" + std::to_string(n));
  os << "NUMA Affinity\n";
  for (int a = 0; a < m.gpus; ++a) {
    cell(os, "GPU" + std::to_string(a));
    for (int b = 0; b < m.gpus; ++b) cell(os, readers::smi_cell(m.gpu_gpu[a][b], m.nv_links[a][b]));
    for (int n = 0; n < m.nics; ++n) cell(os, readers::smi_cell(m.gpu_nic[a][n], 0));
    os << m.gpu_numa[a] << "\n";
  }
  for (int n = 0; n < m.nics; ++n) {
    cell(os, "NIC" + std::to_string(n));
    for (int g = 0; g < m.gpus; ++g) cell(os, readers::smi_cell(m.gpu_nic[g][n], 0));
    for (int k = 0; k < m.nics; ++k)
      cell(os, k == n ? " X " : (m.nic_nic.empty() ? "?" : readers::smi_cell(m.nic_nic[n][k], 0)));
    os << "\n";
  }
  os << "\nLegend: X self; SYS across NUMA nodes; NODE across host bridges of one NUMA node; PHB through a\n"
        "host bridge; PXB through several PCIe switches; PIX through at most one; NV# a bonded set of # NVLinks\n";
  return os.str();
}
// When NCCL would send through another GPU's NIC (PXN, NCCL src/graph/paths.cc), which GPUs of
// node 0 do and why; empty when none does.
std::string pxn_text(const topology::NodeGraph& graph, const topology::Placement& layout,
                     const nccl::TransportModel& model, const nccl::NcclEnv& env) {
  std::ostringstream os;
  for (int r = 0; r < layout.size(); ++r) {
    const RankInfo ra = layout.rank(r);
    if (ra.node != 0 || model.nic_group_of(ra.local_gpu) < 0) continue;
    if (model.plugin_of_pod(ra.pod) == NetPlugin::Socket) continue;
    const int nic = model.nic_groups()[model.nic_group_of(ra.local_gpu)].nics.front();
    const std::optional<int> p = model.pxn_relay(ra, nic);
    if (!p) continue;
    if (os.tellp() == 0)
      os << "\nPXN (NCCL_PXN_DISABLE=" << (env.pxn_disable ? 1 : 0)
         << "): a GPU whose own path to its NIC crosses the CPU (beyond NCCL_NET_GDR_LEVEL, so no\n"
            "GPUDirect RDMA) sends through the NIC's local GPU instead: over NVLink to it, then its PCIe\n"
            "switch to the NIC with GPUDirect RDMA (logged NET/<plugin>/<dev>(<relay rank>)). Receives stay\n"
            "on the GPU's own path, through host memory. On node 0:\n";
    os << "  rank " << r << " (GPU " << ra.local_gpu << "): NIC " << nic << " is "
       << path_type_name(graph.gpu_nic(ra.local_gpu, nic).type) << " from it, "
       << path_type_name(graph.gpu_nic(*p, nic).type) << " from GPU " << *p << " (rank " << r + *p - ra.local_gpu
       << "), NVLink between them: sends via GPU " << *p << "\n";
  }
  return os.str();
}
// Reduction in the switches: NVLink SHARP on the node's NVSwitch (NVLS, NVLSTree) and SHARP in the
// InfiniBand fabric (CollNet), as NCCL would enable them (models/comm_plan/graph_search.cpp has
// the rules the tuner's view applies; nvls.cpp and collnet.cpp their data movement).
std::string switch_reduction_text(const ScenarioSpec& spec, const hw::NodeSpec& node, const nccl::NcclEnv& env,
                                  int ranks, int nccl_nodes) {
  const bool multicast = node.nvls && node.gpu.sm >= 90 && node.nvswitch;
  if (!multicast && !spec.cluster.fabric.sharp && !env.collnet_enable) return "";
  std::ostringstream os;
  os << "Reduction in the switches (all-reduce; NCCL's tuner picks it by size where it is faster):\n";
  if (multicast) {
    const bool alone = ranks <= nccl_nodes;  // one rank per NCCL node: no NVLink peer to reduce with
    os << "  NVLink SHARP (NVLS): "
       << (!env.nvls_enable ? "off (NCCL_NVLS_ENABLE=0)"
           : alone          ? "off (one GPU per NCCL node)"
                            : "on");
    if (env.nvls_enable && !alone)
      os << ": the NVSwitch reduces and multicasts, each GPU sends (1 + 1/heads) S and receives as much "
            "(a ring: 2(n-1)/n S); NVLS on one node, NVLSTree across nodes"
         << (spec.cluster.fabric.sharp && env.collnet_enable && env.net != NetPlugin::Socket && !env.ib_disable
                 ? ", NVLS over CollNet across nodes"
                 : "");
    os << "\n";
  }
  if (spec.cluster.fabric.sharp || env.collnet_enable) {
    os << "  SHARP in the InfiniBand switches (CollNet): ";
    if (!spec.cluster.fabric.sharp)
      os << "off (NCCL_COLLNET_ENABLE=1, but the fabric has no SHARP: [cluster.fabric] sharp = true on InfiniBand)";
    else if (!env.collnet_enable)
      os << "off (the fabric has SHARP; NCCL uses it with NCCL_COLLNET_ENABLE=1)";
    else if (nccl_nodes < 2)
      os << "off (one NCCL node)";
    else if (env.net == NetPlugin::Socket || env.ib_disable)
      os << "off (" << (env.net == NetPlugin::Socket ? "NCCL_NET=Socket" : "NCCL_IB_DISABLE=1")
         << ": CollNet comes only with the InfiniBand net)";
    else
      os << "on: each node's heads (one per NIC) send its reduced data once and receive the result once, "
            "S per node each way (a ring: 2(n-1)/n S); CollNetDirect"
         << (node.nvswitch ? "" : " (needs NVSwitch: off here)") << ", CollNetChain";
    os << "\n";
  }
  return os.str();
}

// The NVLink domain of a multi-host node (NCCL's MNNVL): how many hosts it spans, whether MNNVL is
// on, and where the job's ranks sit in domains.
std::string domain_text(const hw::NodeSpec& node, const nccl::NcclEnv& env,
                        const topology::Placement& layout, const nccl::TransportModel& model) {
  if (node.host_gpus <= 0) return "";
  std::ostringstream os;
  const int used = layout.pods_per_node * layout.gpus_per_pod;
  const int hosts_used = (used + node.host_gpus - 1) / node.host_gpus;
  os << "NVLink domain: each node is one multi-node NVLink domain of " << node.gpus << " GPUs on " << node.hosts()
     << " hosts of " << node.host_gpus << " GPUs; this job uses " << used << " GPUs on " << hosts_used
     << " host(s) in each of " << layout.nodes << " domain(s)\n";
  os << "  MNNVL: ";
  if (model.mnnvl())
    os << "on: P2P over NVLink between the hosts of a domain (\"P2P/MNNVL\")"
       << (node.nvls && env.nvls_enable ? ", NVLS over the whole domain" : "")
       << (layout.nodes > 1 ? ", NET between domains" : "") << "; needs IMEX channels on every host "
       << "(Kubernetes: a ComputeDomain; else NCCL stops at init, or set NCCL_MNNVL_ENABLE=0)\n";
  else if (hosts_used <= 1)
    os << "not needed (each domain's ranks sit on one host)\n";
  else
    os << "off (" << (!env.mnnvl_enable ? "NCCL_MNNVL_ENABLE=0"
                      : env.p2p_disable ? "NCCL_P2P_DISABLE=1"
                                        : "NCCL_CUMEM_ENABLE=0")
       << "): the hosts of a domain reach each other over NET\n";
  return os.str();
}

}  // namespace

std::string render_topo(const World& world, const ScenarioSpec& spec, int max_ranks_listed, int per_peer_channels) {
  // Everything below is the World's, as run simulates it: its machines (node graph, NCCL's rules
  // per kind: [[cluster.groups]] pairs by their sender's node), its placement, [nccl.env] and fabric.
  SIM_CHECK(world.node_kinds() != nullptr, "topo renders a World built from a scenario");
  const NodeKinds& kinds = *world.node_kinds();
  const hw::NodeSpec& node = kinds.kind(0).node;
  const topology::NodeGraph& graph = kinds.kind(0).graph;
  const nccl::NcclEnv& env = world.nccl_env();
  const topology::Placement& layout = world.placement();
  const nccl::TransportModel& model = *kinds.kind(0).transports;
  auto rules = [&](const RankInfo& a) -> const nccl::TransportModel& { return *kinds.of_node(a.node).transports; };
  std::ostringstream os;
  if (spec.cluster.groups.empty()) {
    os << "Machine: " << spec.cluster.nodes << " x " << node.name << " (" << node.gpus << " x " << node.gpu.name << ", "
       << node.citation << ")\n";
  } else {  // [[cluster.groups]]: the GPU matrix and transports below are the first group's node's
    os << "Machine:";
    for (std::size_t i = 0; i < spec.cluster.groups.size(); ++i)
      os << (i ? " +" : "") << " " << spec.cluster.groups[i].nodes << " x " << spec.cluster.groups[i].instance;
    os << " (groups placed in order; below, the first group's " << node.name << ": " << node.gpus << " x "
       << node.gpu.name << ", " << node.citation << ")\n";
  }
  os << "Placement: " << layout.pods_per_node << " pod(s) x " << layout.gpus_per_pod << " GPU(s) per node, "
     << layout.size() << " ranks, " << (spec.placement.single_process ? "one process per pod" : "one process per GPU")
     << "; NCCL counts nNodes " << model.nccl_nodes() << "\n";
  os << domain_text(node, env, layout, model);
  // The fabric level ([cluster.fabric]) the World built; nothing for the default non-blocking switch.
  if (const topology::Fabric* fabric = world.fabric(); fabric && !fabric->describe().empty()) {
    os << "Fabric: " << fabric->describe() << "\n";
    for (std::size_t r = 0; r < fabric->rail_bytes_per_s().size() && fabric->kind() == topology::FabricKind::Rail; ++r)
      os << "  rail " << r << ": NIC group " << r << " of nodes 0.." << spec.cluster.nodes - 1 << "\n";
  }
  os << switch_reduction_text(spec, node, env, layout.size(), model.nccl_nodes());
  os << "\n";
  if (node.host_gpus > 0)  // 72 x 72 plus the NICs would fill pages: the one fact the matrix holds
    os << "GPU topology of one node: every GPU pair NV" << node.nvlink_links << " through the NVLink switches; "
       << "each GPU beside its own NIC (" << node.nics << " NICs)\n\n";
  else
    os << "GPU topology of one node (nvidia-smi topo -m):\n" << matrix(graph.smi_matrix()) << "\n";
  const int n = layout.size();
  os << "Transport NCCL would log, sender -> receiver (channels = P2P channels per peer):\n";
  std::map<std::string, int> counts;
  auto line = [&](int a, int b) {
    RankInfo ra = layout.rank(a), rb = layout.rank(b);
    Transport t = rules(ra).choose(ra, rb);
    char buf[200];
    std::snprintf(buf, sizeof buf, "  %d[%d] -> %d[%d]  via %-24s path %-4s  channels %d\n", a, ra.pod_rank, b,
                  rb.pod_rank, t.label.c_str(), path_type_name(t.path),
                  per_peer_channels > 0 ? per_peer_channels : rules(ra).p2p_channels(ra, rb));
    os << buf;
  };
  // Every pair up to 256 ranks; beyond, rank 0's peers (counting 268M pairs would take minutes).
  const bool all_pairs = n <= 256;
  for (int a = 0; a < (all_pairs ? n : 1); ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) ++counts[rules(layout.rank(a)).choose(layout.rank(a), layout.rank(b)).label];
  if (n <= max_ranks_listed) {
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (a != b) line(a, b);
  } else {
    os << "  (" << n << " ranks: rank 0's peers only)\n";
    for (int b = 1; b < n && b <= max_ranks_listed; ++b) line(0, b);
  }
  if (n == 1) os << "  (one rank: no peers)\n";
  os << (all_pairs ? "\nPairs per transport:\n" : "\nRank 0's peers per transport:\n");
  for (const auto& [label, c] : counts) os << "  " << label << ": " << c << "\n";
  os << pxn_text(graph, layout, model, env);
  return os.str();
}

std::string render_topo(const ScenarioSpec& spec, int max_ranks_listed) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const std::unique_ptr<World> world = World::build(spec, net);
  return render_topo(*world, spec, max_ranks_listed);
}

}  // namespace models
