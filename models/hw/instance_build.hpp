#pragma once
// Helpers the instance catalog's files share (instance.cpp, instance_blackwell.cpp,
// instance_clouds.cpp): a node from a catalog GPU, and its NICs by technology. Each catalog file
// adds its entries with their citations through the add_* functions declared here.
#include <vector>

#include "models/hw/node.hpp"

namespace models::hw::detail {

inline constexpr double kGbit = 1e9 / 8;
// A Grace host's issue cost per NCCL operation in nccl-tests' loop (nccl.launch_overhead; an x86
// host's registered 25 us is the 4 x H200 machine's). Read off Azure's ND GB200 v6 tray, one
// process driving 4 GPUs (-g 4, NCCL 2.25.1), at 1-16 KiB through the model's device time (its
// Ring/LL over the rack's NVLink steps, kRackNvlinkStepExtra below, read first on a curve where
// the device time is 180 us and the issue cost does not show) and its (launch^4 + device^4)^(1/4)
// meeting: 15.2-16.6 us per call measured
// (scenarios/validation/gb200_nvl72/measured/azure_nd_gb200_v6_4gpu.csv). Checked on Oracle's GB300
// host, 4 processes of one GPU each (NCCL 2.28.7, gb300_oci/measured/all_reduce_1host.txt).
inline constexpr double kGraceLaunchOverhead = 14.0e-6;
// One NVLink step on an NVL72-class rack's NVLink fabric (GPUs joined through the rack's NVLink
// switch trays, within a compute tray too), LL: 1.28 us where NCCL's table (tuning.cc hwLat, Ring
// LL on NVLink) and an HGX baseboard have 0.6. Read off OCI's two-rack GB200-v3 all_reduce_perf at
// 8-64 B (NCCL 2.29.2, NVLS off: Tree/LL, a chain of 63 NVLink steps up and 63 down per rack, 180-188
// us per call; scenarios/validation/blackwell_nvls/measured/oci_gb200_v3_2racks.txt). The
// difference, 0.68 us, is the fabric's and is added to LL128's and Simple's steps as well.
// Checked on OCI's two GB300 trays (a Ring/LL of 8 ranks, 14 steps: 29.6-34.8 us at 512 KiB - 2 MiB,
// gb300_oci/measured/all_reduce_2hosts.txt).
inline constexpr double kRackNvlinkStepExtra = 0.68e-6;
// One rack of GB200 or GB300 superchips: `gpus` GPUs in trays of 4 (two Grace CPUs and four GPUs
// per tray, each Grace joined to two GPUs by NVLink-C2C), every GPU's 18 NVLink 5 links into the
// rack's NVLink switch trays (non-blocking: NVIDIA GB200 NVL72 datasheet, 130 TB/s for 72 GPUs =
// 1.8 TB/s each), one NIC per GPU. NCCL sees a GPU's NIC through C2C and the Grace's PCIe (path
// P2C) and uses GPUDirect RDMA there (NCCL_NET_GDR_C2C, default 1 since 2.27: src/graph/paths.cc
// ncclTopoCheckGdr), modelled as the NIC sharing a switch with its GPU (PIX: the same GDR
// decision). NVLS over the whole domain (NVLink SHARP in the NVLink switches; NCCL src/transport/
// nvls.cc runs it across the MNNVL clique). Its hosts issue at kGraceLaunchOverhead, its NVLink
// steps are the fabric's (kRackNvlinkStepExtra), and every run spanning its hosts says what the
// model leaves out of NVLS there (NodeSpec::nvlink_note), and every run across racks what it
// leaves out of NVLSTree between them (NodeSpec::network_note). The catalog's racks and the
// clouds' racks of VMs are built on it.
NodeSpec grace_rack(const char* name, const char* gpu, int gpus, const char* citation);

NodeSpec base(const char* name, const char* gpu, int gpus, const char* citation);
// AWS Elastic Fabric Adapter: `count` NICs of `gbit` Gb/s, `per_switch` under each GPU PCIe switch.
void efa_nics(NodeSpec& n, int count, int per_switch, int generation, double gbit);
// The NCCL variables aws-ofi-nccl sets on an AWS platform (NodeSpec::net_plugin_env; its
// src/platform-aws.cpp env tables): NCCL_BUFFSIZE 8 MiB and NCCL_P2P_NET_CHUNKSIZE 512 KiB, and
// from p5 on (`nvls_chunks`) NCCL_NVLSTREE_MAX_CHUNKSIZE and NCCL_NVLS_CHUNKSIZE 512 KiB and
// NCCL_NET_FORCE_FLUSH 0.
void aws_ofi_env(NodeSpec& n, bool nvls_chunks);
// InfiniBand HCAs driven by NCCL's IB plugin (one per GPU on DGX-style nodes).
void ib_nics(NodeSpec& n, int count, int per_switch, double gbit);
// RDMA over Converged Ethernet (ConnectX in Ethernet mode), NCCL's IB plugin.
void roce_nics(NodeSpec& n, int count, int per_switch, double gbit);

// The catalog's parts, in the order `commsim instances` lists them.
void add_blackwell_nodes(std::vector<NodeSpec>& c);  // B200/B300 8-GPU nodes, GB200/GB300 NVLink racks
void add_cloud_nodes(std::vector<NodeSpec>& c);      // Azure ND and GCP A3/A4 machines

}  // namespace models::hw::detail
