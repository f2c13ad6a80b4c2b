// Azure ND and GCP A3/A4 catalog entries, each with the source of its numbers. The GB200 machines
// of both clouds are racks: one node is one 72-GPU NVLink domain of 18 four-GPU VMs
// (instance_build.hpp grace_rack states the rack's layout).
//
// GCP's GPUDirect-TCPX (A3 High) and TCPXO (A3 Mega) move GPU traffic over gVNIC Ethernet through
// NCCL net plugins of their own (nccl-plugin-gpudirecttcpx, -fastrak), modelled on the RoCE class
// (NicKind::Roce, NCCL's IB plugin rules). Each has the environment Google's guides set (below);
// TCPXO its own step latencies and efficiency, TCPX the floor its threads put under every step.
#include "models/hw/instance_build.hpp"
#include "models/hw/links.hpp"

namespace models::hw::detail {

namespace {

// GPUDirect-TCPXO on GCP A3 Mega (below, a3-megagpu-8g): its LL128 step in seconds and its Simple
// efficiency, both read off Google's own 2-node all_gather_perf.
constexpr double kTcpxoLl128Step = 28.7e-6;
constexpr double kTcpxoSimpleEfficiency = 0.945;

// GPUDirect-TCPX on GCP A3 High (below, a3-highgpu-8g): the least time a ring step takes through
// the plugin, in seconds (ClassParams::step_floor_s). The plugin serves each connection's messages
// in turn (src/net_tcpx.cc persistentSocketThread: one thread moves the sends, polls their
// zero-copy completions and waits on a condition variable when idle; receives pass the receive
// daemon's pages and NCCL's unpack kernel), and every ring step sends one message per channel
// through each network edge, so the cost per message is paid once per step, in series. What it is
// made of is not known (not the nanosleep's timer slack: the plugin sets its threads' slack to
// 1 ns, and runs without the nanosleep wait as long). Read off Google's own 2-node
// all_gather_perf (cluster-toolkit examples/gke-a3-highgpu, plugin v3.1.9, Ring/Simple on 8
// channels; scenarios/validation/gcp_2node/measured/a3_high_allgather.txt): its 15 steps hold
// 936-1058 us at 1-16 MiB, 58.5-65.4 us per step beyond the rest of the model, median 61.0.
// Checked on Google's all_reduce (ai-infra-cluster-provisioning, 30 steps, no nanosleep set:
// 57 us per step) and three later runs (46-55 us per step at 1-64 MiB, far less below 1 MiB, where
// the wait is not a floor; docs/accuracy.md).
constexpr double kTcpxStepFloor = 61.0e-6;

// An HGX-style 8-GPU host: NVSwitch, one PCIe switch per GPU, two sockets.
NodeSpec hgx8(const char* name, const char* gpu, const char* cpu_family, const char* citation) {
  NodeSpec n = base(name, gpu, 8, citation);
  n.nvswitch = true;
  n.numa_nodes = 2;
  n.pcie_gen = 5;
  n.gpus_per_switch = 1;
  n.gpus_per_host_bridge = 1;
  n.cpu = CpuVendor::Intel;
  n.cpu_family = cpu_family;
  return n;
}

// 18 VMs of 4 GB200 GPUs and 2 Grace each, one 72-GPU NVLink domain (instance_build.hpp grace_rack).
NodeSpec gb200_rack_of_vms(const char* name, const char* citation) {
  NodeSpec n = grace_rack(name, "GB200", 72, citation);
  n.host_mem_bytes_per_s = 36 * 512e9;
  return n;
}

}  // namespace

void add_cloud_nodes(std::vector<NodeSpec>& c) {
  // Azure ND H100 v5 (Standard_ND96isr_H100_v5): 8 x H100 80 GB on NVSwitch, 8 x 400 Gb/s NDR
  // InfiniBand (ConnectX-7, one per GPU), 2 x Xeon Platinum 8480C (Sapphire Rapids, 8 x DDR5-4800
  // per socket), 1.9 TB. Source: Azure "ND H100 v5 sizes" page. NVLS runs in these VMs: Azure's
  // own all_reduce_perf with NCCL_ALGO=NVLS reaches 479 GB/s bus bandwidth on one ND H100 v5 and
  // 480 on one ND H200 v5 (github.com/Azure/AI-benchmarking-guide, Azure_Results; copied in
  // scenarios/validation/azure_nd_v5/measured), above what rings reach on 8 x H100 (~370).
  NodeSpec n = hgx8("nd-h100-v5", "H100", "sapphirerapids", "Azure ND H100 v5-series sizes page");
  n.nvls = true;
  ib_nics(n, 8, 1, 400);
  n.nic_tech = "InfiniBand NDR (ConnectX-7)";
  n.eth_bytes_per_s = 80 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
  c.push_back(n);
  // Azure ND H200 v5 (Standard_ND96isr_H200_v5): the same host with 8 x H200 141 GB (Azure "ND H200
  // v5 sizes" page).
  n.name = "nd-h200-v5";
  n.gpu = find_gpu("H200");
  n.citation = "Azure ND H200 v5-series sizes page";
  c.push_back(n);

  // Azure ND GB200 v6 (Standard_ND128isr_NDR_GB200_v6): a VM of 4 GB200 GPUs and 2 Grace, 4 x 400
  // Gb/s NDR InfiniBand (ConnectX-7), in racks of 18 VMs sharing one NVLink domain of 72 GPUs.
  // Source: Azure "ND GB200 v6 sizes" page; Azure/AI-benchmarking-guide ND_GB200_v6_results.md
  // (GB200 185 GB, NCCL 2.25.1).
  n = gb200_rack_of_vms("nd-gb200-v6-nvl72", "Azure ND GB200 v6-series sizes page (18 VMs x 4 GPUs, one NVL72 domain)");
  ib_nics(n, 72, 1, 400);
  n.nic_tech = "InfiniBand NDR (ConnectX-7)";
  n.eth_bytes_per_s = 18 * 200 * kGbit;
  c.push_back(n);

  // GCP A3 High (a3-highgpu-8g): 8 x H100 80 GB, 4 x 200 Gb/s gVNIC for GPU traffic with
  // GPUDirect-TCPX (one per pair of GPUs, under their PCIe switch) + 1 gVNIC for the host, 2 x Xeon
  // (Sapphire Rapids), 1,872 GB. Source: GCP "GPU machine types" (A3) and "Maximize GPU network
  // bandwidth with GPUDirect-TCPX" pages.
  n = hgx8("a3-highgpu-8g", "H100", "sapphirerapids", "GCP GPU machine types (A3 High); GPUDirect-TCPX guide");
  n.gpus_per_switch = 2;
  roce_nics(n, 4, 1, 200);
  n.nic_tech = "GPUDirect-TCPX over gVNIC (RDMA's rate, a floor under each ring step)";
  n.eth_driver = "gve";  // gVNIC
  // The plugin reports NCCL_NET_DEVICE_UNPACK (nccl-plugin-gpudirecttcpx src/net_tcpx.cc
  // tcpxGetProperties): its receives are gathered on the GPU by NCCL's unpack kernel.
  n.net_device_unpack = true;
  // The NCCL environment both of Google's TCPX examples set (cluster-toolkit
  // examples/gke-a3-highgpu/nccl-config.yaml; ai-infra-cluster-provisioning
  // sample_workloads/nccltest/gke/values.yaml, ncclPlugin.envs): rings with Simple, 4 MiB buffers,
  // 512 KiB point-to-point chunks. Their channel counts differ (8 and 12) and are left to NCCL.
  n.net_plugin_env = {{"NCCL_ALGO", "Ring"},
                      {"NCCL_PROTO", "Simple"},
                      {"NCCL_BUFFSIZE", "4194304"},
                      {"NCCL_P2P_NET_CHUNKSIZE", "524288"}};
  n.link_params = {{"ib.step_floor", kTcpxStepFloor}};
  n.network_note =
      "GPUDirect-TCPX: every ring step waits ~61 us in the plugin (read off one public "
      "2-node curve at 1-16 MiB; three held-out runs wait 46-55 us per step at 1-64 MiB and far less "
      "below 1 MiB, where the model takes up to 4.9 x their time); its rate is modelled as RDMA's, "
      "and where a ring step carries 0.25-3 MiB per channel the model is up to 42 % slow "
      "(docs/accuracy.md)";
  n.eth_bytes_per_s = 100 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
  c.push_back(n);
  // GCP A3 Mega (a3-megagpu-8g): 8 x H100 80 GB, 8 x 200 Gb/s gVNIC with GPUDirect-TCPXO (one per
  // GPU), 1,872 GB. Source: GCP "GPU machine types" (A3 Mega); GPUDirect-TCPXO guide.
  n = hgx8("a3-megagpu-8g", "H100", "sapphirerapids", "GCP GPU machine types (A3 Mega); GPUDirect-TCPXO guide");
  // NVLS runs in these VMs: the plugin's profile enables it from v1.0.12 on (NCCL_NVLS_ENABLE
  // unset, NCCL_NVLSTREE_MAX_CHUNKSIZE set; container-engine-accelerators gpudirect-tcpxo release
  // notes), and one VM's all_reduce_perf -g 8 reaches 471 GB/s bus bandwidth at 2 GB, above what
  // rings reach on 8 x H100 (MG-Cafe/TCPXO-Enabled-A3-Mega-H100-Benchmarks, docs/benchmark-report.md).
  n.nvls = true;
  roce_nics(n, 8, 1, 200);
  n.nic_tech = "GPUDirect-TCPXO over gVNIC (its own steps on the RoCE class)";
  n.eth_driver = "gve";  // gVNIC
  // The environment every Google guide sources before NCCL starts, the profile shipped with the
  // plugin (google/nccl-plugin-gpudirect-tcpxo tcpxo_scripts/nccl-env-profile.sh, plugin v1.0.15):
  // no LL, NCCL_MIN_NCHANNELS 4, 8 MiB buffers, 512 KiB p2p chunks, 128 KiB NVLSTree chunks. The
  // same profile loads Google's tuner plugin (libnccl-tuner.so, closed source), which the model
  // does not have: NCCL's own tuner chooses among what the profile allows.
  n.net_plugin_env = {{"NCCL_PROTO", "Simple,LL128"},
                      {"NCCL_MIN_NCHANNELS", "4"},
                      {"NCCL_BUFFSIZE", "8388608"},
                      {"NCCL_P2P_NET_CHUNKSIZE", "524288"},
                      {"NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072"}};
  // TCPXO's own steps and efficiency on the RoCE class. Each isend/irecv is one operation offloaded
  // to the NIC's data mover, posted and completed through the plugin's control path (plugin source,
  // tcpdirect_plugin/fastrak_offload), so a step costs about what EFA's offloaded steps cost, not
  // InfiniBand's. Read off one public curve, Google's own 2-node all_gather_perf (cluster-toolkit
  // examples/gke-a3-megagpu, plugin v1.0.15; scenarios/validation/gcp_2node/measured/
  // a3_mega_allgather_google.txt): the LL128 step from its flat 256 B - 16 KiB (84-87 us, Ring/LL128
  // through the model), the Simple efficiency from 4-8 GiB (189 GB/s out of each node's 8 x 25). The
  // Simple step is LL128's + 1.2 us and LL's LL128's - 1.3 us, EFA's and NCCL's differences
  // (assumed: no TCPXO curve runs Simple or LL at small sizes under today's profile); LL and LL128
  // efficiencies keep the class's ratios to Simple. Checked on dstack's all_gather and on an
  // all_reduce of plugin v1.0.3 (docs/accuracy.md).
  n.link_params = {{"ib.hop_latency.ll128", kTcpxoLl128Step},
                   {"ib.hop_latency.ll", kTcpxoLl128Step - 1.3e-6},
                   {"ib.hop_latency.simple", kTcpxoLl128Step + 1.2e-6},
                   {"ib.efficiency.simple", kTcpxoSimpleEfficiency},
                   {"ib.efficiency.ll128", kTcpxoSimpleEfficiency * 0.85 / 0.9},
                   {"ib.efficiency.ll", kTcpxoSimpleEfficiency * 0.45 / 0.9}};
  n.network_note =
      "GPUDirect-TCPXO has its own steps and the plugin's environment profile here, but not Google's "
      "tuner plugin: public 2-node all_gather_perf runs are 16-32 % slower than this model at "
      "64 KiB - 16 MiB and within 5 % elsewhere (docs/accuracy.md)";
  n.eth_bytes_per_s = 100 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
  c.push_back(n);
  // GCP A3 Ultra (a3-ultragpu-8g): 8 x H200 141 GB, 8 x 400 Gb/s ConnectX-7 RoCE with GPUDirect
  // RDMA (3.2 Tbps), 2 x Xeon (Emerald Rapids), 2,952 GB. Source: GCP "GPU machine types" (A3
  // Ultra); "GPUDirect RDMA" networking guide.
  n = hgx8("a3-ultragpu-8g", "H200", "emeraldrapids", "GCP GPU machine types (A3 Ultra); GPUDirect RDMA guide");
  roce_nics(n, 8, 1, 400);
  n.nic_tech = "RoCE v2 GPUDirect-RDMA (ConnectX-7)";
  n.eth_driver = "gve";  // gVNIC
  n.eth_bytes_per_s = 400 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 5600);
  c.push_back(n);
  // GCP A4 (a4-highgpu-8g): 8 x B200, 8 x 400 Gb/s ConnectX-7 RoCE with GPUDirect RDMA, 2 x Xeon
  // (Emerald Rapids), 3,968 GB. NVSwitch multicast as on the other HGX B200 hosts. Source: GCP "GPU
  // machine types" (A4).
  n = hgx8("a4-highgpu-8g", "B200", "emeraldrapids", "GCP GPU machine types (A4); GPUDirect RDMA guide");
  n.nvls = true;
  roce_nics(n, 8, 1, 400);
  n.nic_tech = "RoCE v2 GPUDirect-RDMA (ConnectX-7)";
  n.eth_driver = "gve";  // gVNIC
  n.eth_bytes_per_s = 400 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 5600);
  c.push_back(n);
  // GCP A4X (a4x-highgpu-4g): a VM of 4 GB200 GPUs and 2 Grace, 4 x 400 Gb/s ConnectX-7 RoCE with
  // GPUDirect RDMA; 18 VMs form one NVL72 NVLink domain (a sub-block). Source: GCP "GPU machine
  // types" (A4X) and "A4X" cluster documentation.
  n = gb200_rack_of_vms("a4x-nvl72", "GCP GPU machine types (A4X: 18 x a4x-highgpu-4g, one NVL72 domain)");
  roce_nics(n, 72, 1, 400);
  n.nic_tech = "RoCE v2 GPUDirect-RDMA (ConnectX-7)";
  n.eth_driver = "gve";  // gVNIC
  n.eth_bytes_per_s = 18 * 400 * kGbit;
  c.push_back(n);
}

}  // namespace models::hw::detail
