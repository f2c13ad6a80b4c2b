#pragma once
// `commsim topo`: the node's GPU matrix in the style of `nvidia-smi topo -m`, then the transport
// NCCL would log for each rank pair and the P2P channels it would open to that peer.
#include <functional>
#include <string>

#include "models/spec.hpp"
#include "models/world/world.hpp"

namespace models {

// Renders `world` (World::build of `spec`: what run simulates). Lists every ordered pair up to
// `max_pairs_listed` ranks' worth (16 ranks: 240 pairs); beyond, rank 0's pairs and a count per
// transport label.
// `per_peer`: the P2P channels per peer NCCL opens for a pair whose topology allows the given count
// (TransportModel::p2p_channels): pow2Up, at most the communicator's P2P channels
// (models/comm_plan/p2p_channels.hpp, which the simulation uses); without it the topology's count.
using PeerChannels = std::function<int(int topo_channels)>;
std::string render_topo(const World& world, const ScenarioSpec& spec, int max_ranks_listed = 16,
                        const PeerChannels& per_peer = {});
// The same on a World built here (throws SpecError / ParseError like World::build).
std::string render_topo(const ScenarioSpec& spec, int max_ranks_listed = 16);

}  // namespace models
