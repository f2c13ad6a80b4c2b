// Instance catalog entries. Layout facts (switches, NUMA, NICs per GPU) follow the topology AWS
// ships for aws-ofi-nccl (aws-ofi-nccl share/aws-ofi-nccl/xml/*-topo.xml, e.g. p4d-24xl-topo.xml
// named in seeds/000's log) and `nvidia-smi topo -m` samples (seeds/000, calibration topo.txt).
#include "models/hw/instance.hpp"

#include <cctype>
#include <string>

#include "models/error.hpp"
#include "models/hw/instance_build.hpp"
#include "models/hw/links.hpp"
#include "models/suggest.hpp"

namespace models::hw {

namespace {
using detail::aws_ofi_env;
using detail::base;
using detail::efa_nics;
using detail::ib_nics;
using detail::kGbit;

// NVIDIA DGX nodes: 8 SXM GPUs on NVSwitch, 8 single-port InfiniBand HCAs for the compute fabric
// (one per GPU, under the GPU's PCIe switch), two CPU sockets.
void dgx_nodes(std::vector<NodeSpec>& c) {
  {
    // DGX A100 (80 GB): 8 x A100 80 GB SXM4, 6 x NVSwitch (NVLink 3, 600 GB/s per GPU both ways),
    // 8 x single-port ConnectX-6 VPI HDR 200 Gb/s InfiniBand for the cluster, 2 x AMD EPYC 7742
    // (64 cores, 8 x DDR4-3200 per socket), 2 TB; 4 PCIe Gen4 switches, each with 2 GPUs and 2 HCAs.
    // Sources: NVIDIA DGX A100 User Guide (DU-09821-001, "Component Specifications"); NVIDIA
    // developer blog "Defining AI Innovation with DGX A100" (system architecture, PCIe topology).
    // Selene, where Megatron-LM's published runs were measured, is built of these nodes.
    NodeSpec n =
        base("dgx-a100-80gb", "A100-80GB", 8,
             "NVIDIA DGX A100 User Guide DU-09821-001; developer.nvidia.com/blog/defining-ai-innovation-with-dgx-a100");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.gpus_per_switch = 2;
    n.gpus_per_host_bridge = 2;
    n.cpu = CpuVendor::Amd;
    n.cpu_family = "rome";
    ib_nics(n, 8, 2, 200);
    n.eth_bytes_per_s = 200 * kGbit;  // the dual-port ConnectX-6 for storage / in-band Ethernet
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 3200);
    c.push_back(n);
  }
  {
    // DGX H100 / DGX H200: 8 x H100 80 GB (H200 141 GB) SXM5, 4 x NVSwitch (NVLink 4, 900 GB/s per
    // GPU both ways), 8 x single-port ConnectX-7 VPI NDR 400 Gb/s InfiniBand (four OSFP ports),
    // 2 x Xeon Platinum 8480C (Sapphire Rapids, 56 cores, 8 x DDR5-4800 per socket), 2 TB, PCIe Gen5,
    // each GPU with its HCA under one PCIe switch. Source: NVIDIA DGX BasePOD reference architecture,
    // "Core Components" (docs.nvidia.com/dgx-basepod); NVIDIA DGX H100/H200 User Guide.
    NodeSpec n =
        base("dgx-h100", "H100", 8, "NVIDIA DGX BasePOD reference architecture (Core Components); DGX H100 User Guide");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.gpus_per_switch = 1;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "sapphirerapids";
    ib_nics(n, 8, 1, 400);
    n.eth_bytes_per_s = 400 * kGbit;  // as dgx-h100: the 400 Gb/s storage / in-band ConnectX-7 ports
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
    n.nvls = true;  // NVSwitch gen 3 with multicast (NVLink SHARP): see dgx-h100 in make_node_catalog
    // dgx-h100 itself is main's entry in make_node_catalog (with its RoCE variant); only the H200 here.
    n.name = "dgx-h200";
    n.gpu = find_gpu("H200");
    n.citation = "NVIDIA DGX BasePOD reference architecture (Core Components); DGX H200 User Guide";
    c.push_back(n);
  }
  {
    // DGX B200: 8 x B200 (1.4 TB of GPU memory), 2 x NVSwitch (NVLink 5, 1.8 TB/s per GPU both
    // ways), 8 x single-port ConnectX-7 VPI up to 400 Gb/s InfiniBand (NDR; XDR 800 Gb/s comes with
    // ConnectX-8 on B300 systems), 2 x 5th-gen Xeon Platinum 8570 (Emerald Rapids, 8 x DDR5-5600 per
    // socket); host PCIe Gen5, so the GPUs' Gen6 ports train at Gen5. Source: NVIDIA DGX BasePOD
    // reference architecture, "Core Components"; NVIDIA DGX B200 datasheet.
    NodeSpec n =
        base("dgx-b200", "B200", 8, "NVIDIA DGX BasePOD reference architecture (Core Components); DGX B200 datasheet");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.pcie_gen = 5;
    n.gpus_per_switch = 1;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "emeraldrapids";
    ib_nics(n, 8, 1, 400);
    n.eth_bytes_per_s = 100 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 5600);
    n.nvls = true;  // NVSwitch with multicast (NVLink SHARP), as on p6-b200
    c.push_back(n);
  }
}

