// The rate cap of one collective flow: what NCCL's kernels can push along one ring/tree edge.
//
//   cap = min( eta' x B_path x link_fraction ,  channels x r' x eta_P / eta_Simple )
//   eta' = min(1, eta[class][P] x simplex) x read x min(1, 1/work)
//   r'   = 1 / (1 / (channel_bandwidth x read / work) + rtt / NCCL_BUFFSIZE)      (Simple)
//
// B_path: the raw bandwidth of the edge's narrowest link; link_fraction: its share of that link
// (1 / rings crossing it); eta: the fitted efficiency of the protocol on that link class.
// work (copy_work.hpp): the collective's loads and stores per byte sent relative to all-reduce,
// which bind over NVLink (per channel, and in total where above 1). read: P2P read mode's
// factor where the reader's port also sends (models/hw/links.cpp p2p_read_model). simplex: SHM's copies
// to and from host memory share one throughput per GPU, so a one-way edge gets twice the duplex
// rate. rtt: a FIFO credit's round trip; a channel keeps NCCL_BUFFSIZE in flight (Simple).
// Without a known per-channel rate, bandwidth scales with the collective's share of the default
// channels instead (coll_share), still bounded by the flow-control window.
#pragma once

#include <cstdint>

#include "models/collectives/collective.hpp"
#include "models/collectives/link_params.hpp"

namespace models::collectives {

struct FlowCapInputs {
  LinkClass link_class = LinkClass::NVLink;
  Proto proto = Proto::Simple;
  double raw_bandwidth = 0;  // B_path, bytes/s
  double link_fraction = 1;
  double coll_share = 1;                // collective's channels / default channels
  double channels = 1;                  // channels this flow carries
  bool p2p_read = false;                // the edge runs P2P in read mode
  bool duplex = true;                   // the edge's receiver also sends in this collective
  double work = 1;                      // copy_work_vs_all_reduce
  int64_t buffsize = int64_t{1} << 22;  // NCCL_BUFFSIZE
};

double flow_rate_cap(const LinkParams& params, const FlowCapInputs& in);

}  // namespace models::collectives
