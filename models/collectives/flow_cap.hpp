// The rate cap of one collective flow: what NCCL's kernels can push along one ring/tree edge.
// This is the cap's one statement: the engine (engine.hpp), the per-class parameters
// (link_params.hpp) and the READMEs refer here; tests/models/collectives/shared_core/flow_cap_test.cpp checks it.
//
// With a measured per-channel rate (ClassParams::channel_bandwidth > 0):
//   cap = min( eta' x B_path x link_fraction ,  channels x r' x eta[class][P] / eta[class][Simple] )
// except a point-to-point LL flow where channel_bandwidth_ll is set:
//   cap = min( eta' x B_path x link_fraction ,  channels x channel_bandwidth_ll )
// Without one (channel_bandwidth = 0), bandwidth scales with the collective's share of the
// default channels instead, still bounded by the flow-control window (Simple, rtt > 0):
//   cap = min( eta' x B_path x link_fraction x coll_share ,  channels x NCCL_BUFFSIZE / rtt )
// where
//   eta' = min(1, eta[class][P] x simplex) x read x link_work
//   r'   = channel_bandwidth x read x channel_work x thread_share                  (LL, LL128)
//   r'   = 1 / (1 / (channel_bandwidth x read x channel_work) + rtt / NCCL_BUFFSIZE)  (Simple)
//   link_work = min(1, 1/work), channel_work = channel_gain / work over NVLink; both 1 on other
//   classes (channel_gain: a ring's CTA rate at its n ranks over the 2-rank all-reduce that
//   channel_bandwidth is measured on, copy_work.hpp ring_channel_gain; 1 off rings).
//
// Over NVLink the port itself also carries the efficiency: a GPU's NVLink tx/rx capacity in the
// FlowNetwork is eta[NVLink][Simple] x raw (world.cpp build_links), so flows sharing a port (all-to-all's
// n-1, a Tree chain's 2, concurrent collectives) together reach eta x raw, not raw (the port's
// efficiency is shared, not each flow's). This cap still bounds each flow alone. Over Socket, the same: a GPU's "proxy"
// link (its rank's proxy thread, both directions) carries eta[Socket][Simple] on its total, and a
// Simple flow's B_path is the thread's one-way rate (x simple_raw_factor = 1/socket.thread_duplex
// over the both-way basis the efficiencies were fitted on), so a rank that only sends over TCP
// moves 1/socket.thread_duplex (1.6x) what one sending and receiving does per direction.
// B_path: the raw bandwidth of the edge's narrowest link (World::raw_capacity); link_fraction: its share of that link
// (1 / rings crossing it); eta: the fitted efficiency of protocol P on that link class.
// work (copy_work.hpp): the collective's loads and stores per byte sent relative to all-reduce,
// which bind over NVLink (per channel, and in total where above 1). read: P2P read mode's
// factor where the reader's port also sends (models/hw/links.cpp p2p_read_model), Simple only
// (read mode moves only the SIMPLE buffer, NCCL src/transport/p2p.cc p2pSendConnect). simplex: SHM's copies
// to and from host memory share one throughput per GPU, so a one-way edge gets twice the duplex
// rate. rtt: a FIFO credit's round trip; a channel keeps NCCL_BUFFSIZE in flight (Simple).
// thread_share: a channel's rate is its CTA's copying, measured with a ring's threads; a tree's
// ranks split the CTA between reducing up and broadcasting down (runTreeSplit: LL128 0.7 and 0.3
// of the ring's threads, pipeline_fill.hpp tree_split_threads), and each direction moves at its
// threads' share of the rate (assumed proportional; not measured apart).
// Point-to-point LL: a ring's LL on Hopper is bounded by the port's LL efficiency (each of its
// channels' flows gets eta[LL] x B / rings), so the ring's per-channel LL term never binds there;
// an all-to-all's pairs share their port max-min at Simple's efficiency instead, and what bounds
// them is the CTA: one moves ~5 GB/s of LL on H200 (2 x H200 ring forced to LL: 123.5 GB/s over 24
// channels) and 4.8 on OCI's GB300 rack (its all-to-all at 4-32 MiB per GPU, 63 peers on 32 CTAs),
// so channel_bandwidth_ll is that measured rate on every generation.
// port_bound: NVLS's flows to and from the switch. The switch reduces and multicasts
// (multimem.ld_reduce, multimem.st); no CTA loads and stores them as a ring's copies, so the
// per-channel term, a ring CTA's measured rate, does not apply and only link_cap does. The NVLS
// kernel's own copies (its scatter and gather warps) are its pipeline's stages (nvls.cpp).
// Sources of each term: the measurements cited in flow_cap.cpp, copy_work.hpp and link_params.cpp.
#pragma once

#include <cstdint>

#include "models/collectives/collective.hpp"
#include "models/comm_plan/link_params.hpp"

namespace models::collectives {

struct FlowCapInputs {
  LinkClass link_class = LinkClass::NVLink;
  Proto proto = Proto::Simple;
  double raw_bandwidth = 0;      // B_path, bytes/s
  double simple_raw_factor = 1;  // Socket: B_path of Simple over B_path (Edge::simple_raw_factor)
  double link_fraction = 1;
  double coll_share = 1;                // collective's channels / default channels
  double channels = 1;                  // channels this flow carries
  bool p2p_read = false;                // the edge runs P2P in read mode
  bool duplex = true;                   // the edge's receiver also sends in this collective
  double work = 1;                      // copy_work_vs_all_reduce
  double channel_gain = 1;              // ring_channel_gain (copy_work.hpp)
  int64_t buffsize = int64_t{1} << 22;  // NCCL_BUFFSIZE
  double thread_share = 1;              // the CTA's threads moving this flow over a ring's (tree split)
  bool port_bound = false;              // NVLS's port flows: no per-channel term (below)
  bool point_to_point = false;          // send/recv, all-to-all: LL at channel_bandwidth_ll
};

double flow_rate_cap(const LinkParams& params, const FlowCapInputs& in);

}  // namespace models::collectives
