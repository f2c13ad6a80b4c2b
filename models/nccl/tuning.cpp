// NCCL's tuning model, reproduced to make NCCL's choice of algorithm, protocol and channels.
// Source: NVIDIA/nccl src/graph/tuning.cc (ncclTopoTuneModel) and src/enqueue.cc
// (topoGetAlgoInfo), 2.2x series (v2.28.9; the tuner's constants and rules of 2.17-2.30 by the
// run's `nccl.version`: tuner_tables.hpp): Ring, Tree, PAT, NVLS and NVLSTree (NVLink SHARP,
// where the node has NVSwitch multicast and NCCL_NVLS_ENABLE is not 0), CollNetDirect and
// CollNetChain (SHARP in InfiniBand switches, NCCL_COLLNET_ENABLE=1 on a SHARP fabric).
#include "models/nccl/tuning.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "models/error.hpp"
#include "models/nccl/channel_layout.hpp"
#include "models/nccl/tuner_tables.hpp"

namespace models::nccl {

namespace {
constexpr int kTree = 0, kRing = 1, kPat = 2;
// The latency tables, LL and per-channel ceilings and the rules that changed between NCCL
// releases are the run's release's (tuner_tables.hpp, `CommView::nccl_version`). With one rank
// per node every algorithm takes the Tree's NET row from 2.23 on ("With ppn=1 latencies are fully
// exposed, use the Tree network latency"): NCCL 2.28.9 printed Ring LL 36.6 = 6.6 + 6 x 5.0,
// LL128 65.0 = 14 + 6 x 8.5, Simple 92.4 = 8.4 + 6 x 14 for a Socket communicator of 4 one-GPU
// nodes (scenarios/validation/h200x4/measured/logs/sock_n4.rank0.log).
// An inter-node ring's intra-node steps cost at least the host's network overhead (getNetOverhead:
// 1 us, 2 on AMD x86; NCCL_NET_OVERHEAD, which overrides it, is not read), three times that with Simple
// ("Inter-node rings still have to launch nsteps * net overhead").
double net_overhead_us(const CommView& v) { return v.cpu_amd ? 2.0 : 1.0; }
// NCCL's log2i: floor(log2 n) (src/include/utils.h log2Down), for tree depths.
double log2i(int n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}
// NVLSTree and NVLS (tuning.cc): NVLink SHARP inside each node (NVLSTree: a tree of the nodes'
// heads across them). nvlsEfficiency (Hopper .85, Blackwell .74); their latencies and NVLSTree's
// per-channel ceiling are the release's (tuner_tables.hpp).
constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};
// CollNet (tuning.cc): hwLatencies NVLINK CollNetDirect/Simple 3.7 us, CollNetChain 2.8 us; NET
// CollNetDirect 31 us, CollNetChain 30 us; CollNetDirect adds 0.4 us per local rank ("arity
// serialization latency").
constexpr double kCollNetDirectIntraLatUs = 3.7, kCollNetChainIntraLatUs = 2.8;
constexpr double kCollNetDirectInterLatUs = 31.0, kCollNetChainInterLatUs = 30.0, kCollNetArityLatUs = 0.4;
constexpr int kCollNetThreadThreshold = 512;  // tuning.cc threadThresholds[COLLNET_*][SIMPLE]
constexpr int kMaxNvlsArity = 32;             // NCCL_MAX_NVLS_ARITY (src/include/device.h)
constexpr int kMaxDirectArity = 7;            // NCCL_MAX_DIRECT_ARITY
// Default thread thresholds (bytes per thread below which channels are dropped), enqueue.cc.
constexpr int kThreadThreshold[3] = {8, 8, 64};
constexpr int kMaxThreads[3] = {512, 640, 512};
constexpr int kMaxNThreads = 640;  // NCCL_MAX_NTHREADS: CollNet's and NVLS's threads (tuning.cc)

// ncclTopoGetAlgoTime (src/graph/tuning.cc, 2.2x): trees do not follow the model at medium
// sizes, so NCCL scales their all-reduce bandwidth by a static factor per power of two from 64 B;
// Ring/Simple all-reduce across nodes pays a "plateau" factor on its latency.
// From 2.29 the same table, one entry longer, scales NVLSTree's on Blackwell with x86 hosts.
constexpr double kTreeCorrection[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

// NCCL's estimate for one operation of `bytes` (numPipeOps = 1).
double nccl_time_us(const CommView& v, int coll_channels, CollOp op, Algo a, Proto p, const AlgoCost& c,
                    int64_t bytes) {
  double bw = c.algbw_gbs, lat = c.latency_us;
  int log_size = -1;  // log2i(bytes >> 6)
  for (int64_t b = bytes >> 6; b > 0; b >>= 1) ++log_size;
  const TunerTables& t = tuner_tables(v.nccl_version, v.example_tuner);
  if (a == Algo::Tree && op == CollOp::AllReduce && log_size >= 0 && log_size < 23)
    bw *= kTreeCorrection[static_cast<int>(p)][log_size];
  if (a == Algo::NVLSTree && t.nvls_tree_correction && op == CollOp::AllReduce && log_size >= 0 && log_size < 24 &&
      v.sm >= 100 && !v.cpu_arm)
    bw *= kTreeCorrection[static_cast<int>(p)][log_size];
  if (a == Algo::Ring && p == Proto::Simple && v.nnodes > 1 && op == CollOp::AllReduce) {
    if (t.ring_plateau == 17 && bytes >= v.nranks / 16.0 * 65536) lat *= v.sm < 90 ? 1.9 : 1.5;
    if (t.ring_plateau >= 18 && bytes / (static_cast<int64_t>(coll_channels) * v.nranks) >= 64)
      lat *= v.sm < 80 ? 1.9 : 1.4;
  }
  return lat + bytes / (1000.0 * bw);
}

int compcap_index(int sm) { return sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0; }
int algo_index(Algo a) { return a == Algo::Tree ? kTree : a == Algo::Ring ? kRing : kPat; }

int nsteps_of(CollOp op, int n) {
  switch (op) {
    case CollOp::AllReduce: return 2 * (n - 1);
    case CollOp::AllGather:
    case CollOp::ReduceScatter: return n - 1;
    default: return n;
  }
}

// NVLS and CollNet (tuning.cc ncclTopoTuneModel, the same branches in its order), Simple only:
//   NVLS: intraBw = bwIntra x nvlsEfficiency x (nCh-1)/nCh x (all-reduce: 2; else (ppn-1)/ppn),
//         bw = min(intraBw, bwInter), busBw = nCh x bw, algBw = busBw x n / nsteps (all-reduce;
//         all-gather/reduce-scatter keep busBw); latency 25 us (+ 18 us and the plugin's across
//         nodes, where NVLS runs over CollNet, all-reduce only).
//   CollNetDirect all-reduce: busBw = nCh x bwIntra / f (f = ppn/nCh - (ppn/nCh - 1)/2: heads
//         short of GPUs), x .85 on Hopper+, algBw = busBw / 2; latency
//         2 (min(1, ppn-1) 3.7 + (ppn-1) 0.4) + 31 us + 2 x the plugin's.
//   CollNetChain all-reduce: algBw = nCh x bwIntra / 2; latency 2 (ppn-1) 2.8 + 30 us + 2 x the plugin's.
// All-gather/reduce-scatter over CollNet need the plugin's iallgather/ireducescatter and one head
// per GPU: not modelled (0).
AlgoCost sharp_cost(const CommView& v, CollOp op, Algo a, Proto p) {
  AlgoCost cost;
  const int n = v.nranks, nn = std::max(1, v.nnodes);
  const bool is_ar = op == CollOp::AllReduce;
  const double ppn = static_cast<double>(n) / nn;
  if (p != Proto::Simple) return cost;
  const double net_lat = 2 * v.net_latency_us;  // latencyInter, and again for Simple's flush
  if (a == Algo::NVLS) {
    const bool ag_rs = op == CollOp::AllGather || op == CollOp::ReduceScatter;
    if (!v.nvls || v.nvls_heads < 2 || !(is_ar || ag_rs)) return cost;
    if (nn > 1 && (!v.collnet || !is_ar)) return cost;  // across nodes: NVLS + CollNet, all-reduce
    if (!is_ar && ppn > kMaxNvlsArity) return cost;     // enqueue.cc
    const int nch = v.nvls_heads;
    const double intra =
        v.nvls_bw_intra_gbs * kNvlsEfficiency[compcap_index(v.sm)] * (nch - 1) / nch * (is_ar ? 2.0 : (ppn - 1) / ppn);
    const double bus = nch * std::min(intra, v.nvls_bw_inter_gbs);
    cost.algbw_gbs = is_ar ? bus * n / (2.0 * (n - 1)) : bus;
    const TunerTables& t = tuner_tables(v.nccl_version, v.example_tuner);
    if (t.nvls_era < 28) {
      // Earlier releases: the graph's speeds, busBw x a fixed ratio (tuner_tables.hpp nvls_era).
      double bw = v.nvls_bw_intra_gbs;
      if (t.nvls_era >= 19 && is_ar) bw = std::min(v.nvls_bw_intra_gbs, v.nvls_bw_inter_gbs);
      if (t.nvls_era >= 27 && !is_ar) bw = std::min(v.nvls_bw_intra_gbs * (ppn - 1) / ppn, v.nvls_bw_inter_gbs * 0.9);
      double bus_then = nch * bw;
      if (t.busbw_gpu_cap) bus_then = std::min(bus_then, v.sm >= 90 ? 370.0 : 235.0);
      cost.algbw_gbs = is_ar || t.nvls_ag_ratio ? bus_then * t.nvls_ratio : bus_then;
    }
    cost.latency_us = t.nvls_intra_lat + (nn > 1 ? t.nvls_inter_lat + net_lat : 0.0);
    return cost;
  }
  if (!is_ar || !v.collnet || nn < 2 || v.collnet_heads < 1) return cost;
  const int nch = v.collnet_heads;
  if (a == Algo::CollNetDirect) {
    if (!v.nvswitch) return cost;
    double factor = ppn / nch;
    factor -= (factor - 1) / 2;
    double bus = nch * v.collnet_bw_intra_gbs / factor;
    if (v.sm >= 90) bus *= 0.85;
    cost.algbw_gbs = bus * 0.5;
    cost.latency_us = 2 * (std::min(1.0, ppn - 1) * kCollNetDirectIntraLatUs + (ppn - 1) * kCollNetArityLatUs) +
                      kCollNetDirectInterLatUs + net_lat;
    return cost;
  }
  if (ppn > kMaxDirectArity + 1) return cost;  // enqueue.cc: CollNetChain up to 8 local ranks
  cost.algbw_gbs = nch * v.collnet_bw_intra_gbs * 0.5;
  cost.latency_us = 2 * (ppn - 1) * kCollNetChainIntraLatUs + kCollNetChainInterLatUs + net_lat;
  return cost;
}

}  // namespace

int nvls_channels(const CommView& v, const TuningEnv& env) {
  int c = env.nvls_channels.value_or(v.nvls_channels);
  if (env.max_channels) c = std::min(c, *env.max_channels);
  if (env.min_channels) c = std::max(c, *env.min_channels);
  return std::max(1, c);
}

// connect.cc: the duplicated graph channels, min(MAXCHANNELS, 2 nChannels), then the env limits
// (env.cpp: NCCL_MAX_NCHANNELS and NCCL_MAX_CTAS both cap, the larger of the two minimums copies
// channels up), within the release's MAXCHANNELS. The duplicated graph stays at most 32 here even
// from 2.25 (MAXCHANNELS 64), where a graph of 32 channels (a rack leaving by 72 NICs) runs 64:
// NVLSTree, which NCCL runs on nvlsChannels, takes these channels in the model, and its curves
// are fitted at 32.
int coll_channels(const CommView& v, const TuningEnv& env) {
  const int cap = max_channels_of(v.nccl_version);
  int c = std::min(32, 2 * v.graph_channels);
  if (env.max_channels) c = std::min(c, *env.max_channels);
  if (env.min_channels) c = std::max(c, std::min(cap, *env.min_channels));
  return std::max(1, c);
}

bool pat_enabled(const CommView& v, const TuningEnv& env) {
  const TunerTables& t = tuner_tables(v.nccl_version, v.example_tuner);
  if (t.pat_factor == 0 || v.sm < 60) return false;  // PAT came with 2.23
  if (env.pat_enable != 2) return env.pat_enable != 0;
  if (v.nnodes != v.nranks) return false;                // "PAT only supports 1 GPU per node"
  return !(t.pat_host_net_only && v.net_device_unpack);  // "PAT doesn't support net device offload"
}

bool protocol_enabled(const CommView& v, const TuningEnv& env, CollOp op, Algo a, Proto p) {
  const int state = env.proto_on(op, p);
  if (state == 0) return false;
  if (p == Proto::LL128 && state == 2) {
    // tuning.cc: LL128 by default only on NVLink within nodes, a near NIC across nodes, SM70+.
    if (!v.intra_nvlink || v.sm < 70) return false;
    if (v.nnodes > 1 && !v.inter_gdr_near) return false;
  }
  if (a == Algo::PAT && (p != Proto::Simple || !pat_enabled(v, env))) return false;
  return true;
}

AlgoCost nccl_cost(const CommView& v, CollOp op, Algo a, Proto p) {
  const int n = v.nranks;
  const int nn = std::max(1, v.nnodes);
  const int cc = compcap_index(v.sm);
  const int scale = nn <= 2 ? nn - 1 : 2;
  const int pi = static_cast<int>(p);
  const int ai = algo_index(a);
  const TunerTables& t = tuner_tables(v.nccl_version, v.example_tuner);
  AlgoCost cost;
  if (n <= 1) return cost;
  const bool is_ar = op == CollOp::AllReduce;
  // Which algorithms exist for which collective (tuning.cc / enqueue.cc).
  if (a == Algo::NVLSTree) {
    // tuning.cc: intraBw = bwIntra x nvlsEfficiency x (nCh-1)/nCh x 2 (all-reduce pipelines two
    // operations); interBw = bwInter x 2 on 2 nodes; bw = min(intra, inter, perChMaxNVLSTreeBw);
    // busBw = nCh x bw; algBw = busBw x n / nsteps. Latency: 25 + 2 log2(nNodes) x 20.9 us (2.28.9).
    if (!is_ar || !v.nvls || nn < 2 || p != Proto::Simple || v.nvls_heads < 2) return cost;
    if (t.nvls_tree_intra_lat == 0) return cost;  // NVLSTree came with 2.18
    const int nch = v.nvls_heads;
    // The NVLS graph is searched with the inter-node speed list like the others across nodes
    // (search.cc), so its bwIntra is its bwInter.
    const double intra = v.bw_inter_gbs * kNvlsEfficiency[cc] * (nch - 1) / nch * 2;
    const double inter = v.bw_inter_gbs * (nn <= 2 ? 2 : 1);
    const double bw = std::min({intra, inter, t.nvls_tree_per_ch[cc][scale]});
    cost.algbw_gbs = nch * bw * n / (2.0 * (n - 1));
    // Earlier releases (tuner_tables.hpp nvls_era): 2.18 the network speed x 0.70 n / (2(n-1));
    // 2.19-2.27 half of it beyond two nodes, x 5/6.
    if (t.nvls_era == 18) cost.algbw_gbs = nch * v.bw_inter_gbs * 0.70 * nn / (2.0 * (nn - 1));
    if (t.nvls_era >= 19 && t.nvls_era < 28) cost.algbw_gbs = nch * v.bw_inter_gbs * (nn <= 2 ? 1.0 : 0.5) * 5.0 / 6.0;
    cost.latency_us = t.nvls_tree_intra_lat + 2 * log2i(nn) * (t.nvls_tree_inter_lat + 2 * v.net_latency_us);
    if (t.nvls_era == 18) cost.latency_us = t.nvls_tree_intra_lat + 2 * (nn - 1) * t.nvls_tree_inter_lat;  // 2.18
    return cost;
  }
  if (a == Algo::NVLS || a == Algo::CollNetDirect || a == Algo::CollNetChain) return sharp_cost(v, op, a, p);
  if (a == Algo::Tree && !is_ar) return cost;
  if (a == Algo::PAT && (t.pat_factor == 0 || !(op == CollOp::AllGather || op == CollOp::ReduceScatter)))
    return cost;  // where NCCL enables it: pat_enabled
  if (a != Algo::Tree && a != Algo::Ring && a != Algo::PAT) return cost;

  const int nsteps = nsteps_of(op, n);
  const int ninter = nn > 1 ? (is_ar ? 2 * (t.ring_inter_steps_all_nodes ? nn : nn - 1) : nn - 1) : 0;
  // tuning.cc: bw = nNodes <= 2 ? graph->bwIntra : graph->bwInter. A multi-node ring graph has
  // bwIntra == bwInter (search.cc raises both together); a tree graph on 2 nodes has its bwIntra
  // raised alone up to twice bwInter ("increase bwIntra for trees (2 nodes or collnet)").
  // Over NVLink the climb stops at the top of search.cc's speed list, the inter-node one since the
  // system has a network (speedArrayInter 48, sm90SpeedArrayInter 48, sm100SpeedArrayInter 96 GB/s
  // per channel); without NVLink inside the node (PCIe, or one GPU per node) it is not modelled.
  double bw = nn == 1 ? v.bw_intra_gbs : v.bw_inter_gbs;
  if (nn == 2 && a == Algo::Tree && v.intra_nvlink) bw = std::min(2 * v.bw_inter_gbs, v.sm >= 100 ? 96.0 : 48.0);
  double bus = v.graph_channels * bw;
  if (t.busbw_gpu_cap && cc == 1) bus = std::min(bus, 235.0);  // 2.17: "Various model refinements"
  if (t.busbw_gpu_cap && cc >= 2) bus = std::min(bus, 370.0);
  const int llidx = nn == 1 ? cc : (v.cpu_amd ? 1 : 0);
  const double ll_max = t.ll_max_bw[std::min(llidx, 3)][scale];
  const double ppn = static_cast<double>(n) / nn;
  if (a == Algo::Ring && p == Proto::LL) {
    // To 2.20: a quarter of the ring's busBw across nodes and for all-reduce/reduce, else a third.
    const bool quarter = nn > 1 || is_ar || op == CollOp::Reduce;
    bus = std::min(ll_max, bus * (!t.ring_ll_quarter ? 0.5 : quarter ? 0.25 : 1.0 / 3.0));
  }
  if (a == Algo::Ring && p == Proto::LL128)
    bus = std::min(bus * (t.ll128_ppn_discount && ppn < 2 ? 0.7 : 0.92),
                   v.graph_channels * t.ring_ll128_per_ch[cc][scale]);
  // Two GPUs of one node: the tree graph is a single pair, each direction carrying one stream,
  // and NCCL's search settles at twice the ring's speed (2 x H200: Tree Simple 232.2 =
  // min(720 x .92, 12 x 38.7) / 2, LL 61.1; scenarios/validation/h200x2/n2_tuning.log).
  if (a == Algo::Tree && nn == 1 && n == 2) bus *= 2;
  if (a == Algo::Tree && is_ar) bus = std::min(bus * 0.92, v.graph_channels * t.tree_per_ch[cc][scale]);
  if (a == Algo::Tree && p == Proto::LL) bus = std::min(bus / 3.8, ll_max);
  if (a == Algo::Tree && p == Proto::LL128)
    bus = std::min(bus * (nn == 1 ? 7.0 / 9.0 : 120.0 / 128.0), v.graph_channels * t.tree_ll128_per_ch[cc][scale]);
  if (a == Algo::Tree && nn > 1 && t.tree_pattern_factor) bus *= 0.85;  // the inter-node tree pattern
  if (a == Algo::PAT) bus *= t.pat_factor;
  // busBw -> algBw ("Convert bus BW to algorithm BW"): Ring x n / nsteps, Tree x 0.5; PAT (all-gather
  // and reduce-scatter only) keeps its busBw, as tuning.cc skips the conversion for every algorithm
  // but Ring on those two (2.23 on). NCCL 2.28.9 printed PAT Simple 27.2/0.9 = 1.2 x 0.75 for 4
  // one-GPU Socket nodes (scenarios/validation/h200x4/measured/logs/sock_n4.rank0.log).
  const double ratio = a == Algo::Ring ? static_cast<double>(n) / nsteps : 0.5;
  cost.algbw_gbs = a == Algo::PAT ? bus : bus * ratio;

  const int intra_hw = v.intra_nvlink ? 0 : 1;
  const int hw = nn == 1 ? intra_hw : 2;
  double lat = t.base_lat[ai][pi];
  double intra_lat = t.hw_lat[intra_hw][ai][pi];
  if (t.ll_intra_slower && nn > 1 && p == Proto::LL) intra_lat *= 1.8;
  // tuning.cc: interLat = hwLat[NET] (the Tree's row with one rank per node, 2.23 on) + graph
  // latencyInter, + latencyInter again for Simple (2.18 on; 2.17 took the plugin's latency alone
  // where it declared one).
  const double inter_lat = t.plugin_lat_replaces ? (v.net_latency_us > 0 ? v.net_latency_us : t.hw_lat[2][ai][pi])
                                                 : t.hw_lat[2][t.ppn1_tree_lat && n == nn ? kTree : ai][pi] +
                                                       v.net_latency_us * (p == Proto::Simple ? 2 : 1);
  if (a == Algo::Ring) {
    if (op == CollOp::Broadcast || op == CollOp::Reduce) {
      lat += t.hw_lat[hw][ai][pi];  // sameChannels: pipelined, one hop of latency counted
    } else {
      if (nn > 1 && t.net_overhead) intra_lat = std::max(intra_lat, net_overhead_us(v) * (p == Proto::Simple ? 3 : 1));
      lat += (nsteps - ninter) * intra_lat + ninter * inter_lat;
    }
  } else if (a == Algo::Tree) {
    lat += 2 * ((n / nn - 1) * intra_lat + log2i(nn) * inter_lat);
  } else if (a == Algo::PAT) {
    // "Log latency" plus "still a linear part" (tuning.cc, NCCL 2.23 on).
    lat += log2i(nn) * (inter_lat / 3.5) + n * 2.8;
  }
  cost.latency_us = lat;
  return cost;
}

namespace {
constexpr Algo kTunerAlgos[] = {Algo::Tree,         Algo::Ring, Algo::PAT,     Algo::CollNetDirect,
                                Algo::CollNetChain, Algo::NVLS, Algo::NVLSTree};
constexpr Proto kTunerProtos[] = {Proto::LL, Proto::LL128, Proto::Simple};

int release_of(const CommView& v) { return nccl_release_or_default(v.nccl_version); }

// Whether NCCL_ALGO leaves `a` on for `op`. NCCL 2.17 and 2.18 (tuning.cc) never turned Ring off
// for a collective other than all-reduce ("That allows to run real apps with NCCL_ALGO=TREE"), and
// where NCCL_ALGO named none of Ring, Tree, NVLS and NVLSTree (2.17: Ring, Tree) without CollNet
// they turned Ring and Tree back on ("CollNet is not supported ..., ignoring NCCL_ALGO=COLLNET").
bool tuner_algo_allowed(const CommView& v, const TuningEnv& env, CollOp op, Algo a) {
  if (release_of(v) < nccl_version_number(19, 0)) {
    if (a == Algo::Ring && op != CollOp::AllReduce) return true;
    const bool nvls_counts = release_of(v) >= nccl_version_number(18, 0);
    if ((a == Algo::Ring || a == Algo::Tree) && !v.collnet && !env.algo_on(op, Algo::Ring) &&
        !env.algo_on(op, Algo::Tree) &&
        !(nvls_counts && (env.algo_on(op, Algo::NVLS) || env.algo_on(op, Algo::NVLSTree))))
      return true;
  }
  return env.algo_on(op, a);
}

bool tuner_usable(const CommView& v, const TuningEnv& env, CollOp op, Algo a, Proto p) {
  return tuner_algo_allowed(v, env, op, a) && protocol_enabled(v, env, op, a, p) &&
         nccl_cost(v, op, a, p).algbw_gbs > 0;
}

// NCCL_ALGO / NCCL_PROTO left `op` no algorithm with a protocol (every entry of its row of NCCL's
// table 0). NCCL 2.24 on: enqueue.cc topoGetAlgoInfo WARNs "Error : no algorithm/protocol available
// for function <F> with datatype <T>. NCCL_ALGO was set to <V>." and returns ncclInvalidUsage: the
// job stops at its first such collective. 2.19 to 2.23: tuning.cc "at least set ring algo
// available" puts Ring back with its own bandwidths (ringbdw) of every protocol, from 2.22 only of
// those NCCL_PROTO and LL128's rule leave on. Where nothing is left then (and on 2.17/2.18, whose
// Ring rules are tuner_algo_allowed's), the same error (ncclInternalError).
std::vector<Proto> no_algorithm_left(const CommView& v, const TuningEnv& env, CollOp op) {
  std::vector<Proto> ring;
  const int release = release_of(v);
  if (release >= nccl_version_number(19, 0) && release < nccl_version_number(24, 0))
    for (Proto p : kTunerProtos)
      if (nccl_cost(v, op, Algo::Ring, p).algbw_gbs > 0 &&
          (release < nccl_version_number(22, 0) || protocol_enabled(v, env, op, Algo::Ring, p)))
        ring.push_back(p);
  if (!ring.empty()) return ring;
  // The error, at the variable to change: NCCL_ALGO when no algorithm it leaves has a protocol
  // even with every protocol on, else NCCL_PROTO; with what would run here.
  TuningEnv any_algo = env, any_proto = env;
  for (auto& row : any_algo.algo_enabled) row.fill(true);
  for (auto& row : any_proto.proto_state) row.fill(1);
  bool algo_leaves_some = false;
  for (Algo a : kTunerAlgos)
    for (Proto p : kTunerProtos) algo_leaves_some = algo_leaves_some || tuner_usable(v, any_proto, op, a, p);
  const bool blame_algo = env.algo_set && (!algo_leaves_some || !env.proto_set);
  std::string could;
  if (blame_algo) {
    for (Algo a : kTunerAlgos) {
      bool any = false;
      for (Proto p : kTunerProtos) any = any || tuner_usable(v, any_algo, op, a, p);
      if (any) could += std::string(could.empty() ? "" : ", ") + algo_name(a);
    }
  } else {
    for (Proto p : kTunerProtos) {
      bool any = false;
      for (Algo a : kTunerAlgos) any = any || tuner_usable(v, any_proto, op, a, p);
      if (any) could += std::string(could.empty() ? "" : ", ") + proto_name(p);
    }
  }
  const std::string var = blame_algo ? "NCCL_ALGO" : "NCCL_PROTO";
  const std::string value = blame_algo ? env.algo_value : env.proto_value;
  const std::string op_name = coll_op_name(op);
  throw SpecError(
      "nccl.env." + var,
      var + "=" + value + " leaves " + op_name + " no algorithm/protocol: NCCL " + nccl_version_text(release) +
          " stops at the first " + op_name + " (\"no algorithm/protocol available for function " + nccl_func_name(op) +
          "\")" + " (expected " + var + " to allow one of " + (could.empty() ? std::string("?") : could) + " for " +
          op_name +
          (release >= nccl_version_number(24, 0) ? ", e.g. per collective: allreduce:tree;allgather:ring" : "") + ")");
}
}  // namespace

Choice choose(const CommView& v, const TuningEnv& env, CollOp op, int64_t bytes) {
  const int all_channels = coll_channels(v, env);
  Choice best;
  best.nccl_predicted_us = -1;
  const auto usable = [&](Algo a, Proto p) { return tuner_usable(v, env, op, a, p); };
  // A tuner plugin first: its algorithm and protocol get cost 0 in NCCL's table where NCCL has
  // them. NCCL's example plugin (NCCL_TUNER_PLUGIN=example, example_tuner.hpp) also answers the
  // channels, which NCCL keeps unless 0 (enqueue.cc getAlgoInfo); otherwise the net plugin's,
  // aws-ofi-nccl's (ofi_tuner.hpp), and NCCL sizes the channels as for its own choice.
  int plugin_channels = 0;
  if (env.example_tuner) {
    const ExampleTunerChoice c = example_tuner_choice(env.example_rows, nccl_release_or_default(v.nccl_version),
                                                      v.nranks, v.nnodes, op, bytes, usable);
    plugin_channels = c.channels;
    if (c.algo) {
      best.algo = *c.algo;
      best.proto = c.proto;
      best.nccl_predicted_us =
          nccl_time_us(v, all_channels, op, best.algo, best.proto, nccl_cost(v, op, best.algo, best.proto), bytes);
    }
  } else if (env.tuner_plugin && !env.ofi_tuner_fallback && v.ofi_tuner != OfiTunerPlatform::None) {
    if (const auto c = ofi_tuner_choice(v.ofi_tuner, v.nranks, v.nnodes, op, bytes, usable)) {
      best.algo = c->algo;
      best.proto = c->proto;
      best.nccl_predicted_us =
          nccl_time_us(v, all_channels, op, c->algo, c->proto, nccl_cost(v, op, c->algo, c->proto), bytes);
    }
  }
  const auto consider = [&](Algo a, Proto p) {
    const double t = nccl_time_us(v, all_channels, op, a, p, nccl_cost(v, op, a, p), bytes);
    if (best.nccl_predicted_us < 0 || t < best.nccl_predicted_us) {
      best.algo = a;
      best.proto = p;
      best.nccl_predicted_us = t;
    }
  };
  const bool tuned_by_plugin = best.nccl_predicted_us >= 0;
  for (Algo a : kTunerAlgos)
    for (Proto p : kTunerProtos)
      if (!tuned_by_plugin && tuner_usable(v, env, op, a, p)) consider(a, p);
  if (best.nccl_predicted_us < 0 && v.nranks > 1)
    for (Proto p : no_algorithm_left(v, env, op)) consider(Algo::Ring, p);
  if (best.nccl_predicted_us < 0) {  // one rank: NCCL runs no algorithm (the engine's copy)
    best.algo = Algo::Ring;
    best.proto = Proto::Simple;
    best.nccl_predicted_us = 0;
  }
  // enqueue.cc: NVLS runs on nvlsChannels whatever the size (across nodes at most the
  // communicator's channels); CollNetDirect halves its channels in steps while bytes < channels x
  // threads x heads x 512 (ncSwitch 16, 8, 4, 2, 1).
  if (best.algo == Algo::NVLS) {
    best.channels = nvls_channels(v, env);
    if (v.nnodes > 1) best.channels = std::min(best.channels, all_channels);
    if (plugin_channels > 0) best.channels = std::min(best.channels, plugin_channels);  // at most its kind's
    return best;
  }
  if (plugin_channels > 0) {  // the planner fills at most the communicator's channels (scheduleCollTasksToPlan)
    const bool per_rank = op == CollOp::AllGather || op == CollOp::ReduceScatter;
    const int nc = std::min(plugin_channels, all_channels);
    best.channels = best.algo == Algo::CollNetDirect
                        ? nc
                        : planned_channels(op, best.proto, v.nranks, per_rank ? bytes / v.nranks : bytes, nc);
    return best;
  }
  if (best.algo == Algo::CollNetDirect) {
    int nc = all_channels;
    int64_t threshold = kCollNetThreadThreshold;
    const int64_t per_channel = int64_t{kMaxNThreads} * std::max(1, v.collnet_heads);
    bool more = true;
    for (int sw = 16; sw >= 1 && more; sw /= 2) {
      while ((more = bytes < nc * per_channel * threshold) && nc > sw) {
        if (nc == sw + sw / 2) threshold /= 2;
        --nc;
      }
    }
    best.channels = nc;
    return best;
  }
  // enqueue.cc: fewer channels for small messages (bytes < channels x threads x threshold).
  int nc = all_channels;
  const int pi = static_cast<int>(best.proto);
  int64_t threshold = best.algo == Algo::CollNetChain ? kCollNetThreadThreshold : kThreadThreshold[pi];
  if (best.algo == Algo::Ring && best.proto == Proto::LL) threshold *= v.nranks;
  // tuning.cc: Simple runs 256 threads when the ring graph is no faster than PCIe
  // (bwIntra x nChannels <= PCI_BW = 12 GB/s), else NCCL_SIMPLE_MAX_NTHREADS.
  const int nt = best.proto == Proto::Simple && v.bw_intra_gbs * v.graph_channels <= 12.0 ? 256 : kMaxThreads[pi];
  while (nc > 1 && bytes < static_cast<int64_t>(nc) * nt * threshold) --nc;
  if (env.min_channels) nc = std::max(nc, std::min(*env.min_channels, all_channels));
  // The planner may then leave some of those channels idle (channel_layout.hpp).
  const bool per_rank = op == CollOp::AllGather || op == CollOp::ReduceScatter;
  best.channels = planned_channels(op, best.proto, v.nranks, per_rank ? bytes / v.nranks : bytes, nc);
  return best;
}

}  // namespace models::nccl
