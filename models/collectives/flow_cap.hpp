// The rate cap of one collective flow: what NCCL's kernels can push along one ring/tree edge.
// This is the cap's one statement: the engine (engine.hpp), the per-class parameters
// (link_params.hpp) and the READMEs refer here; tests/models/collectives/flow_cap_test.cpp checks it.
//
// With a measured per-channel rate (ClassParams::channel_bandwidth > 0):
//   cap = min( eta' x B_path x link_fraction ,  channels x r' x eta[class][P] / eta[class][Simple] )
// Without one (channel_bandwidth = 0), bandwidth scales with the collective's share of the
// default channels instead, still bounded by the flow-control window (Simple, rtt > 0):
//   cap = min( eta' x B_path x link_fraction x coll_share ,  channels x NCCL_BUFFSIZE / rtt )
// where
//   eta' = min(1, eta[class][P] x simplex) x read x link_work
//   r'   = channel_bandwidth x read x channel_work                                 (LL, LL128)
//   r'   = 1 / (1 / (channel_bandwidth x read x channel_work) + rtt / NCCL_BUFFSIZE)  (Simple)
//   link_work = min(1, 1/work), channel_work = 1/work over NVLink; both 1 on other classes.
//
// B_path: the raw bandwidth of the edge's narrowest link; link_fraction: its share of that link
// (1 / rings crossing it); eta: the fitted efficiency of protocol P on that link class.
// work (copy_work.hpp): the collective's loads and stores per byte sent relative to all-reduce,
// which bind over NVLink (per channel, and in total where above 1). read: P2P read mode's
// factor where the reader's port also sends (models/hw/links.cpp p2p_read_model). simplex: SHM's copies
// to and from host memory share one throughput per GPU, so a one-way edge gets twice the duplex
// rate. rtt: a FIFO credit's round trip; a channel keeps NCCL_BUFFSIZE in flight (Simple).
// Sources of each term: the measurements cited in flow_cap.cpp, copy_work.hpp and link_params.cpp.
#pragma once

#include <cstdint>

#include "models/collectives/collective.hpp"
#include "models/collectives/link_params.hpp"

namespace models::collectives {

// Channels of a flow that no channel count bounds: NCCL gives one send/recv peer as many p2p
// channels as it needs, so only the link term of the cap applies. Large enough that the channel
// term (kPeerChannelsUnbounded x any per-channel rate above 1 kB/s) exceeds every link (< 1e12 B/s).
inline constexpr double kPeerChannelsUnbounded = 1e9;

struct FlowCapInputs {
  LinkClass link_class = LinkClass::NVLink;
  Proto proto = Proto::Simple;
  double raw_bandwidth = 0;  // B_path, bytes/s
  double link_fraction = 1;
  double coll_share = 1;                // collective's channels / default channels
  double channels = 1;                  // channels this flow carries (or kPeerChannelsUnbounded)
  bool p2p_read = false;                // the edge runs P2P in read mode
  bool duplex = true;                   // the edge's receiver also sends in this collective
  double work = 1;                      // copy_work_vs_all_reduce
  int64_t buffsize = int64_t{1} << 22;  // NCCL_BUFFSIZE
};

double flow_rate_cap(const LinkParams& params, const FlowCapInputs& in);

}  // namespace models::collectives
