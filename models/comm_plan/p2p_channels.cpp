#include "models/comm_plan/p2p_channels.hpp"

#include <algorithm>

#include "models/nccl/tuner_tables.hpp"

namespace models::collectives {

namespace {
constexpr int kMaxP2pChannels = 64;       // NCCL_MAX_P2P_NCHANNELS' default (MAXCHANNELS)
constexpr int64_t kNvlChunk = 1 << 19;    // NCCL_P2P_NVL_CHUNKSIZE (src/init.cc)
constexpr int64_t kOtherChunk = 1 << 17;  // NCCL_P2P_PCI_CHUNKSIZE, NCCL_P2P_NET_CHUNKSIZE
int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

int pow2_up(int v) {
  int p = 1;
  while (p < v) p <<= 1;
  return p;
}

P2pChannels p2p_channels(int comm_channels, int topo_per_peer, bool multi_node, bool all_nvlink) {
  P2pChannels c;
  c.channels = pow2_up(std::clamp(comm_channels, 1, kMaxP2pChannels));
  c.per_peer = std::min(c.channels, pow2_up(std::max(1, topo_per_peer)));
  c.multi_node = multi_node;
  c.chunk = !multi_node && all_nvlink ? kNvlChunk : kOtherChunk;
  return c;
}

int p2p_transfer_channels(const P2pChannels& c, int nranks, int64_t bytes) {
  if (bytes <= 0) return 1;
  int ch_min = c.per_peer;
  while (ch_min * nranks > c.channels && ch_min > 1) ch_min /= 2;
  const int64_t part_min = c.multi_node ? c.chunk / 2 : c.chunk / 8;
  const int64_t part_max = c.multi_node ? c.chunk : c.chunk * 32;
  int ch = static_cast<int>(std::min<int64_t>(ch_min, div_up(bytes, part_min)));
  int64_t part = std::max(part_min, div_up(bytes, ch));
  while (part > part_max && ch <= c.per_peer / 2) {
    ch *= 2;
    part = div_up(bytes, ch);
  }
  return ch;
}

int p2p_waves(const P2pChannels& c, int nranks, int ch) {
  return static_cast<int>(std::max<int64_t>(1, div_up(int64_t{nranks - 1} * ch, c.channels)));
}

bool p2p_uses_ll(const P2pChannels& c, int nranks, int64_t bytes) {
  using Rule = P2pChannels::LlRule;
  const int64_t times = c.ll_rule == Rule::Flat      ? 1
                        : c.ll_rule == Rule::PerPeer ? c.per_peer
                                                     : p2p_transfer_channels(c, nranks, bytes);
  return bytes <= times * c.ll_threshold;
}

P2pChannels::LlRule p2p_ll_rule(int nccl_version) {
  const int v = nccl::nccl_release_or_default(nccl_version);
  if (v < nccl::nccl_version_number(22, 0)) return P2pChannels::LlRule::Flat;
  if (v < nccl::nccl_version_number(29, 0)) return P2pChannels::LlRule::PerPeer;
  return P2pChannels::LlRule::PerTransfer;
}

}  // namespace models::collectives
