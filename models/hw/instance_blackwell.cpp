// Blackwell catalog entries: 8-GPU B200/B300 nodes and the NVLink racks of GB200/GB300 superchips,
// each with the source of its numbers. A rack is one node of the catalog: one NVLink domain
// (NCCL's multi-node NVLink, MNNVL) of `host_gpus`-GPU compute trays, each tray its own host with
// its own CPUs and NICs (NodeSpec::host_gpus; docs/hardware.md "Multi-node NVLink").
#include "models/hw/instance_build.hpp"
#include "models/hw/links.hpp"

namespace models::hw::detail {

namespace {

// A rack of the catalog's own (instance_build.hpp grace_rack), with what the model leaves out of
// its network across racks.
NodeSpec rack(const char* name, const char* gpu, int gpus, const char* citation) {
  NodeSpec n = grace_rack(name, gpu, gpus, citation);
  // Across NVLink domains NCCL runs NVLSTree, a tree of the domains' NVLS heads, and every public
  // run across racks is slower than the model's: OCI's two GB300 NVL72 racks (NCCL 2.28.7;
  // scenarios/validation/gb300_oci/measured/all_reduce_2racks.txt) hold a flat ~490 us from 512 KiB
  // to 16 MiB where the model's NVLSTree takes 46-166 us, and run 20-24 % slower from 1 GiB;
  // CoreWeave's two GB200 racks 9-16 % slower from 512 MiB; the one run beyond two racks (CoreWeave,
  // 20 x GB200 NVL72, NCCL 2.26.2; gb200_nvl72/measured/all_reduce_20racks.txt) reached 382 GB/s of
  // bus bandwidth at 8 GiB where one and two racks reach ~800 and the model ~870: the network binds
  // there at 28 % of 32 heads' NICs, and NCCL 2.27.3's release notes say it raised the NICs used
  // between MNNVL domains on GB200 to 16 and turned GPUDirect RDMA on for NICs behind the Grace CPU,
  // so that run's 2.26.2 used fewer (how many is not known). What limits two racks below 64 MiB is
  // not known (docs/accuracy.md, "An NVL72 rack's NVLink step" and "OCI GB300 NVL72 racks";
  // docs/hardware.md, "Blackwell").
  n.network_note =
      "across NVLink domains NVLSTree is an optimistic bound here: on two racks below ~64 MiB (OCI's "
      "two GB300 NVL72 racks took a flat ~490 us at 512 KiB - 16 MiB where this model charges 46-166 "
      "us; 9-24 % slower than it from 512 MiB on two GB200 and GB300 racks), beyond two racks at every "
      "size (a public 20-rack GB200 NVL72 all_reduce_perf with NCCL 2.26.2 ran 2.3x slower than this "
      "model at 8 GiB: 382 against 870 GB/s bus bandwidth; NCCL 2.27.3 raised the NICs used between "
      "racks, so newer NCCL may run closer) (docs/accuracy.md)";
  return n;
}

}  // namespace

void add_blackwell_nodes(std::vector<NodeSpec>& c) {
  {
    // p6-b300.48xlarge: 8 x B300 (2.1 TB HBM3e), NVLink 5 through NVSwitch, 6.4 Tbps of EFA v4
    // (AWS EC2 P6 instance page) as 16 EFA interfaces: "N = EFA interface count: 32 for p5/p5e, 16
    // for p5en, 8 for p6-b200, 16 for p6-b300" (AWS's awslabs/awsome-distributed-ai,
    // architectures/aws-pcs/tests/compute-test.md, where NCCL logs "found N nics"): 16 x 400 Gb/s,
    // two per GPU switch. Host: 2 x Xeon, PCIe Gen5; host memory as p6-b200 (8 x DDR5-5600 per
    // socket; not published, assumed).
    NodeSpec n = base("p6-b300.48xlarge", "B300", 8, "AWS EC2 P6 instance page (p6-b300); NVIDIA HGX B300 datasheet");
    n.nvswitch = true;
    n.nvls = true;  // NVSwitch multicast as on p6-b200
    n.numa_nodes = 2;
    n.pcie_gen = 5;
    n.gpus_per_switch = 1;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "emeraldrapids";
    efa_nics(n, 16, 2, 4, 400);
    aws_ofi_env(n, true);          // platform "p6-b300"
    n.net_plugin_latency_us = 35;  // aws-ofi-nccl platform "p6-b300": latency 35.0
    n.eth_bytes_per_s = 300 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 5600);
    c.push_back(n);
  }
  {
    // DGX B300: 8 x B300, NVLink 5 through NVSwitch, 8 x single-port ConnectX-8 VPI up to 800 Gb/s
    // (InfiniBand XDR), 2 x Xeon 6776P (Granite Rapids, 8 x DDR5-6400 per socket), PCIe Gen5 host.
    // Source: NVIDIA DGX B300 datasheet; DGX SuperPOD B300 reference architecture.
    NodeSpec n = base("dgx-b300", "B300", 8, "NVIDIA DGX B300 datasheet; DGX SuperPOD B300 reference architecture");
    n.nvswitch = true;
    n.nvls = true;
    n.numa_nodes = 2;
    n.pcie_gen = 5;
    n.gpus_per_switch = 1;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "emeraldrapids";  // Xeon 6: UPI 2.0 as the 5th-gen entry (links.cpp inter_socket)
    ib_nics(n, 8, 1, 800);
    n.nic_tech = "InfiniBand XDR (ConnectX-8)";
    n.eth_bytes_per_s = 400 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 6400);
    c.push_back(n);
  }
  {
    // GB200 NVL72 (NVIDIA DGX GB200 and the OEM racks): 72 x GB200's B200 in 18 compute trays of
    // 4 GPUs + 2 Grace CPUs, one NVLink domain of 72 GPUs (130 TB/s), 4 x ConnectX-7 NDR 400 Gb/s
    // InfiniBand per tray (one per GPU: NVIDIA DGX SuperPOD GB200 reference architecture, "DGX
    // GB200 compute tray"), a BlueField-3 (2 x 200 Gb/s) per tray for storage and in-band. Grace:
    // up to 480 GB LPDDR5X at up to 512 GB/s each (GB200 NVL72 datasheet: 17 TB, 18.4 TB/s per rack).
    NodeSpec n = rack("gb200-nvl72", "GB200", 72,
                      "NVIDIA GB200 NVL72 datasheet; DGX SuperPOD GB200 reference architecture (compute tray)");
    ib_nics(n, 72, 1, 400);
    n.nic_tech = "InfiniBand NDR (ConnectX-7)";
    n.eth_bytes_per_s = 18 * 400 * kGbit;
    n.host_mem_bytes_per_s = 36 * 512e9;
    c.push_back(n);
    // GB200 NVL36x2: the same 72-GPU NVLink domain built from two racks of 9 compute trays each,
    // their NVLink switch trays cabled together (NVIDIA GB200 NVL72 / NVL36x2 configurations; OCP
    // "Blackwell NVL36x2" contribution): the same numbers as one NVL72 rack.
    n.name = "gb200-nvl36x2";
    n.citation = "NVIDIA GB200 NVL36x2 configuration (two racks, one 72-GPU NVLink domain); GB200 NVL72 datasheet";
    c.push_back(n);
  }
  {
    // GB300 NVL72: 72 x GB300's B300 in 18 trays, one NVLink domain of 72 (130 TB/s), one
    // ConnectX-8 SuperNIC at 800 Gb/s per GPU (72 per rack; InfiniBand XDR or Spectrum-X Ethernet),
    // 36 Grace with 17 TB LPDDR5X at 14 TB/s per rack. Source: NVIDIA GB300 NVL72 datasheet.
    NodeSpec n = rack("gb300-nvl72", "GB300", 72, "NVIDIA GB300 NVL72 datasheet");
    ib_nics(n, 72, 1, 800);
    n.nic_tech = "InfiniBand XDR (ConnectX-8 SuperNIC)";
    n.eth_bytes_per_s = 18 * 400 * kGbit;
    n.host_mem_bytes_per_s = 14e12;
    c.push_back(n);
  }
  {
    // AWS P6e-GB200 UltraServers: u-p6e-gb200x72 is 18 p6e-gb200.36xlarge instances (4 GB200 GPUs
    // and 2 Grace each) in one 72-GPU NVLink domain, 28.8 Tbps of EFA v4 = 400 Gb/s per GPU;
    // u-p6e-gb200x36 is 9 instances, a 36-GPU domain (AWS EC2 P6e-GB200 instance page; "Amazon EC2
    // UltraServers" user guide). aws-ofi-nccl's platform table matches p6e-gb200 by its "p-series"
    // entry (regex ^p([5-9]|[0-9]{2,}).*, "we expect this to apply to P6e-GB200 and later"): 35 us.
    NodeSpec n = rack("u-p6e-gb200x72", "GB200", 72, "AWS EC2 P6e-GB200 UltraServer page; EC2 UltraServers user guide");
    efa_nics(n, 72, 1, 4, 400);
    aws_ofi_env(n, true);  // platform "p-series"
    n.net_plugin_latency_us = 35;
    n.eth_bytes_per_s = 18 * 100 * kGbit;
    n.host_mem_bytes_per_s = 36 * 512e9;
    c.push_back(n);
    n = rack("u-p6e-gb200x36", "GB200", 36, "AWS EC2 P6e-GB200 UltraServer page; EC2 UltraServers user guide");
    efa_nics(n, 36, 1, 4, 400);
    aws_ofi_env(n, true);  // platform "p-series"
    n.net_plugin_latency_us = 35;
    n.eth_bytes_per_s = 9 * 100 * kGbit;
    n.host_mem_bytes_per_s = 18 * 512e9;
    c.push_back(n);
  }
}

}  // namespace models::hw::detail
