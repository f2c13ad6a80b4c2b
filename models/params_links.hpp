#pragma once
// The registry rows (params.hpp) of the links and the collective engine: raw capacities, NCCL's
// steps and efficiencies per link class, NVLS and SHARP (models/collectives/ states each law).
// Included once, by params.cpp, which places them first.
#include <array>
#include <string_view>

#include "models/params.hpp"
#include "models/params_ranges.hpp"

namespace models::params_detail {
namespace link_rows {

using U = ParamUnit;
using O = ParamOwner;

inline constexpr double kUs = 1e-6;  // hop latencies are written in microseconds, as NCCL's tables do

// Sources shared by several rows (the full derivations are in the comments above the rows).
inline constexpr std::string_view kCatalogLinks = "catalog (models/hw/links.cpp, instance.cpp)";
inline constexpr std::string_view kNcclHwLat = "NCCL src/graph/tuning.cc hwLat, Ring";
inline constexpr std::string_view kNcclProtoRatio =
    "NCCL's protocol ratios (tuning.cc): LL x0.5, LL128 x0.94 of Simple";
inline constexpr std::string_view kEfaV1Lat =
    "EFA v1: EFA v2's measured steps, its lower bound (models/hw/efa_generations.cpp); EFA v2-v4 hosts: "
    "models/hw/efa_generations.cpp";
inline constexpr std::string_view kEfaV1Ratio =
    "EFA v1: NCCL's protocol ratios to Simple; EFA v2-v4 hosts: models/hw/efa_generations.cpp";
inline constexpr std::string_view kNoChannelRate = "0: unknown, bandwidth scales with channels / default channels";
inline constexpr std::string_view kNoWindow = "0: no flow-control window limit";
inline constexpr std::string_view kNoStepFloor =
    "0: the transport polls; GPUDirect-TCPX hosts: models/hw/instance_clouds.cpp";

inline constexpr auto kLinkParams = std::to_array<ParamSpec>({
    // World: raw link capacities (physical numbers, datasheet or measured); NCCL's per-channel and
    // protocol limits are applied on top by the collective engine. Defaults: the node's catalog.
    {"nvlink.bandwidth",
     U::BytesPerSecond,
     params_detail::kBandwidth,
     {},
     "catalog",
     O::World,
     "per GPU, per direction, all its NVLinks; catalog (models/hw/links.cpp nvlink)"},
    {"nvlink.latency",
     U::Seconds,
     params_detail::kTime,
     {},
     "catalog",
     O::World,
     "GPU to GPU, one way (+ NVSwitch); models/hw/links.cpp nvlink, nvswitch"},
    {"pcie.bandwidth",
     U::BytesPerSecond,
     params_detail::kBandwidth,
     {},
     "catalog",
     O::World,
     "per GPU slot and switch uplink, per direction; models/hw/links.cpp pcie"},
    {"pcie.latency",
     U::Seconds,
     params_detail::kTime,
     {},
     "catalog",
     O::World,
     "GPU to host, one way; models/hw/links.cpp pcie"},
    {"hostmem.bandwidth",
     U::BytesPerSecond,
     params_detail::kBandwidth,
     {},
     "catalog",
     O::World,
     "per node, host DRAM (all sockets); models/hw/instance.cpp"},
    {"nic.bandwidth",
     U::BytesPerSecond,
     params_detail::kBandwidth,
     {},
     "catalog",
     O::World,
     "per NIC (EFA/IB), per direction; line rate"},
    {"nic.latency",
     U::Seconds,
     params_detail::kTime,
     {},
     "catalog",
     O::World,
     "NIC to NIC, one way (models/hw/links.cpp efa, infiniband); NCCL's step latencies hold the catalog's, so "
     "a value set here moves every network step by its difference from it"},
    {"eth.bandwidth",
     U::BytesPerSecond,
     params_detail::kBandwidth,
     {},
     "catalog",
     O::World,
     "per node ordinary Ethernet (ENA/virtio, NET/Socket), per direction"},
    {"eth.latency",
     U::Seconds,
     params_detail::kTime,
     {},
     "catalog",
     O::World,
     "TCP, one way (models/hw/links.cpp ena, virtio_nic); a value set here moves every Socket step between "
     "nodes by its difference from the catalog's"},
    {"socket.thread_duplex", U::Fraction, params_detail::kFraction, 0.61, "", O::World,
     "measured through NCCL 2.28.9 in one launch on one H200 VM, where each rank's proxy thread moves all "
     "of its Socket traffic (net_socket.cc: no helper threads off AWS/GCP NICs): per direction, a 4-rank "
     "ring (every rank sends and receives) over a 2-rank broadcast (one rank only sends, one only "
     "receives), median of 7 launches 0.61 (0.54-0.65, the same whether the processes ran on 4, 8, 12 or "
     "16 vCPUs while the rates themselves moved 35 %): scenarios/validation/h200x1/measured/nccl_socket. "
     "The 4 x H200 host's own ratio from one boot: 4.0-4.2 GB/s both ways (its FSDP2 and TP steps) over "
     "7.6 one way (2 pods x 2, cb_pod2_n4.jsonl): 0.55; the 0.45 used before divided rates of two "
     "different boots"},
    {"loopback.bandwidth",
     U::BytesPerSecond,
     params_detail::kBandwidth,
     {},
     "catalog",
     O::World,
     "per node, TCP between its pods; models/hw/links.cpp tcp_loopback"},

    // Collectives (models/comm_plan/link_params.hpp):
    //   cap(edge) = eta[class][proto] * B_path * channels / channels_ref
    //   latency   = kernel_latency + sum over pipeline steps of hop_latency[class][proto]
    //   nccl-tests loop = (launch^p + device^p)^(1/p)
    {"nccl.kernel_latency", U::Seconds, params_detail::kTime, 5e-6, "", O::Collectives,
     "launch-to-start of a NCCL kernel on the device; prior"},
    {"nccl.launch_overhead", U::Seconds, params_detail::kTime, 25e-6, "", O::Collectives,
     "host issue cost per op in a back-to-back loop with one GPU per thread, plus nccl.launch_per_gpu per "
     "further GPU (nccl-tests -g N); fitted by calibrate (4 x H200, -g 4: 25 us); Grace hosts: 14 us "
     "(models/hw/instance_build.hpp kGraceLaunchOverhead)"},
    {"nccl.launch_per_gpu", U::Seconds, params_detail::kTime, 0, "", O::Collectives,
     "host issue cost per further GPU one thread launches on (nccl-tests -g N). 0: one H200 VM's host "
     "loops nccl-tests -g 1 at 6.6 us per call (scenarios/validation/h200x1/measured_run/), so on the "
     "4 x H200 VM -g 4 would be ~5.3 us per further GPU, but Azure's -g 8 floors (25-45 us) give 2.5-5 "
     "and InfiniBand's LL step was read off a -g 1 run given 25 us: splitting it moved the median curve "
     "5.7 -> 6.6 % (docs/accuracy.md, the host loop)"},
    {"nccl.launch_sharpness", U::Factor, params_detail::kSharpness, 4, "", O::Collectives,
     "p of (launch^p + device^p)^(1/p): how sharply host- and device-bound regimes meet"},
    // P2P read mode ("P2P/CUMEM/read"): by GPU generation, models/hw/links.cpp p2p_read_model.
    {"p2p.read.bandwidth_factor",
     U::Fraction,
     params_detail::kFraction,
     {},
     "by GPU generation",
     O::Collectives,
     "read-mode bandwidth / write-mode where the reader also sends; models/hw/links.cpp p2p_read_model"},
    {"p2p.read.extra_latency",
     U::Seconds,
     params_detail::kTime,
     {},
     "hw::p2p_read_model(90)",
     O::Collectives,
     "one handshake per pipeline step in read mode; models/hw/links.cpp p2p_read_model"},
    // NVLink SHARP (NVLS, models/collectives/nvls.cpp): the switch's multimem reduction and multicast
    // move data at this fraction of what the GPU's NVLink port carries for a ring (its Simple
    // efficiency). Hopper: NCCL's own figure (src/graph/tuning.cc nvlsEfficiency .85, of the ports);
    // Blackwell: .72 of the switch, read off 8 x B200 (NCCL's table has .74; LinkParams::nvls_port_work
    // says why the switch, and what checks it). On 8 x H100 it turns the measured 370 GB/s ring bus
    // bandwidth into 0.85 x 370 / (1 + 1/8) = 280 GB/s of algorithm bandwidth, against ~275 measured
    // (github.com/NVIDIA/nccl-tests/issues/212, sjeaugey; NVIDIA/nccl#1455: 258-273 GB/s on 5-8 GPUs).
    {"nvls.efficiency",
     U::Fraction,
     params_detail::kFraction,
     {},
     "by GPU generation: Hopper 0.85 (its ports), Blackwell 0.72 (its switch)",
     O::Collectives,
     "NVLS rate / the ring's port rate; Hopper: NCCL src/graph/tuning.cc nvlsEfficiency, 8 x H100 "
     "nccl-tests (NVIDIA/nccl-tests#212); Blackwell: 8 x B200 at 830 GB/s bus bandwidth "
     "(NVIDIA/nccl#1807; NCCL's table has 0.74), checked on B300, GB200 and GB300 (LinkParams::nvls_port_work)"},
    // NVLS on one node (models/collectives/nvls.cpp): the kernel's fixed device time, read off the
    // flat part of Azure's ND H200 v5 curve (NCCL_ALGO=NVLS, NCCL 2.20.5, 64 KiB - 512 KiB at
    // 30.8-31.2 us per all_reduce_perf -g 8 iteration, with the model's host loop; scenarios/
    // validation/azure_nd_v5/measured/nd_h200_v5.csv). NCCL's own tuner charges 23 us (tuning.cc
    // baseLat NVLS); ND H100 v5's NCCL 2.18.5 ran at 42-45 us there (checked, not fitted).
    {"nvls.latency", U::Seconds, params_detail::kTime, 28e-6, "", O::Collectives,
     "one-node NVLS kernel's fixed time; Azure ND H200 v5 all_reduce_perf with NVLS, 64-512 KiB "
     "(scenarios/validation/azure_nd_v5)"},
    // One warp copying local GPU memory with 16-byte loads and stores, 8 in flight per thread (NCCL's
    // ncclCollUnroll on sm80+): 16 CTAs at once, 1 MiB each, 3.71 GB/s per warp with 8 warps per CTA
    // and 3.80 with 7 (H200, bench/device/comm/cta_copy_rate.cu; scenarios/validation/h200x1/measured/
    // cta_copy_rate.jsonl; 2.61-2.67 once the data no longer fits in L2). It paces NVLS's scatter
    // and gather warps (8 and 7 of the CTA's 20 on 8 GPUs).
    {"nvls.warp_copy_bandwidth", U::BytesPerSecond, params_detail::kBandwidth, 3.7e9, "", O::Collectives,
     "one warp's local copy rate, H200 (bench/device/comm/cta_copy_rate.cu, scenarios/validation/h200x1/"
     "measured/cta_copy_rate.jsonl)"},
    // NVLS on one node: what one NCCL chunk costs a channel's pipeline beyond its bytes, in series
    // with the gather warps' copy of it (nvls.cpp, pipeline_fill.hpp nvls_chunk_stage_rate). Read
    // off two OCI GB300 hosts (8 GPUs, NCCL 2.28.7; scenarios/validation/gb300_oci/measured/
    // all_reduce_2hosts.txt): where NCCL's chunk halves from 128 to 64 KiB (1.5 GiB) the rate falls
    // to 0.89 of the 128 KiB plateau, which 8 heads x (64 KiB / (7 warps x 3.7 GB/s) + t) against
    // the switch's 8 x 64 KiB / 20.0 GB/s per channel gives at t = 1.14 us. Checked on the same
    // curve's 32 and 16 KiB chunks, the GB300 and GB200 racks and Azure's ND H100 and H200 v5.
    // Where it is spent is not known: the copy warps alone do not pay it (an H200 copying in NCCL's
    // calls, bench/device/comm/nvls_copy_calls.cu: scenarios/validation/h200x1/measured/nvls_copy_calls.jsonl).
    {"nvls.chunk_latency", U::Seconds, params_detail::kTime, 1.1e-6, "", O::Collectives,
     "one NVLS chunk's fixed time per channel; two OCI GB300 hosts, 64 against 128 KiB chunks "
     "(scenarios/validation/gb300_oci)"},
    // SHARP in InfiniBand switches (CollNet, models/collectives/collnet.cpp). Streaming aggregation
    // reduces at ~95 % of the port's line rate (R. L. Graham et al., "Scalable Hierarchical
    // Aggregation and Reduction Protocol (SHARP) Streaming-Aggregation Hardware Design and
    // Evaluation", ISC 2020, LNCS 12151, doi:10.1007/978-3-030-50743-5_3: MPI_Allreduce at about
    // 95 % of network bandwidth on HDR). NCCL's rule of thumb is ~20 GB/s per HDR NIC (25 GB/s line;
    // sjeaugey in github.com/NVIDIA/nccl/issues/320), which ib.efficiency.simple (0.9) bounds first.
    {"sharp.efficiency", U::Fraction, params_detail::kFraction, 0.95, "", O::Collectives,
     "SHARP streaming aggregation / port line rate; Graham et al. ISC 2020 (HDR MPI_Allreduce ~95 %)"},
    // The switches' share of a CollNet step: NCCL's tuner counts 30 us (CollNetChain) and 31 us
    // (CollNetDirect) for the network part of a CollNet all-reduce with Simple (src/graph/tuning.cc
    // hwLatencies NET), where a NET hop is 14 us (ib.hop_latency.simple): up to the switches and back
    // are two such hops, leaving 2 us for the aggregation in the switches.
    {"sharp.latency", U::Seconds, params_detail::kTime, 2e-6, "", O::Collectives,
     "aggregation in the switches per CollNet all-reduce; NCCL tuning.cc NET CollNetChain 30 us - 2 x 14 us"},

    // Hop latencies: NCCL's tuning model (src/graph/tuning.cc, hwLat[] for Ring): NVLink
    // .6/1.9/3.4 us, PCI 1.0/2.5/5.7 us, NET 2.7/4.0/14.0 us (LL/LL128/Simple; InfiniBand's LL and
    // LL128 are measured instead, below). SHM crosses PCI twice.
    // Efficiencies: with its default channels, protocol P reaches this fraction of the raw path
    // bandwidth. Simple reaches 79 % of NVLink 4's raw rate (4xH200: 354 GB/s bus bandwidth of the
    // 450 its links carry, scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt; NVLink 5: 0.74,
    // hw::nvlink_simple_efficiency); LL and LL128 keep NCCL's own ratios (tuning.cc) to the former 0.74.
    {"nvlink.hop_latency.ll", U::Seconds, params_detail::kTime, 0.6 * kUs, "", O::Collectives, kNcclHwLat},
    {"nvlink.hop_latency.ll128", U::Seconds, params_detail::kTime, 1.9 * kUs, "", O::Collectives, kNcclHwLat},
    {"nvlink.hop_latency.simple", U::Seconds, params_detail::kTime, 3.4 * kUs, "", O::Collectives, kNcclHwLat},
    {"nvlink.efficiency.ll", U::Fraction, params_detail::kFraction, 0.37, "", O::Collectives, kNcclProtoRatio},
    {"nvlink.efficiency.ll128", U::Fraction, params_detail::kFraction, 0.69, "", O::Collectives, kNcclProtoRatio},
    {"nvlink.efficiency.simple", U::Fraction, params_detail::kFraction, 0.79, "", O::Collectives,
     "up to NVLink 4: 4xH200 nccl-tests, 354 GB/s bus bandwidth of the 450 its NVLink 4 links carry at 25 GB/s "
     "each (scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt); NVLink 5: 0.74 unless set "
     "(models/hw/links.cpp nvlink_simple_efficiency)"},
    // One NVLink channel (CTA) on H200 with Simple: 2 x H200 (NV18), one process per GPU,
    // NCCL_MAX_NCHANNELS=4, 1 GiB all-reduce in 13.0 ms = 82.5 GB/s per ring edge over 4 channels
    // (bench/device/comm/torch_nccl_bench.py on the device machine, 2026-11-22; docs/accuracy.md "Out of
    // sample: 2 x H200 of another host"). With the flow-control window below, 22.0 GB/s per channel
    // gives those 20.6 at the default 4 MiB NCCL_BUFFSIZE: 1 / (1/22.0e9 + 13e-6/4 MiB) = 20.6e9.
    // Blackwell gets it by a transfer rule unless this is set: x NCCL's per-channel Simple ceiling
    // of its generation over Hopper's (tuning.cc perChMaxTreeBws; 70.0 / 38.7 -> 39.8 GB/s;
    // models/comm_plan/link_params.hpp nvlink_channel_bandwidth_for; not yet below Hopper).
    {"nvlink.channel_bandwidth", U::BytesPerSecond, params_detail::kChannelRate, 22.0e9, "", O::Collectives,
     "one channel with Simple, 2 x H200 NCCL_MAX_NCHANNELS=4 (bench/device/comm/torch_nccl_bench.py); "
     "collectives on Blackwell x NCCL's per-channel ceiling ratio, point-to-point as measured (link_params.hpp)"},
    // One CTA's LL rate in a point-to-point transfer: 2 x H200 all-reduce forced to LL
    // (NCCL_PROTO=LL), 1 GiB in 8.69 ms = 123.5 GB/s per ring edge over its 24 channels
    // (scenarios/validation/h200x2/n2_proto_LL.json). Not carried to other generations: OCI's GB300
    // rack moves its all-to-all's LL parts at 4.8 GB/s per CTA (flow_cap.hpp).
    {"nvlink.channel_bandwidth_ll", U::BytesPerSecond, params_detail::kChannelRate, 5.15e9, "", O::Collectives,
     "one CTA with LL, point-to-point: 2 x H200 all-reduce with NCCL_PROTO=LL, 123.5 GB/s over 24 channels "
     "(scenarios/validation/h200x2/n2_proto_LL.json); every generation"},
    // Round trip of a FIFO credit over NVLink, from 2 x H200 all-reduce with NCCL_BUFFSIZE=64 KiB
    // and 256 KiB (24 channels: 1 GiB in 10.26 ms and 4.37 ms; per channel 1/r = 1/22e9 + T/W
    // gives T = 12.0 and 13.7 us; scenarios/validation/h200x2/n2_buff*.json).
    {"nvlink.flow_control_rtt", U::Seconds, params_detail::kTime, 13e-6, "", O::Collectives,
     "2 x H200 with NCCL_BUFFSIZE 64 KiB and 256 KiB (scenarios/validation/h200x2/n2_buff*.json)"},

    {"pcie.hop_latency.ll", U::Seconds, params_detail::kTime, 1.0 * kUs, "", O::Collectives, kNcclHwLat},
    {"pcie.hop_latency.ll128", U::Seconds, params_detail::kTime, 2.5 * kUs, "", O::Collectives, kNcclHwLat},
    {"pcie.hop_latency.simple", U::Seconds, params_detail::kTime, 5.7 * kUs, "", O::Collectives, kNcclHwLat},
    {"pcie.efficiency.ll", U::Fraction, params_detail::kFraction, 0.35, "", O::Collectives, kNcclProtoRatio},
    {"pcie.efficiency.ll128", U::Fraction, params_detail::kFraction, 0.65, "", O::Collectives, kNcclProtoRatio},
    {"pcie.efficiency.simple", U::Fraction, params_detail::kFraction, 0.75, "", O::Collectives,
     "prior; fitted by calibrate"},
    {"pcie.channel_bandwidth", U::BytesPerSecond, params_detail::kChannelRate, 0, "", O::Collectives, kNoChannelRate},
    {"pcie.flow_control_rtt", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoWindow},

    {"shm.hop_latency.ll", U::Seconds, params_detail::kTime, 2.0 * kUs, "", O::Collectives,
     "NCCL hwLat PCI, crossed twice"},
    {"shm.hop_latency.ll128", U::Seconds, params_detail::kTime, 5.0 * kUs, "", O::Collectives,
     "NCCL hwLat PCI, crossed twice"},
    // Simple's step: `commsim calibrate`'s fit on the 4xH200 machine (ar_g4_shm.txt, 2.0 us; the
    // value of scenarios/validation/h200x4.profile.toml). NCCL's PCI hwLat crossed twice (11.4 us),
    // the prior before, put that curve's 1-64 MiB 32 % slow; no other SHM curve is measured.
    {"shm.hop_latency.simple", U::Seconds, params_detail::kTime, 2.0 * kUs, "", O::Collectives,
     "fitted, 4xH200 (ar_g4_shm.txt)"},
    {"shm.efficiency.ll", U::Fraction, params_detail::kFraction, 0.2, "", O::Collectives, kNcclProtoRatio},
    {"shm.efficiency.ll128", U::Fraction, params_detail::kFraction, 0.4, "", O::Collectives, kNcclProtoRatio},
    {"shm.efficiency.simple", U::Fraction, params_detail::kFraction, 0.5, "", O::Collectives,
     "prior; fitted by calibrate"},
    {"shm.channel_bandwidth", U::BytesPerSecond, params_detail::kChannelRate, 0, "", O::Collectives, kNoChannelRate},
    {"shm.flow_control_rtt", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoWindow},

    // EFA (first generation, 100 Gb/s per NIC, aws-ofi-nccl): p4dn.24xlarge nccl-tests all_reduce
    // 1 GiB, 8 GPUs and 4 EFA per node (github.com/NVIDIA/nccl/issues/527): 3 and 4 nodes (ring)
    // 31.8 and 29.6 GB/s bus bandwidth = 0.64 and 0.59 of the 4 x 12.5 GB/s; 2 nodes 30.5 GB/s
    // algorithm bandwidth (tree: each node moves S each way) = 0.61. Simple 0.6; LL and LL128 keep
    // NCCL's ratios to it (aws-ofi-nccl forces Simple on p4d anyway). The step latencies are EFA
    // v2's measured ones, a lower bound for the older NIC behind the same plugin (NCCL's hwLat, 2.7 /
    // 4 / 14 us, is InfiniBand's; with it the 2 x p4de curve's small sizes were 37 % fast, with v2's
    // 18 %; a test keeps them equal to v2's). These are EFA v1's; EFA v2-v4 hosts (p5, p5en, p6) get their own from the
    // catalog
    // (models/hw/efa_generations.cpp).
    {"efa.hop_latency.ll", U::Seconds, params_detail::kTime, 27.5 * kUs, "", O::Collectives, kEfaV1Lat},
    {"efa.hop_latency.ll128", U::Seconds, params_detail::kTime, 28.8 * kUs, "", O::Collectives, kEfaV1Lat},
    {"efa.hop_latency.simple", U::Seconds, params_detail::kTime, 30.0 * kUs, "", O::Collectives, kEfaV1Lat},
    {"efa.efficiency.ll", U::Fraction, params_detail::kFraction, 0.3, "", O::Collectives, kEfaV1Ratio},
    {"efa.efficiency.ll128", U::Fraction, params_detail::kFraction, 0.56, "", O::Collectives, kEfaV1Ratio},
    {"efa.efficiency.simple", U::Fraction, params_detail::kFraction, 0.6, "", O::Collectives,
     "EFA v1: p4dn nccl-tests all_reduce, 0.59-0.64 of 4 x 12.5 GB/s (github.com/NVIDIA/nccl/issues/527); "
     "EFA v2-v4 hosts: models/hw/efa_generations.cpp"},
    {"efa.channel_bandwidth", U::BytesPerSecond, params_detail::kChannelRate, 0, "", O::Collectives, kNoChannelRate},
    {"efa.flow_control_rtt", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoWindow},
    {"efa.step_floor", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoStepFloor},

    // InfiniBand (NCCL's NET/IB, GPUDirect RDMA): 2 x HGX A100 with 4 x HDR 200 Gb/s each, nccl-tests
    // all_reduce 1-8 GiB: 91 GB/s bus bandwidth of 4 x 25 GB/s = 0.91
    // (github.com/NVIDIA/nccl-tests/issues/100); 2 x A100 nodes, 4 x HDR: 86 GB/s, and 24 of
    // 25 GB/s through one HCA (github.com/NVIDIA/nccl/issues/1048). Simple 0.9; LL and LL128 keep
    // NCCL's ratios to it.
    // Step latencies: LL read off 2 x Azure NDm A100 v4 (8 x HDR each), all_reduce_perf 8-128 B at
    // 34.0 us (median; Tree/LL crosses InfiniBand twice; scenarios/validation/ib_2node/measured/
    // ndm_a100_v4.txt): 8.8 us per step through the model, where NCCL's tuner counts 2.7 (tuning.cc
    // hwLat NET). The other two public 2-node curves give 9.8 (Lambda, 8 x B200, NCCL 2.26.2) and
    // 5.7 (Nebius, 8 x H100): they check it. LL128: LL's + 1.3 us, NCCL's own LL128 - LL difference
    // on a network step (as EFA's, efa_generations.cpp); Simple: NCCL's 14 us.
    {"ib.hop_latency.ll", U::Seconds, params_detail::kTime, 8.8 * kUs, "", O::Collectives,
     "2 x Azure NDm A100 v4 all_reduce_perf 8-128 B (scenarios/validation/ib_2node); NCCL's tuner: 2.7 us; "
     "GPUDirect-TCPXO hosts: models/hw/instance_clouds.cpp"},
    {"ib.hop_latency.ll128", U::Seconds, params_detail::kTime, 10.1 * kUs, "", O::Collectives,
     "ib.hop_latency.ll + 1.3 us (NCCL tuning.cc hwLat NET LL128 - LL); GPUDirect-TCPXO hosts: "
     "models/hw/instance_clouds.cpp"},
    {"ib.hop_latency.simple", U::Seconds, params_detail::kTime, 14.0 * kUs, "", O::Collectives, kNcclHwLat},
    {"ib.efficiency.ll", U::Fraction, params_detail::kFraction, 0.45, "", O::Collectives, kNcclProtoRatio},
    {"ib.efficiency.ll128", U::Fraction, params_detail::kFraction, 0.85, "", O::Collectives, kNcclProtoRatio},
    {"ib.efficiency.simple", U::Fraction, params_detail::kFraction, 0.9, "", O::Collectives,
     "2 x HGX A100, 4 x HDR: nccl-tests all_reduce 91 GB/s of 100 (github.com/NVIDIA/nccl-tests/issues/100); "
     "GPUDirect-TCPXO hosts: models/hw/instance_clouds.cpp"},
    {"ib.channel_bandwidth", U::BytesPerSecond, params_detail::kChannelRate, 0, "", O::Collectives, kNoChannelRate},
    {"ib.flow_control_rtt", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoWindow},
    {"ib.step_floor", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoStepFloor},

    // Socket: relative to one TCP stream (models/comm_plan/comm_plan.hpp kTcpStreamBytesPerS);
    // `commsim calibrate`'s fit on the 4xH200 machine's loopback (ar_g4_sock.txt, the values of
    // scenarios/validation/h200x4.profile.toml): 3.3 GB/s per ring edge with Simple; a step pays
    // its latency once per channel (serial_channels, link_params.hpp), so Simple's 21 us is 42 us
    // per step on the 2 channels NCCL runs there.
    {"socket.hop_latency.ll", U::Seconds, params_detail::kTime, 13.1 * kUs, "", O::Collectives,
     "fitted, 4xH200 loopback"},
    {"socket.hop_latency.ll128", U::Seconds, params_detail::kTime, 20.0 * kUs, "", O::Collectives,
     "prior: no curve runs LL128 over TCP"},
    {"socket.hop_latency.simple", U::Seconds, params_detail::kTime, 21.2 * kUs, "", O::Collectives,
     "fitted, 4xH200 loopback (per channel)"},
    {"socket.efficiency.ll", U::Fraction, params_detail::kFraction, 0.235, "", O::Collectives,
     "fitted, 4xH200 loopback (scenarios/validation/h200x4/measured/nccl-tests/ar_g4_sock.txt)"},
    {"socket.efficiency.ll128", U::Fraction, params_detail::kFraction, 0.3, "", O::Collectives,
     "prior: no curve runs LL128 over TCP"},
    {"socket.efficiency.simple", U::Fraction, params_detail::kFraction, 0.67, "", O::Collectives,
     "fitted, 4xH200 loopback: 3.3 GB/s per ring edge"},
    {"socket.channel_bandwidth", U::BytesPerSecond, params_detail::kChannelRate, 0, "", O::Collectives, kNoChannelRate},
    {"socket.flow_control_rtt", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoWindow},
    {"socket.step_floor", U::Seconds, params_detail::kTime, 0, "", O::Collectives, kNoStepFloor},

});

}  // namespace link_rows
using link_rows::kLinkParams;

}  // namespace models::params_detail
