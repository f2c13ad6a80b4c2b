#pragma once
// `commsim topo`: the node's GPU matrix in the style of `nvidia-smi topo -m`, then the transport
// NCCL would log for each rank pair and the P2P channels it would open to that peer.
#include <string>

#include "models/spec.hpp"
#include "models/world/world.hpp"

namespace models {

// Renders `world` (World::build of `spec`: what run simulates). Lists every ordered pair up to
// `max_pairs_listed` ranks' worth (16 ranks: 240 pairs); beyond, rank 0's pairs and a count per
// transport label.
// `per_peer_channels`: the P2P channels per peer of the communicator of all ranks as the
// simulation opens them (models/comm_plan/p2p_channels.hpp): NCCL's p2pnChannelsPerPeer, one count
// for every pair of a communicator (pow2Up of the smallest count over all its peers, at most its
// P2P channels), so a network peer and an NVLink peer of one job show the same count. 0: each
// pair's own topology count (TransportModel::p2p_channels), before that minimum.
std::string render_topo(const World& world, const ScenarioSpec& spec, int max_ranks_listed = 16,
                        int per_peer_channels = 0);
// The same on a World built here (throws SpecError / ParseError like World::build).
std::string render_topo(const ScenarioSpec& spec, int max_ranks_listed = 16);

}  // namespace models
