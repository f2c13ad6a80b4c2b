// EFA parameters per generation (efa_generations.hpp): public measurements of that generation,
// read through the model's own mechanisms (2 nodes of 8 GPUs: Tree/LL below 64 KiB crosses EFA
// twice). Two of EFA v2's come from a data set that scenarios/validation/p5_nodes_efa/ also holds
// (crazyguitar/aws-gpu-communication-benchmark): its Simple step and efficiency, so those points
// of that file are in sample (docs/accuracy.md says which); every other value's source is held by
// no validation file.
//
// EFA v2 (p5, p5e: 32 x 100 Gb/s, 4 per GPU):
//   LL 27.5 us: 2 x p5.48xlarge all_reduce_perf, NCCL's default algorithm, 16-128 B at 68.4-69.3 us
//     (median 68.7 us; github.com/aws/aws-k8s-tester/pull/585). The model's Tree/LL time there is
//     15.1 us + 1.97 x the hop latency (kernel, launch loop and 14 NVLink LL hops in the 15.1),
//     so (68.7 - 15.1) / 1.97 = 27.5 us. NCCL's own model charges 2.7 + 75 = 77.7 us: the declared
//     latency is a tuning value ("NCCL's internal tuner choices work better with this value",
//     aws-ofi-nccl src/platform-aws.cpp), 2.8 x what LL measures.
//   LL128 28.8 us: LL's + 1.3 us, NCCL's own LL128 - LL step difference on a network hop
//     (src/graph/tuning.cc hwLat NET 4.0 - 2.7 us). No public LL128-bound curve of EFA v2 outside
//     the validation files was found.
//   Simple 30 us: 2 x p5 all_reduce_perf at 64-256 MiB (NVLSTree/Simple, 2 EFA steps beside its
//     loops' fill; github.com/crazyguitar/aws-gpu-communication-benchmark, data/nccl_all_reduce.csv,
//     NCCL 2.28.7, aws-ofi-nccl 1.16.3): within 1.7 % at 30 us (+13 % at 60, +50 % at 164). NCCL's
//     own tuner charges 14 + 2 x 75 = 164 us for that step (tuning.cc: hwLat + the plugin's declared
//     latency, twice for Simple): a tuning value, which the fill of NVLSTree's pipeline
//     (collectives/nvls_tree.cpp) and not the step explains.
//   Efficiency 0.89: the same data set's ring-bound plateaus, 4, 8 and 16 x p5 at 8 GiB, 357, 355
//     and 356 GB/s bus bandwidth: a ring's bus bandwidth is what each node moves through its
//     8 x 50 GB/s of EFA, 0.89 of it on all three. On 2 nodes NVLSTree's 255 GB/s (0.64 of the
//     NICs) is its switch ports' limit, not the wire's: with 0.89 the model gives its 2-node
//     plateau within 2.2 %. LL and LL128 keep NCCL's data ratios to Simple (0.5, 0.94).
// EFA v4 (p6-b200 8 x 400 Gb/s, p6-b300 16 x 400, P6e-GB200 UltraServers):
//   LL 20.5 us: 2 x p6-b200.48xlarge all_reduce_perf, default algorithm, 8-256 B at 50.6-57.1 us
//     (median 55.1 us; github.com/dstackai/dstack/pull/3961): (55.1 - 15.1) / 1.95 = 20.5 us.
//   LL128 21.8 us: LL's + 1.3 us, as for v2.
//   Simple 23 us: v4's LL + v2's Simple - LL (2.5 us: the same plugin's extra work per Simple
//     step), assumed: no public Simple-bound curve of EFA v4.
//   Efficiency 0.94: 4 x p6-b200.48xlarge all_reduce_perf, NCCL's choice (rings from 512 MiB under
//     aws-ofi-nccl's tuner), 377 GB/s bus bandwidth at 16 GiB and 375 at 4 GiB, what each node moves
//     through its 8 x 50 GB/s: 377 / 400 (awslabs/awsome-distributed-ai, architectures/aws-pcs/tests/
//     compute-test.md; the image it pins: NCCL 2.27.7, aws-ofi-nccl 1.16.3). The same run's 128 MiB -
//     1 GiB and 2 x p6-b300 at 16 and 64 GiB check it (scenarios/validation/p6_efa).
// EFA v3 (p5en: 16 x 200 Gb/s): v4's step latencies. aws-ofi-nccl treats p5en and p6-b200 as one
//   platform (src/platform-aws.cpp "p5en/p6-b200": the same declared latency, 35 us, and
//   environment). Efficiency: v2's 0.89, assumed: no public p5en curve was found, and v4's is a
//   newer NIC's.
#include "models/hw/efa_generations.hpp"

namespace models::hw {

namespace {
constexpr double kUsEfa = 1e-6;
constexpr double kLlRatio = 0.5, kLl128Ratio = 0.94;  // NCCL's LL and LL128 data ratios to Simple (tuning.cc)
constexpr double kEfaRingEfficiency = 0.89;

constexpr EfaGenerationParams kEfaV2{
    2,
    {27.5 * kUsEfa, 28.8 * kUsEfa, 30 * kUsEfa},
    {kLlRatio * kEfaRingEfficiency, kLl128Ratio* kEfaRingEfficiency, kEfaRingEfficiency},
    "LL: 2 x p5 all_reduce_perf 16-128 B (aws/aws-k8s-tester#585); Simple: 2 x p5 64-256 MiB; efficiency: 4-16 x p5 "
    "ring plateaus (crazyguitar/aws-gpu-communication-benchmark)"};
constexpr double kEfaV4RingEfficiency = 0.94;
constexpr EfaGenerationParams kEfaV4{
    4,
    {20.5 * kUsEfa, 21.8 * kUsEfa, (20.5 + 30 - 27.5) * kUsEfa},
    {kLlRatio * kEfaV4RingEfficiency, kLl128Ratio* kEfaV4RingEfficiency, kEfaV4RingEfficiency},
    "LL: 2 x p6-b200 all_reduce_perf 8-256 B (dstackai/dstack#3961); Simple: LL + EFA v2's Simple - LL, "
    "efficiency: 4 x p6-b200 ring plateau, 377 of 400 GB/s (awsome-distributed-ai compute-test.md)"};
constexpr EfaGenerationParams kEfaV3{
    3, kEfaV4.hop_latency_s, kEfaV2.efficiency,
    "step latencies EFA v4's (aws-ofi-nccl's platform \"p5en/p6-b200\", src/platform-aws.cpp), efficiency "
    "EFA v2's (assumed); no public p5en curve"};
}  // namespace

const EfaGenerationParams* efa_generation_params(int generation) {
  switch (generation) {
    case 2: return &kEfaV2;
    case 3: return &kEfaV3;
    case 4: return &kEfaV4;
    default: return nullptr;  // EFA v1: the registered efa.* defaults (models/params_links.hpp)
  }
}

}  // namespace models::hw
