#pragma once
// The simulator's own RAM budget (not the GPU memory estimate of a training step, which is
// memory_fill.hpp): an up-front estimate of the host memory a run needs, so a question too big
// for the machine is refused with a suggestion before anything large is built (16,384 GPUs run
// within 4 GB; nodes = 1,000,000 or iterations = 1e9 get a clear "no" instead of std::bad_alloc
// after a minute).
//
// Model (fitted on this code, RSS measured with /usr/bin/time -v, see tests/scenarios/scale/):
//   bytes = base + ranks * per_rank + peak_flows * per_flow + ops * per_op + ranks * rank_ops * 1 B
// with base 32 MiB (program, catalogs, World), per_rank 8 KiB (World ranks and paths, executor
// state, result), per_flow 512 B (a FlowNetwork flow, its path and the collective's edge;
// measured 450 B from alltoall on 512 and 1,024 ranks: 151 MB and 504 MB). peak_flows: a bare
// alltoall folds its pairs (alltoall_folds: at most 3 flows per GPU of a node per rank,
// models/collectives/all_to_all_fold.hpp), else (--full, or what breaks the fold's symmetry)
// opens every ordered pair at once, n(n-1); a ring or tree collective at most 4n; a
// training step at most 8n (a few collectives in flight per group, plus send/recv).
// ops: the operations of every program (ranks share programs; estimate_program_ops bounds them),
// per_op 160 B (a 32 B Op, its name: a 32 B std::string, and the vectors' growth: measured 140 B
// per op with collective.iterations = 2,000,000, 287 MB against 6.6 MB for 1,000). Each rank keeps one
// byte per event of its own program (rank_ops = kEventsPerOp x ops / programs; Llama 3 405B under
// Megatron on 131,072 GPUs measured 23 MB more per micro-batch from 16 to 32, 175 B per rank where
// rank_ops gives 198; with one byte per op it refused 64 micro-batches at 4.7 GiB, which run in
// about 1.7 GB).
// The estimate runs on the scenario alone: run_scenario calls it before the World is built.
#include <cstdint>
#include <string>

#include "models/spec.hpp"

namespace models {

inline constexpr double kRamBudgetBytes = 4.0 * 1024 * 1024 * 1024;  // a laptop's share: 4 GB
// A program's events (one per Record: an event a Wait reads) at most this share of its operations:
// measured at most 0.335 over every strategy's programs, Megatron's interleaved, context- and
// expert-parallel and ZB-H1 ones included (tests/models/run/ram_budget_test.cpp checks the bound).
inline constexpr double kEventsPerOp = 0.5;

struct RunRamEstimate {
  double bytes = 0;
  double peak_flows = 0;
  double ops = 0;       // operations of all programs together
  double programs = 1;  // distinct programs (Megatron: one per pipeline stage)
};

// An upper bound of the operations the strategy step builds, from the scenario alone:
//   bare collective: iterations (sendrecv: a send, a receive and two joins each);
//   training step: kOpsPerUnitStep x (layers + 2 pp) x micro-steps, where a unit is a decoder block
//   (or the embedding and head of each stage) and micro-steps are the pipeline's micro-batches,
//   grad_accum, or global_batch / (micro_batch x dp) as the layout derives it (estimate_run_ram
//   knows the GPU count; estimate_program_ops takes dp = 1, the bound for any count).
//   tests/models/run/ram_budget_test.cpp checks the bound against the programs every strategy
//   builds.
struct ProgramOps {
  double ops = 0;
  double programs = 1;
};
ProgramOps estimate_program_ops(const ScenarioSpec& spec);

// Whether a bare alltoall of this scenario runs folded, from the scenario alone: not
// under --full, and nothing the fold refuses that the scenario shows (NIC or link stragglers, NET/Socket
// by NCCL_NET, by an EFA plugin that finds no provider or between nodes without NICs, GPUDirect RDMA
// off by NCCL_NET_GDR_LEVEL, a fabric that hashes pairs over ECMP paths, cuts uneven pods or has a
// third tier). A non-blocking fabric builds no links to hash over: it folds whatever its spreading.
bool alltoall_folds(const ScenarioSpec& spec, bool full);

RunRamEstimate estimate_run_ram(const ScenarioSpec& spec, int ranks, bool full = false);

// Throws SpecError (at the key to change) when the estimate exceeds kRamBudgetBytes, naming
// the estimate, the limit and what would fit.
void check_ram_budget(const ScenarioSpec& spec, int ranks, bool full = false);

}  // namespace models