std::vector<NodeSpec> make_node_catalog() {
  std::vector<NodeSpec> c;
  {
    // p4d.24xlarge: 8 x A100 40GB, NVSwitch (NV12), 2 x Xeon 8275CL (Cascade Lake, 6 x DDR4-2933
    // per socket), 4 PCIe Gen4 switches each with 2 GPUs and 1 EFA (4 x 100 Gb/s EFA v1), 400 Gbps.
    NodeSpec n = base("p4d.24xlarge", "A100-40GB", 8, "AWS EC2 P4 instance page; aws-ofi-nccl p4d-24xl-topo.xml");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.gpus_per_switch = 2;
    n.gpus_per_host_bridge = 2;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "cascadelake";
    efa_nics(n, 4, 1, 1, 100);
    aws_ofi_env(n, false);  // platforms "p4d.24xlarge", "p4de.24xlarge"
    n.eth_bytes_per_s = 100 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(6, 2933);
    c.push_back(n);
    // p4de.24xlarge: the same host with A100 80GB (AWS EC2 P4 instance page).
    n.name = "p4de.24xlarge";
    n.gpu = find_gpu("A100-80GB");
    n.citation = "AWS EC2 P4 instance page (p4de)";
    c.push_back(n);
  }
  {
    // p5.48xlarge: 8 x H100, NVSwitch (NV18), 2 x AMD EPYC 7R13 (8 x DDR4-3200 per socket), one
    // PCIe Gen5 switch per GPU with 4 EFA v2 NICs: 32 x 100 Gb/s = 3200 Gbps.
    NodeSpec n = base("p5.48xlarge", "H100", 8, "AWS EC2 P5 instance page; aws-ofi-nccl p5.48xl-topo.xml");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.gpus_per_switch = 1;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Amd;
    n.cpu_family = "milan";
    n.host_pcie_gen = 4;  // Milan's root ports: the switches' uplinks at 16 GT/s x16 (p5.48xl-topo.xml)
    efa_nics(n, 32, 4, 2, 100);
    aws_ofi_env(n, true);  // platforms "p5/p5e", "p5en/p6-b200"
    // NVLS on: aws-ofi-nccl (src/platform-aws.cpp, "p5/p5e" and "p5en/p6-b200") sets
    // NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE for these hosts ("NVLS Tree ... on AWS"),
    // and its tuner (src/tuner/nccl_ofi_regions.cpp, models/nccl/ofi_tuner.hpp) picks NVLS_TREE on
    // 3+ p5 nodes at large sizes.
    n.nvls = true;
    n.eth_bytes_per_s = 100 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 3200);
    c.push_back(n);
    // p5e.48xlarge: the same host with H200 (AWS EC2 P5 instance page, p5e).
    n.name = "p5e.48xlarge";
    n.gpu = find_gpu("H200");
    n.citation = "AWS EC2 P5 instance page (p5e)";
    c.push_back(n);
    // p5en.48xlarge: 8 x H200, 2 x Xeon 8488C (Sapphire Rapids, 8 x DDR5-4800 per socket), 16 x
    // 200 Gb/s EFA v3 (2 per GPU switch), 3200 Gbps.
    n.name = "p5en.48xlarge";
    n.citation = "AWS EC2 P5 instance page (p5en)";
    n.host_pcie_gen = 0;  // Sapphire Rapids: Gen5 to the CPU too
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "sapphirerapids";
    efa_nics(n, 16, 2, 3, 200);
    aws_ofi_env(n, true);
    n.net_plugin_env.emplace_back("NCCL_NETDEVS_POLICY", "max:1");  // "p5en/p6-b200" only
    n.net_plugin_latency_us = 35;  // aws-ofi-nccl "p5en/p6-b200": latency 35.0
    n.eth_bytes_per_s = 200 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
    c.push_back(n);
  }
  {
    // p6-b200.48xlarge: 8 x B200, NVSwitch (NVLink 5 x18), 2 x Xeon (Emerald Rapids, 8 x
    // DDR5-5600 per socket), 8 x 400 Gb/s EFA v4 (one per GPU switch). Host PCIe is Gen5, so the
    // B200's Gen6 ports train at Gen5.
    NodeSpec n = base("p6-b200.48xlarge", "B200", 8, "AWS EC2 P6 instance page");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.pcie_gen = 5;
    n.gpus_per_switch = 1;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "emeraldrapids";
    efa_nics(n, 8, 1, 4, 400);
    aws_ofi_env(n, true);
    n.net_plugin_env.emplace_back("NCCL_NETDEVS_POLICY", "max:1");  // "p5en/p6-b200" only
    n.net_plugin_latency_us = 35;  // aws-ofi-nccl "p5en/p6-b200": latency 35.0
    n.nvls = true;                 // aws-ofi-nccl src/platform-aws.cpp "p5en/p6-b200": NVLS chunk sizes set
    n.eth_bytes_per_s = 100 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 5600);
    c.push_back(n);
  }
  {
    // g5.48xlarge: 8 x A10G on PCIe Gen4, no NVLink, 2 x AMD EPYC 7R32 (8 x DDR4-3200 per
    // socket), each GPU on its own root port, 1 EFA (100 Gbps).
    NodeSpec n = base("g5.48xlarge", "A10G", 8, "AWS EC2 G5 instance page");
    n.numa_nodes = 2;
    n.gpus_per_switch = 0;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Amd;
    n.cpu_family = "rome";
    efa_nics(n, 1, 0, 1, 100);
    n.eth_bytes_per_s = 100 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 3200);
    c.push_back(n);
  }
  {
    // g6e.12xlarge: 4 x L40S on PCIe Gen4, 1 NUMA node, every GPU pair NODE (seeds/000's
    // `nvidia-smi topo -m`), AMD EPYC 7R13, 1 EFA (100 Gbps).
    NodeSpec n = base("g6e.12xlarge", "L40S", 4, "AWS EC2 G6e instance page; topo -m in seeds/000");
    n.numa_nodes = 1;
    n.gpus_per_switch = 0;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Amd;
    n.cpu_family = "milan";
    efa_nics(n, 1, 0, 1, 100);
    n.eth_bytes_per_s = 100 * kGbit;
    n.host_mem_bytes_per_s = ddr_bytes_per_s(8, 3200);
    c.push_back(n);
    // g6e.48xlarge: 8 x L40S, 2 NUMA nodes, 4 EFA NICs (400 Gbps).
    n.name = "g6e.48xlarge";
    n.citation = "AWS EC2 G6e instance page";
    n.gpus = 8;
    n.numa_nodes = 2;
    efa_nics(n, 4, 0, 1, 100);
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 3200);
    c.push_back(n);
    // g6e.8xlarge: 1 x L40S, 1 EFA at 25 Gbps (seeds/004 ran 4 of these: EFA plugin failed ->
    // NET/Socket/0).
    n.name = "g6e.8xlarge";
    n.citation = "AWS EC2 G6e instance page; seeds/004 log";
    n.gpus = 1;
    n.numa_nodes = 1;
    efa_nics(n, 1, 0, 1, 25);
    n.eth_bytes_per_s = 25 * kGbit;
    n.host_mem_bytes_per_s = ddr_bytes_per_s(8, 3200);
    c.push_back(n);
  }
  {
    // dgx-a100: NVIDIA DGX A100 (Selene's node; published.md's Megatron runs): 8 x A100 80GB,
    // NVSwitch (NV12), 2 x AMD EPYC 7742 (Rome, 8 x DDR4-3200 per socket), 4 PCIe Gen4 switches
    // each with 2 GPUs and 2 ConnectX-6 HDR 200 Gb/s compute NICs (8 per node), 2 x 200 Gb/s
    // storage/in-band (NVIDIA DGX A100 User Guide, "Hardware Overview"; DGX A100 system
    // architecture white paper).
    NodeSpec n = base("dgx-a100", "A100-80GB", 8, "NVIDIA DGX A100 User Guide; DGX A100 architecture white paper");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.gpus_per_switch = 2;
    n.gpus_per_host_bridge = 2;
    n.cpu = CpuVendor::Amd;
    n.cpu_family = "rome";
    ib_nics(n, 8, 2, 200);
    n.eth_bytes_per_s = 200 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 3200);
    c.push_back(n);
    // dgx-h100: 8 x H100 SXM, NVSwitch (NV18), 2 x Xeon Platinum 8480C (Sapphire Rapids, 8 x
    // DDR5-4800 per socket), one PCIe Gen5 switch per GPU with one ConnectX-7 NDR 400 Gb/s compute
    // NIC (8 per node), 2 x 400 Gb/s storage (NVIDIA DGX H100 User Guide, "Hardware Overview").
    n = base("dgx-h100", "H100", 8, "NVIDIA DGX H100 User Guide");
    n.nvswitch = true;
    n.numa_nodes = 2;
    n.gpus_per_switch = 1;
    n.gpus_per_host_bridge = 1;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "sapphirerapids";
    ib_nics(n, 8, 1, 400);
    // NCCL's Socket transport on the 2 x dual-port 400 Gb/s ConnectX-7 (storage and in-band
    // network); the 100 Gb/s NIC is out-of-band management, which NCCL is not pointed at.
    n.eth_bytes_per_s = 400 * kGbit;
    n.host_mem_bytes_per_s = 2 * ddr_bytes_per_s(8, 4800);
    // NVLink SHARP: third-generation NVSwitch with multicast, which NCCL uses by default for
    // all-reduce (NVLS: busbw 370 -> 480 GB/s on 8 x H100, sjeaugey in NVIDIA/nccl-tests#212).
    n.nvls = true;
    c.push_back(n);
    // dgx-h100-roce: the same host with its ConnectX-7 ports in Ethernet mode (400 GbE RoCE v2,
    // e.g. on NVIDIA Spectrum-X), as many H100 clouds run it. NVLS is left off here: its only
    // scenarios reproduce Meta's Llama 3 runs (scenarios/validation/llama3), whose NCCL settings
    // are not published; turn it on with [cluster.node] or use dgx-h100 for NVLS.
    n.name = "dgx-h100-roce";
    n.citation = "NVIDIA DGX H100 User Guide; ConnectX-7 in Ethernet mode";
    n.nic_kind = NicKind::Roce;
    n.nic_tech = "RoCE v2 (ConnectX-7, Ethernet mode)";
    n.nvls = false;
    c.push_back(n);
  }
  {
    // h200x4: the calibration VM (scenarios/validation/h200x4/measured): 4 x H200 SXM, NV18 to every
    // peer through NVSwitch, PCIe Gen5 x16, one NUMA node; NCCL's topology (logs/p2p_n4.rank0.log)
    // hangs every GPU directly off the one CPU (PHB), Intel x86. No EFA: a virtio NIC that NCCL
    // rates at 10 Gb/s. Host memory: not published; pinned host->GPU on all 4 GPUs at once
    // reached 195 GB/s (copy_bench.jsonl), so it sustains at least that: 200 GB/s assumed.
    NodeSpec n = base("h200x4", "H200", 4, "scenarios/validation/h200x4/measured (topo.txt, logs, copy_bench.jsonl)");
    n.nvswitch = true;
    n.numa_nodes = 1;
    n.gpus_per_switch = 0;
    n.gpus_per_host_bridge = 4;
    n.cpu = CpuVendor::Intel;
    n.cpu_family = "sapphirerapids";
    n.nics = 0;
    n.nic_kind = NicKind::None;
    n.eth_bytes_per_s = 10 * kGbit;
    n.eth_driver = "virtio";
    n.host_mem_bytes_per_s = 200e9;
    c.push_back(n);
  }
  dgx_nodes(c);
  detail::add_blackwell_nodes(c);
  detail::add_cloud_nodes(c);
  return c;
}
}  // namespace

