// The instance catalog's shared helpers (instance_build.hpp).
#include "models/hw/instance_build.hpp"

#include <string>

#include "models/params.hpp"

namespace models::hw::detail {

NodeSpec base(const char* name, const char* gpu, int gpus, const char* citation) {
  NodeSpec n;
  n.name = name;
  n.gpu = find_gpu(gpu);
  n.gpus = gpus;
  n.nvlink_gen = n.gpu.nvlink_gen;
  n.nvlink_links = n.gpu.nvlink_links;
  n.pcie_gen = n.gpu.pcie_gen;
  n.citation = citation;
  return n;
}

void efa_nics(NodeSpec& n, int count, int per_switch, int generation, double gbit) {
  n.eth_driver = "ena";  // every EFA host is an EC2 instance: its ordinary NIC is ENA
  n.nics = count;
  n.nics_per_switch = per_switch;
  n.nic_kind = NicKind::Efa;
  n.efa_generation = generation;
  n.nic_bytes_per_s = gbit * kGbit;
  n.nic_tech = "EFA v" + std::to_string(generation);
  // aws-ofi-nccl src/platform-aws.cpp: 75 us for p4d, p4de, p5, p5e, g5 and, as the fall-through
  // default, hosts it does not list ("Empirical testing on P5 had shown that NCCL's internal
  // tuner choices work better with this value"); 35 us for p5en and p6 (set there).
  n.net_plugin_latency_us = 75;
}

void aws_ofi_env(NodeSpec& n, bool nvls_chunks) {
  n.net_plugin_env = {{"NCCL_BUFFSIZE", "8388608"}, {"NCCL_P2P_NET_CHUNKSIZE", "524288"}};
  // EFA v1 (p4d, p4de) runs the plugin's SENDRECV protocol (src/platform-aws.cpp: default_protocol
  // SENDRECV there) and does not deliver bytes in order (FI_OPT_EFA_SENDRECV_IN_ORDER_ALIGNED_128_BYTES
  // unsupported), so the plugin adds NCCL_PROTO=simple: LL and LL128 could read torn lines
  // (platform-aws.cpp "Need to force simple protocol", nccl_ofi_net.cpp
  // nccl_net_ofi_configure_nccl_proto_simple). The seeds' p4d log shows it:
  // "NET/OFI Adding NCCL_PROTO=simple to environment" (scenarios/seeds/notes/000_*.txt).
  if (n.nic_kind == NicKind::Efa && n.efa_generation == 1) n.net_plugin_env.emplace_back("NCCL_PROTO", "simple");
  if (!nvls_chunks) return;
  // "NCCL v2.19.3 reduced the chunk size used when running NVLS Tree algorithm on greater than 4
  // nodes to 64KiB. This drastically impacted performance on AWS ... a max chunk size of 512KiB
  // recovers from the regression" (src/platform-aws.cpp).
  n.net_plugin_env.insert(
      n.net_plugin_env.end(),
      {{"NCCL_NVLSTREE_MAX_CHUNKSIZE", "524288"}, {"NCCL_NVLS_CHUNKSIZE", "524288"}, {"NCCL_NET_FORCE_FLUSH", "0"}});
}

// InfiniBand HCAs for the compute fabric, one per GPU on NVIDIA's DGX systems (NCCL's NET/IB).
void ib_nics(NodeSpec& n, int count, int per_switch, double gbit) {
  n.nics = count;
  n.nics_per_switch = per_switch;
  n.nic_kind = NicKind::Ib;
  n.efa_generation = 0;
  n.net_plugin_latency_us = 0;  // NCCL's IB plugin declares none
  n.nic_bytes_per_s = gbit * kGbit;
  n.nic_tech = std::string("InfiniBand ") + (gbit <= 200 ? "HDR" : gbit <= 400 ? "NDR" : "XDR");
}

void roce_nics(NodeSpec& n, int count, int per_switch, double gbit) {
  ib_nics(n, count, per_switch, gbit);
  n.nic_kind = NicKind::Roce;
  n.nic_tech = "RoCE v2";
}

NodeSpec grace_rack(const char* name, const char* gpu, int gpus, const char* citation) {
  NodeSpec n = base(name, gpu, gpus, citation);
  n.host_gpus = 4;
  n.nvswitch = true;
  n.nvls = true;
  n.pcie_gen = 5;  // Grace's PCIe Gen5 to the NICs
  n.numa_nodes = gpus / 2;
  n.gpus_per_switch = 1;
  n.gpus_per_host_bridge = 1;
  n.cpu = CpuVendor::Arm;
  n.cpu_family = "grace";
  n.launch_overhead_s = kGraceLaunchOverhead;
  // The rack's NVLink steps as link parameters: NCCL's Ring NVLink hwLat + the fabric's extra.
  for (const char* proto : {"ll", "ll128", "simple"}) {
    const std::string param = std::string("nvlink.hop_latency.") + proto;
    n.link_params.emplace_back(param, param_default(param) + kRackNvlinkStepExtra);
  }
  // NVLS's fixed time over the rack's hosts is more than the model's (OCI's GB300 NVL72, 64 GPUs,
  // NCCL 2.28.7: scenarios/validation/gb300_oci/measured; docs/accuracy.md), and what sets it is
  // not known. The same rack's all-to-all takes 31 us or more per call, where the model charges
  // 15-32 us up to 4 MiB per GPU: a fixed cost per call, not charged. Its size is the host's issue
  // cost of the call's 128 sends and receives (0.26 us each on an x86 H200 host,
  // scenarios/validation/h200x1/measured/nccl_p2p_issue_cost.jsonl); Grace's own rate is not
  // measured (docs/accuracy.md). A run that spans the rack's hosts says both.
  n.nvlink_note =
      "NVLS across the rack's hosts is an optimistic bound below ~8 MiB: on OCI's GB300 NVL72 64 GPUs "
      "took 66 us at 512 KiB - 2 MiB where this model charges 32-44 (21 % fast at 4 MiB); from 8 MiB "
      "within 14 %. All-to-all across them is an optimistic bound below ~8 MiB per GPU: that rack took "
      "31-44 us at 512 KiB - 4 MiB where this model charges 15-32 (a fixed cost per call that it does "
      "not charge: the host issuing the call's sends and receives, 2 per peer); from 8 MiB within "
      "20 %, from 64 MiB within 6 % (docs/accuracy.md)";
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
  // From 512 MiB: two racks 9-24 % slower than the model, twenty 2.3x its time at 8 GiB.
  n.network_note_error_two = 0.24;
  n.network_note_error_more = 1.3;
  return n;
}

}  // namespace models::hw::detail
