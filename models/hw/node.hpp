#pragma once
// models::hw::NodeSpec: one host, resolved to numbers and a layout the topology graph is built
// from. Catalog instances (instance.cpp) and custom nodes ([cluster.node], optionally with an
// imported `nvidia-smi topo -m`) both end up here.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/hw/gpu.hpp"
#include "models/hw/path_type.hpp"
#include "models/spec.hpp"

namespace models::hw {

enum class NicKind { None, Efa, Ib, Roce, Eth };
const char* nic_kind_name(NicKind k);
enum class CpuVendor { Intel, Amd, Arm };

// A GPU-to-GPU matrix as `nvidia-smi topo -m` prints it (imported or computed).
struct SmiMatrix {
  int gpus = 0;
  int nics = 0;
  // gpu_gpu[i][j]: path type; nv_links[i][j]: the # of NV# (0 when not NVLink).
  std::vector<std::vector<PathType>> gpu_gpu;
  std::vector<std::vector<int>> nv_links;
  std::vector<std::vector<PathType>> gpu_nic;  // [gpu][nic]
  std::vector<std::vector<PathType>> nic_nic;  // [nic][nic] (empty when not printed)
  std::vector<int> gpu_numa;                   // NUMA affinity per GPU (-1 unknown)
  std::vector<std::string> cpu_affinity;       // per GPU, as printed
  std::vector<std::string> nic_names;          // "mlx5_0", from the NIC legend
};

struct NodeSpec {
  std::string name;  // instance name, or "custom"
  std::string citation;
  GpuSpec gpu;
  int gpus = 0;
  // NVLink
  int nvlink_gen = 0;    // 0: none
  int nvlink_links = 0;  // per GPU
  bool nvswitch = false;
  // NVSwitch multicast (NVLink SHARP) that NCCL uses for NVLS / NVLSTree (NCCL_NVLS_ENABLE auto:
  // the CUDA driver reports multicast support). Set where a source shows NCCL running NVLS there.
  bool nvls = false;
  // Multi-node NVLink (NCCL's MNNVL): the node is one NVLink domain of several hosts (compute trays)
  // whose GPUs all reach one NVLink switch fabric, e.g. a GB200 NVL72 rack of 18 trays x 4 GPUs.
  // host_gpus: GPUs per host; 0 = the node is one host. Hosts are consecutive local GPUs.
  int host_gpus = 0;
  int hosts() const { return host_gpus > 0 ? (gpus + host_gpus - 1) / host_gpus : 1; }
  int host_of(int local_gpu) const { return host_gpus > 0 ? local_gpu / host_gpus : 0; }
  // PCIe layout (see topology/node_graph.hpp for how it becomes a graph)
  int pcie_gen = 4;
  int pcie_lanes = 16;
  // The PCIe switches' uplinks to the CPU where they run an older generation than the GPUs (p5's
  // Gen5 GPUs and switches reach AMD Milan's Gen4 root ports: 16 GT/s x16 in aws-ofi-nccl's
  // p5.48xl-topo.xml); 0: pcie_gen. Host traffic (offload, checkpoint copies) crosses them; GPUDirect
  // RDMA stays under the switch.
  int host_pcie_gen = 0;
  int host_link_gen() const { return host_pcie_gen > 0 ? host_pcie_gen : pcie_gen; }
  int numa_nodes = 1;
  int gpus_per_switch = 0;       // GPUs under one PCIe switch; 0: each GPU on a root port
  int gpus_per_host_bridge = 1;  // GPUs (with their switches) under one host bridge
  bool pcie_p2p_ok = true;       // NVML P2P status over PCIe (false on many virtualised hosts)
  CpuVendor cpu = CpuVendor::Intel;
  std::string cpu_family = "cascadelake";  // for the inter-socket link
  // Network
  int nics = 0;
  int nics_per_switch = 0;  // NICs under each GPU PCIe switch; 0: NICs on their own host bridges
  NicKind nic_kind = NicKind::None;
  int efa_generation = 0;
  // The NIC technology as its vendor names it ("EFA v4", "InfiniBand NDR (ConnectX-7)", "GPUDirect-TCPXO
  // over gVNIC"); empty: nic_kind says it all. Shown by `commsim instances` and `commsim topo`.
  std::string nic_tech;
  // Latency the network plugin declares to NCCL (ncclNetProperties_t::latency, us), which NCCL's
  // tuner adds to every inter-node step (graph latencyInter). aws-ofi-nccl: per platform
  // (src/platform-aws.cpp: 75 us on p4d/p4de/p5/p5e and unknown hosts, 35 on p5en/p6), on
  // EFA only; NCCL's own IB and Socket plugins declare 0.
  double net_plugin_latency_us = 0;
  // NCCL variables the network plugin sets in the process where the user has not: aws-ofi-nccl
  // (1.16 and later) per platform (src/platform-aws.cpp, env tables: NCCL_BUFFSIZE 8 MiB on p4d,
  // p4de and p5 on; NVLS chunk sizes 512 KiB from p5 on). A scenario's [nccl.env] wins.
  std::vector<std::pair<std::string, std::string>> net_plugin_env;
  // The network plugin offloads its receives to the GPU (ncclNetProperties_t::netDeviceType
  // NCCL_NET_DEVICE_UNPACK): GPUDirect-TCPX's plugin, whose received bytes land in scattered GPU
  // pages that NCCL's unpack kernel gathers (google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc
  // tcpxGetProperties). NCCL 2.23 turns PAT off for such a plugin (nccl/tuning.hpp pat_enabled).
  bool net_device_unpack = false;
  // Link parameters (names registered in models/params_links.hpp, SI units) where this machine's links
  // are not what their class's defaults describe (GPUDirect-TCPXO's steps and efficiency on the
  // RoCE class; an NVL72 rack's NVLink steps), each with its source beside the catalog entry.
  // LinkParams::for_node applies them; [cluster.params] and profiles still override them.
  std::vector<std::pair<std::string, double>> link_params;
  double link_param_or(std::string_view name, double fallback) const {
    for (const auto& [k, v] : link_params)
      if (k == name) return v;
    return fallback;
  }
  // What the model leaves out of this machine's network, with its measured size, in plain words:
  // said with every run and nccl-tests prediction that crosses nodes (empty: nothing known).
  std::string network_note;
  int network_note_from_nodes = 2;  // the note is said from this many nodes on
  // The error network_note states at the sizes a training step's gradient collectives move (512 MiB
  // and more), as a share of the model's time: on two nodes, and on more (0: the note gives none).
  // `plan` and `compare` call no margin smaller than it a win (run/caveat_error.hpp).
  double network_note_error_two = 0, network_note_error_more = 0;
  // What the model leaves out of this machine's NVLink domain across its hosts (host_gpus), with
  // its measured size: said with every run and nccl-tests prediction that puts more GPUs on one
  // node than one host has (empty: nothing known).
  std::string nvlink_note;
  // The two notes as a run of `nodes` such nodes, `gpus_per_node` GPUs of each, says them: named
  // by the machine, network_note from network_note_from_nodes nodes on (the network in play),
  // nvlink_note where a node holds more GPUs than one host (its NVLink domain spans hosts);
  // empty otherwise. The one rule for `run`, `nccl-tests` and the planner's rows.
  std::string network_caveat(int nodes) const {
    return nodes > 1 && nodes >= network_note_from_nodes && !network_note.empty() ? name + ": " + network_note
                                                                                  : std::string{};
  }
  double network_caveat_error(int nodes) const {
    return network_caveat(nodes).empty() ? 0 : nodes > 2 ? network_note_error_more : network_note_error_two;
  }
  std::string nvlink_caveat(int gpus_per_node) const {
    return host_gpus > 0 && gpus_per_node > host_gpus && !nvlink_note.empty() ? name + ": " + nvlink_note
                                                                              : std::string{};
  }
  double nic_bytes_per_s = 0;       // per NIC, line rate
  double eth_bytes_per_s = 0;       // ordinary interface (ENA/virtio) used by NET/Socket
  // The ordinary interface's driver, which sets NCCL's Socket helper threads (net_socket.cc
  // ncclNetSocketGetNsockNthread reads the NIC's PCI vendor): "ena" (AWS, 0x1d0f: 2 threads x 8
  // sockets), "gve" (GCP gVNIC, 0x1ae0: 4 x 1); any other ("", "virtio", a ConnectX or Azure's
  // netvsc): none, the rank's proxy thread moves it all.
  std::string eth_driver;
  double host_mem_bytes_per_s = 0;  // whole node (all sockets)
  // The host's issue cost per NCCL operation in a back-to-back loop (nccl.launch_overhead), where
  // this host's CPU has its own measurement; 0: the registered default (an x86 host's).
  double launch_overhead_s = 0;
  // When built from `nvidia-smi topo -m`, the matrix it came from (the graph must reproduce it).
  std::optional<SmiMatrix> imported;
};

// A custom node ([cluster.node]) without its topo file (models/topology/resolve.hpp imports
// that). Throws SpecError naming "cluster.node.<field>".
NodeSpec custom_node(const CustomNodeSpec& spec);
NicKind parse_nic_kind(const std::string& text, const std::string& key);

}  // namespace models::hw
