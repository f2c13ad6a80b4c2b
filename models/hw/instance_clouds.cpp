// Azure ND and GCP A3/A4 catalog entries, each with the source of its numbers. The GB200 machines
// of both clouds are racks: one node is one 72-GPU NVLink domain of 18 four-GPU VMs
// (instance_blackwell.cpp states the rack's layout).
//
// GCP's GPUDirect-TCPX (A3 High) and TCPXO (A3 Mega) move GPU traffic over gVNIC Ethernet through
// NCCL net plugins of their own (nccl-plugin-gpudirecttcpx, -fastrak). commsim has no link class
// for them: they are modelled as RDMA NICs (NicKind::Roce, NCCL's IB plugin rules), at their line
// rate. Their plugins' own costs (per-message latency, the receive data path) are not modelled,
// so the network part of an A3 High / A3 Mega run is an optimistic bound (docs/hardware.md).
#include "models/hw/instance_build.hpp"
#include "models/hw/links.hpp"

namespace models::hw::detail {

namespace {

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

// 18 VMs of 4 GB200 GPUs and 2 Grace each, one 72-GPU NVLink domain (as instance_blackwell.cpp's racks).
NodeSpec gb200_rack_of_vms(const char* name, const char* citation) {
  NodeSpec n = base(name, "GB200", 72, citation);
  n.host_gpus = 4;
  n.nvswitch = true;
  n.nvls = true;
  n.pcie_gen = 5;
  n.numa_nodes = 36;
  n.gpus_per_switch = 1;
  n.gpus_per_host_bridge = 1;
  n.cpu = CpuVendor::Arm;
  n.cpu_family = "grace";
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
  n.nic_tech = "GPUDirect-TCPX over gVNIC (modelled as RDMA)";
  n.network_note =
      "GPUDirect-TCPX is modelled as RDMA at line rate; its plugin's per-message cost and receive path "
      "are not, so collectives across nodes are an optimistic bound (on A3 Mega's TCPXO, measured: "
      "53-72 % slower below 512 MiB; docs/hardware.md)";
  n.eth_bytes_per_s = 100 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
  c.push_back(n);
  // GCP A3 Mega (a3-megagpu-8g): 8 x H100 80 GB, 8 x 200 Gb/s gVNIC with GPUDirect-TCPXO (one per
  // GPU), 1,872 GB. Source: GCP "GPU machine types" (A3 Mega); GPUDirect-TCPXO guide.
  n = hgx8("a3-megagpu-8g", "H100", "sapphirerapids", "GCP GPU machine types (A3 Mega); GPUDirect-TCPXO guide");
  roce_nics(n, 8, 1, 200);
  n.nic_tech = "GPUDirect-TCPXO over gVNIC (modelled as RDMA)";
  n.network_note =
      "GPUDirect-TCPXO is modelled as RDMA at line rate; its plugin's per-message cost and receive "
      "path are not: a public 2 x a3-megagpu-8g all_reduce_perf ran 53-72 % slower than this model "
      "below 512 MiB (123 us at 8 B) and within 9 % from 512 MiB (docs/hardware.md)";
  n.eth_bytes_per_s = 100 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
  c.push_back(n);
  // GCP A3 Ultra (a3-ultragpu-8g): 8 x H200 141 GB, 8 x 400 Gb/s ConnectX-7 RoCE with GPUDirect
  // RDMA (3.2 Tbps), 2 x Xeon (Emerald Rapids), 2,952 GB. Source: GCP "GPU machine types" (A3
  // Ultra); "GPUDirect RDMA" networking guide.
  n = hgx8("a3-ultragpu-8g", "H200", "emeraldrapids", "GCP GPU machine types (A3 Ultra); GPUDirect RDMA guide");
  roce_nics(n, 8, 1, 400);
  n.nic_tech = "RoCE v2 GPUDirect-RDMA (ConnectX-7)";
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
  n.eth_bytes_per_s = 400 * kGbit;
  n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 5600);
  c.push_back(n);
  // GCP A4X (a4x-highgpu-4g): a VM of 4 GB200 GPUs and 2 Grace, 4 x 400 Gb/s ConnectX-7 RoCE with
  // GPUDirect RDMA; 18 VMs form one NVL72 NVLink domain (a sub-block). Source: GCP "GPU machine
  // types" (A4X) and "A4X" cluster documentation.
  n = gb200_rack_of_vms("a4x-nvl72", "GCP GPU machine types (A4X: 18 x a4x-highgpu-4g, one NVL72 domain)");
  roce_nics(n, 72, 1, 400);
  n.nic_tech = "RoCE v2 GPUDirect-RDMA (ConnectX-7)";
  n.eth_bytes_per_s = 18 * 400 * kGbit;
  c.push_back(n);
}

}  // namespace models::hw::detail