const std::vector<NodeSpec>& instance_catalog() {
  static const std::vector<NodeSpec> catalog = make_node_catalog();  // immutable after first use
  return catalog;
}

std::vector<std::string> instance_names() {
  std::vector<std::string> names;
  for (const auto& n : instance_catalog()) names.push_back(n.name);
  return names;
}

namespace {
// Names compared as users type them: case and '-' / '_' / '.' / ' ' do not matter ("GB200_NVL72").
std::string folded(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '-' || ch == '_' || ch == '.' || ch == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

// Cloud names of the same machines: VM sizes that are whole catalog nodes, and VM sizes that are one
// host of an NVLink domain (the catalog's node is the domain).
struct Alias {
  const char* name;
  const char* instance;
  bool one_host_of_domain;
};
constexpr Alias kAliases[] = {
    {"Standard_ND96isr_H100_v5", "nd-h100-v5", false},
    {"Standard_ND96isr_H200_v5", "nd-h200-v5", false},
    {"Standard_ND128isr_NDR_GB200_v6", "nd-gb200-v6-nvl72", true},
    {"nd-gb200-v6", "nd-gb200-v6-nvl72", true},
    {"a4x-highgpu-4g", "a4x-nvl72", true},
    {"p6e-gb200.36xlarge", "u-p6e-gb200x72", true},
    {"gb200", "gb200-nvl72", false},
    {"gb300", "gb300-nvl72", false},
};
}  // namespace

const NodeSpec& find_instance(std::string_view name) {
  for (const auto& n : instance_catalog())
    if (n.name == name) return n;
  const std::string key = folded(name);
  for (const auto& n : instance_catalog())
    if (folded(n.name) == key) return n;
  for (const Alias& a : kAliases) {
    if (folded(a.name) != key) continue;
    if (a.one_host_of_domain) {
      const NodeSpec& d = find_instance(a.instance);
      throw SpecError("cluster.instance",
                      "'" + std::string(name) + "' is one " + std::to_string(d.host_gpus) +
                          "-GPU host of an NVLink domain; a catalog node is the whole domain (expected instance = \"" +
                          d.name + "\": " + std::to_string(d.gpus) + " GPUs per node, cluster.nodes counts domains)");
    }
    return find_instance(a.instance);
  }
  throw SpecError("cluster.instance", unknown_name_message("instance", name, instance_names()));
}

}  // namespace models::hw
