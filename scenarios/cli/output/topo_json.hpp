#pragma once
// `commsim topo --json`: what `commsim topo` prints, as data (docs/result.schema.json, "topo"):
// the machine, the placement, the node's GPU matrix in nvidia-smi's cells (NV12, PIX, SYS, ...),
// the transport NCCL would log for each rank pair, and the pairs per transport.
#include "models/spec.hpp"
#include "models/world/topo_text.hpp"
#include "models/world/world.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

// `world`: World::build of `spec` (what run simulates). Pairs: every ordered pair up to `max_ranks_listed` ranks,
// beyond that rank 0's peers; counts per transport over every pair up to 256 ranks, beyond that
// over rank 0's peers ("pairs_counted" says which).
// `per_peer_channels` as for models::render_topo.
Json topo_json(const models::World& world, const models::ScenarioSpec& spec, int max_ranks_listed,
               const CommandInputs& inputs, int per_peer_channels = 0);

}  // namespace scenarios
