// Blackwell catalog entries: 8-GPU B200/B300 nodes and the NVLink racks of GB200/GB300 superchips,
// each with the source of its numbers. A rack is one node of the catalog: one NVLink domain
// (NCCL's multi-node NVLink, MNNVL) of `host_gpus`-GPU compute trays, each tray its own host with
// its own CPUs and NICs (NodeSpec::host_gpus; docs/hardware.md "Multi-node NVLink").
#include "models/hw/instance_build.hpp"
#include "models/hw/links.hpp"

namespace models::hw::detail {

// B300 with ConnectX-8 (DGX B300, GB300) reaches its NICs at PCIe Gen6 x16 (~121 GB/s each way at 7.563
// GB/s per lane), where an 800 Gb/s NIC or two 400 Gb/s EFA interfaces (100 GB/s) need more than
// Gen5 x16 moves (~63): B300's host interface is PCIe Gen6 (NVIDIA's Blackwell Ultra
// announcement), and ConnectX-8 SuperNICs carry a PCIe Gen6 switch between GPU and NIC, with a
// direct NIC-GPU datapath ("Data Direct") "to overcome grace CPU PCIe bandwidth issue"
// (ConnectX-8 firmware release notes 40.44, "Direct NIC-GPU Datapath"). The CPUs stay Gen5
// (Xeon 6, Grace), so host traffic (offload, checkpoints) keeps Gen5: host_pcie_gen.
constexpr int kB300NicPcieGen = 6;

void add_blackwell_nodes(std::vector<NodeSpec>& c) {
  {
    // p6-b300.48xlarge: 8 x B300 (2.1 TB HBM3e), NVLink 5 through NVSwitch, 6.4 Tbps of EFA v4
    // (AWS EC2 P6 instance page) as 16 EFA interfaces: "N = EFA interface count: 32 for p5/p5e, 16
    // for p5en, 8 for p6-b200, 16 for p6-b300" (AWS's awslabs/awsome-distributed-ai,
    // architectures/aws-pcs/tests/compute-test.md, where NCCL logs "found N nics"): 16 x 400 Gb/s,
    // two per GPU switch. Host: 2 x Xeon, PCIe Gen5; host memory as p6-b200 (8 x DDR5-5600 per
    // socket; not published, assumed). The EFA interfaces are AWS's own (Nitro) cards, not
    // ConnectX-8, and AWS does not state the GPU-to-NIC PCIe generation: Gen5 x16 (~55 GB/s per
    // GPU at NCCL's efficiency, under the two NICs' 100) is what the published 2-node all-reduce
    // reads, 751 GB/s of bus bandwidth at 64 GiB = ~50 GB/s per GPU each way over EFA
    // (scenarios/validation/p6_efa; at Gen6 the model runs it 13 % fast, at Gen5 8 %).
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
    // Source: NVIDIA DGX B300 datasheet; DGX SuperPOD B300 reference architecture. GPU to NIC at
    // PCIe Gen6 (kB300NicPcieGen), to the CPU Gen5.
    NodeSpec n = base("dgx-b300", "B300", 8, "NVIDIA DGX B300 datasheet; DGX SuperPOD B300 reference architecture");
    n.nvswitch = true;
    n.nvls = true;
    n.numa_nodes = 2;
    n.pcie_gen = kB300NicPcieGen;
    n.host_pcie_gen = 5;
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
    NodeSpec n = grace_rack("gb200-nvl72", "GB200", 72,
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
    NodeSpec n = grace_rack("gb300-nvl72", "GB300", 72, "NVIDIA GB300 NVL72 datasheet");
    n.pcie_gen = kB300NicPcieGen;  // the SuperNIC to its GPU; Grace's own PCIe stays Gen5
    n.host_pcie_gen = 5;
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
    NodeSpec n = grace_rack("u-p6e-gb200x72", "GB200", 72, "AWS EC2 P6e-GB200 UltraServer page; EC2 UltraServers user guide");
    efa_nics(n, 72, 1, 4, 400);
    aws_ofi_env(n, true);  // platform "p-series"
    n.net_plugin_latency_us = 35;
    n.eth_bytes_per_s = 18 * 100 * kGbit;
    n.host_mem_bytes_per_s = 36 * 512e9;
    c.push_back(n);
    n = grace_rack("u-p6e-gb200x36", "GB200", 36, "AWS EC2 P6e-GB200 UltraServer page; EC2 UltraServers user guide");
    efa_nics(n, 36, 1, 4, 400);
    aws_ofi_env(n, true);  // platform "p-series"
    n.net_plugin_latency_us = 35;
    n.eth_bytes_per_s = 9 * 100 * kGbit;
    n.host_mem_bytes_per_s = 18 * 512e9;
    c.push_back(n);
  }
}

}  // namespace models::hw::detail
