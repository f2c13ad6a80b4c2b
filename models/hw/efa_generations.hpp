#pragma once
// The collective engine's EFA parameters per EFA generation: the per-step latency and the
// fraction of the NICs' line rate that NCCL moves through aws-ofi-nccl, for LL, LL128 and Simple.
// EFA v1 (p4d, p4de, g5, g6e) keeps the registered defaults `efa.*` (models/params_links.hpp: EFA v2's
// step latencies, its lower bound, and p4dn's efficiency); later generations have their own, each
// read off a public measurement of that generation that no validation file of the repository holds
// (sources in efa_generations.cpp). A scenario's
// `[cluster.params]` (or its profile) overrides them as it overrides any default.
//
// The latency the plugin declares to NCCL (NodeSpec::net_plugin_latency_us: 75 or 35 us) is not
// one of these: NCCL's tuner adds it to its own cost model to choose an algorithm and protocol
// (models/nccl/tuning.cpp), never to the simulated time; aws-ofi-nccl chose it so that NCCL's
// choices come out right ("Empirical testing on P5 had shown that NCCL's internal tuner choices
// work better with this value", src/platform-aws.cpp), not as a measured latency.
#include <array>

namespace models::hw {

struct EfaGenerationParams {
  int generation = 0;
  std::array<double, 3> hop_latency_s{};  // LL, LL128, Simple: one inter-node pipeline step
  std::array<double, 3> efficiency{};     // of the NICs' line rate, with NCCL's default channels
  const char* source = "";
};

// nullptr for EFA v1 and unknown generations: the registered `efa.*` defaults apply.
const EfaGenerationParams* efa_generation_params(int generation);

}  // namespace models::hw
