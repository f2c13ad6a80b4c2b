#pragma once
// NCCL's own cost model (src/graph/tuning.cc, src/enqueue.cc; tables of NCCL 2.2x, the version
// family of the calibration machine, 2.28.9): NCCL predicts time = latency + bytes/bandwidth for
// every algorithm and protocol and takes the smallest. We reproduce that prediction only to make
// the same CHOICE NCCL makes; the time we report comes from the flow simulation, not from here.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/nccl/env.hpp"
#include "models/nccl/ofi_tuner.hpp"
#include "models/nccl/ops.hpp"

namespace models::nccl {

// What NCCL's tuner sees of a communicator (its graphs are summarised by their channel count,
// per-channel bandwidth and link types).
struct CommView {
  int nranks = 1;
  int nnodes = 1;              // NCCL's nodes: distinct host hashes (a pod without shared IPC is one)
  int sm = 90;                 // compute capability x10 of the GPUs (70, 80, 90, 100)
  bool intra_nvlink = true;    // graph typeIntra is NVLink (else PCI: PCIe P2P, SHM, loopback NET)
  bool inter_gdr_near = true;  // NIC within PXB/PXN of the GPU (LL128 allowed across nodes)
  bool cpu_amd = false;        // the hosts' CPUs are AMD x86 (or mixed): llMaxBws row, network overhead
  bool cpu_arm = false;        // Arm hosts (Grace): not x86, as 2.29's NVLSTree correction asks
  int nccl_version = 0;        // the run's NCCL release (tuner_tables.hpp; 0: the default)
  bool example_tuner = false;  // NCCL's example tuner plugin loaded: its constants (tuner_tables.hpp)
  double bw_intra_gbs = 30;  // per-channel bandwidth the graph search settled on, GB/s
  double bw_inter_gbs = 0;   // per-channel network bandwidth, GB/s (0 on one node)
  int graph_channels = 12;   // channels of the ring graph; NCCL runs twice as many
  // The NVLS graph (search.cc, NCCL_TOPO_PATTERN_NVLS): NVSwitch multicast on the node
  // (hw::NodeSpec::nvls), NCCL_NVLS_ENABLE not 0, NVLink inside every NCCL node of 2+ ranks, 2+
  // heads. On one node it gives NVLS; across nodes NVLSTree, and NVLS itself only with CollNet.
  // Heads (the graph's channels): every GPU on one node (<= NCCL_MAX_NVLS_ARITY 32), one per NIC
  // across nodes. Its per-channel speeds: on one node from the intra-node list (graph_search.cpp),
  // across nodes the network's (bw_inter_gbs, which NVLSTree reads).
  bool nvls = false;
  int nvls_heads = 0;
  double nvls_bw_intra_gbs = 0, nvls_bw_inter_gbs = 0;
  // nvlsChannels, the CTAs NVLS runs on (src/transport/nvls.cc: 16 on Hopper; Blackwell 24 on one
  // node, 32 across nodes; NCCL_NVLS_NCHANNELS; within NCCL_MIN/MAX_CTAS).
  int nvls_channels = 16;
  // CollNet (SHARP in the InfiniBand switches, through NCCL's collnet plugin): NCCL_COLLNET_ENABLE=1
  // and a SHARP fabric ([cluster.fabric] sharp), several nodes. Its graphs (COLLNET_DIRECT, and the
  // tree pattern for CollNetChain) have one head per NIC; CollNetDirect needs an NVSwitch
  // (tuning.cc: nvsCount), CollNetChain at most 8 ranks per node (NCCL_MAX_DIRECT_ARITY + 1).
  bool collnet = false;
  bool nvswitch = false;
  int collnet_heads = 0;
  double collnet_bw_intra_gbs = 0;  // the collnet graphs' bwIntra (pass 2 raises it, as for trees on 2 nodes)
  // The latency the network plugin declares (graph latencyInter, us): added to every inter-node
  // step, twice with Simple ("flush extra latency"). aws-ofi-nccl on EFA: 75 or 35 us; else 0.
  double net_latency_us = 0;
  // The net plugin offloads its receives to the GPU (hw::NodeSpec::net_device_unpack, NCCL's
  // comm->netDeviceType NCCL_NET_DEVICE_UNPACK): GPUDirect-TCPX. Read by pat_enabled.
  bool net_device_unpack = false;
  // aws-ofi-nccl's tuner platform where the network is aws-ofi-nccl on a host its tuner knows
  // (ofi_tuner.hpp); choose() then takes the plugin's region before NCCL's cost model.
  OfiTunerPlatform ofi_tuner = OfiTunerPlatform::None;
};

// The environment it reads (NCCL_ALGO, NCCL_PROTO, channel limits) is TuningEnv, parsed with
// the rest of the NCCL environment by parse_nccl_env (models/nccl/env.hpp).

struct AlgoCost {
  double latency_us = 0;
  double algbw_gbs = 0;  // 0: not available
  double time_us(int64_t bytes) const { return latency_us + bytes / (1000.0 * algbw_gbs); }
};

// NCCL's table entry for (op, algo, proto) — the numbers NCCL prints under NCCL_DEBUG_SUBSYS=TUNING.
AlgoCost nccl_cost(const CommView& v, CollOp op, Algo a, Proto p);
// Whether `p` is on for `a` on `op`: NCCL_PROTO's table (LL128 by NCCL's own rule where it is not
// named), PAT Simple only, PAT where pat_enabled says.
bool protocol_enabled(const CommView& v, const TuningEnv& env, CollOp op, Algo a, Proto p);
// NCCL's ncclPatEnable (src/graph/tuning.cc, 2.23 on): NCCL_PAT_ENABLE 0 off, 2 (default) on where
// every rank is its own node (nNodes == nRanks) and the net plugin is a host one
// (comm->netDeviceType == NCCL_NET_DEVICE_HOST, "PAT doesn't support net device offload"), any
// other value on; never before 2.23 nor below SM60. The plugin test bites in 2.23 only: from 2.24
// NCCL no longer copies the plugin's netDeviceType into the communicator (2.23 did in
// src/graph/topo.cc ncclTopoGetSystem; 2.24's ncclTopoProcessNet does not, up to 2.30), which
// stays NCCL_NET_DEVICE_HOST, so GPUDirect-TCPX (CommView::net_device_unpack) gets PAT there too.
bool pat_enabled(const CommView& v, const TuningEnv& env);

struct Choice {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  int channels = 1;  // after NCCL's reduction for small messages and the env limits
  double nccl_predicted_us = 0;
};
// NCCL's choice for `op` of `bytes` (nccl-tests' size). Where NCCL_ALGO/NCCL_PROTO leave `op` no
// algorithm, NCCL 2.24 on stops ("no algorithm/protocol available for function ..."): a
// SpecError("nccl.env.NCCL_ALGO" or "nccl.env.NCCL_PROTO") naming the collective. Releases before
// do what their tuning.cc did (see no_algorithm_left in tuning.cpp).
Choice choose(const CommView& v, const TuningEnv& env, CollOp op, int64_t bytes);

// Channels NCCL runs collectives on for this view (2 x graph channels, within env limits, at most
// the release's MAXCHANNELS: 32 to 2.24, 64 from 2.25).
int coll_channels(const CommView& v, const TuningEnv& env);
// nvlsChannels within the environment's limits (NCCL_NVLS_NCHANNELS, NCCL_MIN/MAX_CTAS).
int nvls_channels(const CommView& v, const TuningEnv& env);

}  // namespace models::nccl
