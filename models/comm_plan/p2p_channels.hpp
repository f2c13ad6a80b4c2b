// How many channels NCCL gives one point-to-point transfer (send/recv, each pair of an all-to-all).
//
// At init (src/graph/paths.cc ncclTopoComputeP2pChannels, ncclTopoGetNchannels):
//   p2p_channels = pow2_up(min(comm channels, NCCL_MAX_P2P_NCHANNELS = 64))
//   per_peer     = min(p2p_channels, pow2_up(min over peers of topo(peer)))
//   topo(peer)   = 2 x NVLink links to the peer (NVLink path), 2 otherwise (PCIe, another node)
// Per transfer of `bytes` (src/enqueue.cc scheduleP2pTasksToPlan, addP2pToPlan):
//   ch_min = per_peer, halved while ch_min x nranks > p2p_channels (and > 1)
//   ch     = min(ch_min, ceil(bytes / part_min)), doubled while ceil(bytes / ch) > part_max and
//            ch <= per_peer / 2
//   one node:    chunk = NCCL_P2P_NVL_CHUNKSIZE 512 KiB over NVLink, else 128 KiB;
//                part_min = chunk / 8, part_max = chunk x 32
//   across nodes: chunk = NCCL_P2P_NET_CHUNKSIZE 128 KiB; part_min = chunk / 2, part_max = chunk
// So on 4 x H200 (24 coll channels, 36 per NVLink peer: "32 p2p channels, 32 p2p channels per
// peer", scenarios/validation/h200x4/measured/logs/p2p_n4.rank0.log) a peer starts at 8 channels
// on 4 ranks and 16 on 2, and gets more only once a channel's part passes 16 MiB (128 MiB on 4
// ranks, 256 MiB on 2).
// Protocol (src/enqueue.cc addP2pToPlan), by release: a transfer runs LL while its bytes are at most
// NCCL_P2P_LL_THRESHOLD (16 KiB) times, to 2.21, 1; in 2.22-2.28 p2pnChannelsPerPeer, the channels
// a peer may get, not the ones it gets; from 2.29 the transfer's own channels (so on one node, where
// a part under 64 KiB runs one channel, LL ends at 16 KiB); else Simple. Under 2.22-2.28, 32 per
// peer on an NVLink node put every part up to 512 KiB on LL, even where the peer gets one channel.
// OCI's GB300 rack (NCCL 2.28.7) shows it:
// alltoall_perf on 64 ranks moves 140 GB/s up to 32 MiB (512 KiB per peer) and 415 GB/s at 64 MiB
// (scenarios/validation/gb300_oci/measured/alltoall_1rack.txt).
// Waves (src/enqueue.cc ncclP2pChannelBaseForRound, scheduleP2pTasksToPlan): an all-to-all's n-1
// peers' rounds take ch channels each from a base that moves round by round; where (n-1) x ch
// exceeds the p2p channels, a channel's CTA runs several rounds' parts one batch after another,
// so a pair, split evenly over its channels, ends with its most loaded one:
//   W = ceil((n-1) x ch / p2p_channels), each pair at 1/W of its channels' rate
// (64 ranks on 32 channels at one channel a peer: two waves).
// Tests: tests/models/comm_plan/p2p_channels_test.cpp.
#pragma once

#include <cstdint>

namespace models::collectives {

struct P2pChannels {
  int channels = 1;  // comm->p2pnChannels
  int per_peer = 1;  // comm->p2pnChannelsPerPeer
  bool multi_node = false;
  int64_t chunk = 1 << 17;  // comm->p2pChunkSize, bytes
  int64_t ll_threshold = 16384;  // NCCL_P2P_LL_THRESHOLD, bytes per channel
  // Which channels the LL threshold counts, by NCCL release (nccl.version): to 2.21 none (the
  // threshold is the transfer's limit), 2.22-2.28 the channels a peer may get, from 2.29 the
  // transfer's own.
  enum class LlRule { Flat, PerPeer, PerTransfer } ll_rule = LlRule::PerTransfer;
};

int pow2_up(int v);

// `comm_channels`: the communicator's collective channels (after NCCL_MIN/MAX_NCHANNELS);
// `topo_per_peer`: the smallest topo(peer) over the communicator's peers; `all_nvlink`: every
// pair is joined by NVLink (the 512 KiB chunk).
P2pChannels p2p_channels(int comm_channels, int topo_per_peer, bool multi_node, bool all_nvlink);

// The channels one transfer of `bytes` runs on, in a communicator of `nranks` ranks.
int p2p_transfer_channels(const P2pChannels& c, int nranks, int64_t bytes);

// W above: the waves in which one rank's p2p channels serve its `nranks` - 1 peers of `ch` channels
// each (at least 1; the copy to oneself is not a round on a channel).
int p2p_waves(const P2pChannels& c, int nranks, int ch);

// Whether a transfer of `bytes` to one peer of `nranks` runs LL: bytes <= ll_threshold x (1, per_peer
// or the transfer's channels, by ll_rule); else Simple. A copy to oneself never runs LL.
bool p2p_uses_ll(const P2pChannels& c, int nranks, int64_t bytes);
// The rule of an NCCL release (0: the default release).
P2pChannels::LlRule p2p_ll_rule(int nccl_version);

}  // namespace models::collectives
