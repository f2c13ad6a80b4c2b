// When Megatron's overlapped data-parallel collectives start (megatron.cpp ParamGatherChain, the
// gradient buckets): the parameter all-gathers without and with virtual stages, and each chunk's
// gradient buckets, on 2 pipeline stages of 2 replicas with the distributed optimizer.
#include <catch2/catch.hpp>

#include <map>

#include "models/workload/executor.hpp"
#include "models/workload/steps/megatron.hpp"
#include "models/workload/steps/megatron_layer.hpp"
#include "tests/models/workload/steps/megatron_rig.hpp"

using namespace models::workload;
using namespace models::workload::megatron_slots;
using megatron_test::config_megatron;
using models::nccl::CollOp;

namespace {
// 8 layers of 50.3 M parameters over pp 2 (vp chunks each, m micro-batches) and dp 2, with the
// distributed optimizer and overlap_grad_reduce.
MegatronConfig two_stages_two_replicas(int vp, int m) {
  MegatronConfig c = config_megatron(8, 1, 2, vp, m);
  c.model.hidden = 2048, c.model.ffn = 8192, c.model.heads = 16, c.model.kv_heads = 16;
  c.layout.dp = 2;
  c.layout.distributed_optimizer = true;
  c.layout.overlap_grad_reduce = true;
  return c;
}
}  // namespace

TEST_CASE("megatron: without virtual stages the overlapped parameter all-gather starts at a stage's first forward",
          "[workload]") {
  // param_and_grad_buffer.py finish_param_sync: the forward pre-hook dispatches its bucket's gather,
  // waits for it, then dispatches the next bucket's; arguments.py turns align_param_gather off
  // without virtual stages. The second stage (one bucket) gathers after its first activation arrives.
  MegatronConfig c = two_stages_two_replicas(1, 2);
  c.layout.overlap_param_gather = true;
  const std::vector<Program> programs = build_megatron_programs(c);
  REQUIRE(programs.size() == 2);
  for (int stage : {0, 1}) {
    const Program& p = programs[stage];
    // Where each event is recorded on the compute stream.
    std::map<uint32_t, size_t> recorded_at;
    size_t first_recv_wait = p.ops[kCompute].size();
    std::map<uint32_t, bool> recv_event;
    for (const Op& o : p.ops[kRecvPrev])
      if (o.kind == OpKind::Record) recv_event[o.arg] = true;
    for (size_t i = 0; i < p.ops[kCompute].size(); ++i) {
      const Op& o = p.ops[kCompute][i];
      if (o.kind == OpKind::Record) recorded_at[o.arg] = i;
      if (o.kind == OpKind::Wait && recv_event.count(o.arg) && first_recv_wait == p.ops[kCompute].size())
        first_recv_wait = i;
    }
    // The data-parallel stream's first op waits for a point of the compute stream; on stage 1 that
    // point follows the wait for the first received activation.
    const std::vector<Op>& dp = p.ops[kDpComm];
    REQUIRE(!dp.empty());
    REQUIRE(dp.front().kind == OpKind::Wait);
    REQUIRE(recorded_at.count(dp.front().arg));
    if (stage == 1) CHECK(recorded_at.at(dp.front().arg) > first_recv_wait);
    int gathers = 0;
    for (const Op& o : dp) gathers += o.kind == OpKind::Collective && o.coll == CollOp::AllGather;
    CHECK(gathers == (stage == 0 ? 5 : 1));
  }
}

TEST_CASE(
    "megatron: with virtual stages a chunk's gradient buckets start together, pipeline-rank backwards after its last",
    "[workload]") {
  // schedules.py backward_step_helper_postprocess (align_grad_reduce, Megatron's default): every
  // backward runs under no_sync; chunk c's buckets start after this rank's backward number
  // (c's last backward + pipeline rank), or after the last backward.
  MegatronConfig c = two_stages_two_replicas(2, 4);
  c.layout.overlap_p2p_comm = true;
  const std::vector<Program> programs = build_megatron_programs(c);
  REQUIRE(programs.size() == 2);
  for (int stage : {0, 1}) {
    const Program& p = programs[stage];
    // Backward passes completed before each compute-stream position, and each chunk's last one.
    std::vector<int> passes_before(p.ops[kCompute].size() + 1, 0);
    std::map<uint32_t, size_t> recorded_at;
    std::string current;
    int passes = 0;
    std::map<int, int> last_of_chunk;  // chunk -> index of its last backward pass
    for (size_t i = 0; i < p.ops[kCompute].size(); ++i) {
      passes_before[i] = passes;
      const Op& o = p.ops[kCompute][i];
      if (o.kind == OpKind::Record) recorded_at[o.arg] = i;
      if (o.kind != OpKind::Compute) continue;
      const std::string& n = p.names[o.arg];
      if (n.find("bwd") == std::string::npos) continue;
      const std::string pass = n.substr(0, n.find(' ', n.find(' ') + 1));  // "mbK cJ"
      if (pass != current) {
        current = pass;
        last_of_chunk[pass.back() - '0'] = passes++;
      }
    }
    std::map<int, int> started_after;  // chunk -> backward passes done when its first bucket starts
    const std::vector<Op>& dp = p.ops[kDpComm];
    for (size_t i = 0; i < dp.size(); ++i) {
      if (dp[i].kind != OpKind::Collective || dp[i].coll != CollOp::ReduceScatter) continue;
      const std::string& n = p.names[dp[i].arg];
      const int chunk = n[1] - '0';  // "cJ grad bucket B"
      if (started_after.count(chunk)) continue;
      size_t w = i;
      while (w > 0 && dp[w].kind != OpKind::Wait) --w;
      REQUIRE(dp[w].kind == OpKind::Wait);
      started_after[chunk] = passes_before[recorded_at.at(dp[w].arg)];
    }
    REQUIRE(started_after.size() == 2);
    for (const auto& [chunk, done] : started_after) {
      INFO("stage " << stage << " chunk " << chunk);
      CHECK(done == std::min(last_of_chunk.at(chunk) + 1 + stage, passes));
    }
  }
}
