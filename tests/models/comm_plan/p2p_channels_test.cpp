// NCCL's point-to-point channel counts (p2p_channels.hpp: src/graph/paths.cc
// ncclTopoComputeP2pChannels, src/enqueue.cc addP2pToPlan), against the values NCCL logged on the
// 4 x H200 machine and the rule worked by hand.
#include <catch2/catch.hpp>

#include "models/comm_plan/p2p_channels.hpp"
#include "models/nccl/tuner_tables.hpp"

using namespace models::collectives;
using models::nccl::nccl_version_number;

TEST_CASE("p2p channels: the communicator's p2p channels and channels per peer, as NCCL logs them", "[nccl]") {
  // NVLink: 24 coll channels, 2 x 18 links per peer -> "32 p2p channels, 32 p2p channels per peer"
  // (scenarios/validation/h200x4/measured/logs/p2p_n4.rank0.log).
  const P2pChannels nvl = p2p_channels(24, 36, false, true);
  CHECK(nvl.channels == 32);
  CHECK(nvl.per_peer == 32);
  CHECK(nvl.chunk == 512 * 1024);  // "P2P Chunksize set to 524288"
  // TCP, every GPU its own NCCL node: "2 coll channels, ..., 2 p2p channels, 2 p2p channels per
  // peer", "P2P Chunksize set to 131072" (measured/logs/sock_n4.rank0.log).
  const P2pChannels sock = p2p_channels(2, 2, true, false);
  CHECK(sock.channels == 2);
  CHECK(sock.per_peer == 2);
  CHECK(sock.chunk == 128 * 1024);
}

TEST_CASE("p2p channels: a peer starts at per_peer halved to fit the ranks, and doubles past 16 MiB parts", "[nccl]") {
  const P2pChannels nvl = p2p_channels(24, 36, false, true);
  const int64_t KiB = 1024, MiB = 1024 * KiB;
  // 4 ranks: 32 -> 16 -> 8 (8 x 4 <= 32); parts of at least 64 KiB; up to 16 MiB per part.
  CHECK(p2p_transfer_channels(nvl, 4, 16 * KiB) == 1);
  CHECK(p2p_transfer_channels(nvl, 4, 256 * KiB) == 4);
  CHECK(p2p_transfer_channels(nvl, 4, 1 * MiB) == 8);
  CHECK(p2p_transfer_channels(nvl, 4, 128 * MiB) == 8);
  CHECK(p2p_transfer_channels(nvl, 4, 256 * MiB) == 16);
  CHECK(p2p_transfer_channels(nvl, 4, 512 * MiB) == 32);
  CHECK(p2p_transfer_channels(nvl, 4, 1024 * MiB) == 32);  // never above per_peer
  // 2 ranks: 16.
  CHECK(p2p_transfer_channels(nvl, 2, 8 * MiB) == 16);
  CHECK(p2p_transfer_channels(nvl, 2, 256 * MiB) == 16);
  CHECK(p2p_transfer_channels(nvl, 2, 512 * MiB) == 32);
  // Across nodes parts stay within 64-128 KiB: a 4-rank TCP communicator (2 p2p channels) runs
  // one channel per peer up to 128 KiB, then both.
  const P2pChannels sock = p2p_channels(2, 2, true, false);
  CHECK(p2p_transfer_channels(sock, 4, 128 * KiB) == 1);
  CHECK(p2p_transfer_channels(sock, 4, 1 * MiB) == 2);
}

TEST_CASE("p2p channels: LL up to 16 KiB x 1, the peer's or the transfer's channels, by NCCL release", "[nccl]") {
  const int64_t KiB = 1024;
  // 2.22-2.28: an NVLink node, 32 per peer: LL up to 512 KiB, whatever channels the transfer itself
  // gets (a 64-rank communicator gives each peer one channel and still sends 512 KiB with LL).
  P2pChannels nvl = p2p_channels(24, 36, false, true);
  nvl.ll_rule = p2p_ll_rule(nccl_version_number(28, 9));
  CHECK(p2p_uses_ll(nvl, 64, 16 * KiB));
  CHECK(p2p_uses_ll(nvl, 64, 512 * KiB));
  CHECK_FALSE(p2p_uses_ll(nvl, 64, 512 * KiB + 1));
  // Across nodes over TCP, 2 per peer: LL up to 32 KiB.
  P2pChannels sock = p2p_channels(2, 2, true, false);
  sock.ll_rule = p2p_ll_rule(nccl_version_number(28, 9));
  CHECK(p2p_uses_ll(sock, 4, 32 * KiB));
  CHECK_FALSE(p2p_uses_ll(sock, 4, 32 * KiB + 1));
  // 2.29 on (the default): the transfer's own channels. On one node a part under 64 KiB (512 KiB /
  // 8) runs one channel, so LL ends at 16 KiB; 2 channels from 64 KiB would allow 32 KiB, below it.
  nvl.ll_rule = p2p_ll_rule(0);
  CHECK(nvl.ll_rule == P2pChannels::LlRule::PerTransfer);
  CHECK(p2p_transfer_channels(nvl, 2, 16 * KiB) == 1);
  CHECK(p2p_uses_ll(nvl, 2, 16 * KiB));
  CHECK_FALSE(p2p_uses_ll(nvl, 2, 16 * KiB + 1));
  CHECK_FALSE(p2p_uses_ll(nvl, 2, 512 * KiB));
  // To 2.21: 16 KiB flat.
  nvl.ll_rule = p2p_ll_rule(nccl_version_number(21, 5));
  CHECK(nvl.ll_rule == P2pChannels::LlRule::Flat);
  CHECK(p2p_uses_ll(nvl, 64, 16 * KiB));
  CHECK_FALSE(p2p_uses_ll(nvl, 64, 16 * KiB + 1));
}

TEST_CASE("p2p channels: an all-to-all's peers share a rank's p2p channels in ceil((n-1) ch / channels) waves",
          "[nccl]") {
  const int64_t MiB = 1 << 20;
  // OCI's GB300 rack: 64 ranks on 32 p2p channels, one channel a peer below 16 MiB parts: 63 rounds
  // on 32 channels, two waves.
  const P2pChannels rack = p2p_channels(32, 36, false, true);
  const int ch = p2p_transfer_channels(rack, 64, 1 * MiB);
  CHECK(ch == 1);
  CHECK(p2p_waves(rack, 64, ch) == 2);
  // 4 x H200: 8 channels a peer on 4 ranks, 3 x 8 = 24 of the 32 channels: one wave.
  const P2pChannels h200 = p2p_channels(24, 36, false, true);
  CHECK(p2p_waves(h200, 4, p2p_transfer_channels(h200, 4, 1 * MiB)) == 1);
  // 33 ranks at one channel a peer: 32 rounds fill the 32 channels exactly; 34 ranks spill into a second.
  CHECK(p2p_waves(rack, 33, 1) == 1);
  CHECK(p2p_waves(rack, 34, 1) == 2);
  // Two ranks: one peer, never more than one wave.
  CHECK(p2p_waves(rack, 2, rack.per_peer) == 1);
}
