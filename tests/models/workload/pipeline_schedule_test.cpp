// Megatron-Core's pipeline orders (models/workload/pipeline_schedule.hpp) against schedules.py.
#include <catch2/catch.hpp>

#include "models/workload/pipeline_schedule.hpp"

using namespace models::workload;
using Kind = PipeStep::Kind;

TEST_CASE("pipeline schedule: the schedule table is Megatron-Core's docstring example", "[workload]") {
  // schedules.py: "the tunable schedule table for PP2 N3M5 with VP2":
  //   microbatch_id  | 0 1 2 0 1 2 3 4 3 4 ; model_chunk_id | 0 0 0 1 1 1 0 0 1 1
  const auto t = megatron_schedule_table(5, 2, 3);
  const int mb[] = {0, 1, 2, 0, 1, 2, 3, 4, 3, 4}, chunk[] = {0, 0, 0, 1, 1, 1, 0, 0, 1, 1};
  REQUIRE(t.size() == 10);
  for (int k = 0; k < 10; ++k) {
    CHECK(t[k].micro_batch == mb[k]);
    CHECK(t[k].chunk == chunk[k]);
  }
}

TEST_CASE("pipeline schedule: plain 1F1B warms up p - s - 1 forwards, then alternates", "[workload]") {
  const int p = 4, m = 8;
  for (int s = 0; s < p; ++s) {
    const auto steps = megatron_pipeline_schedule(p, 1, m, s, false);
    std::vector<PipeStep> passes;
    for (const auto& st : steps)
      if (st.kind != Kind::Comm) passes.push_back(st);
    REQUIRE(passes.size() == 2 * m);
    const int warmup = p - s - 1;
    for (int i = 0; i < warmup; ++i) CHECK(passes[i].kind == Kind::Forward);
    // Steady state: F, B, F, B ...; then the warm-up's backwards.
    for (int i = 0; i < 2 * (m - warmup); ++i)
      CHECK(passes[warmup + i].kind == (i % 2 == 0 ? Kind::Forward : Kind::Backward));
    for (int i = 0; i < warmup; ++i) CHECK(passes[2 * m - 1 - i].kind == Kind::Backward);
    // Micro-batches go through forward and backward in order.
    int f = 0, b = 0;
    for (const auto& st : passes) CHECK(st.at.micro_batch == (st.kind == Kind::Forward ? f++ : b++));
  }
}

TEST_CASE("pipeline schedule: every receive meets a send and a pass that uses it", "[workload]") {
  // For every stage: receives of activations = forwards that need an input (all but chunk 0 of
  // stage 0); receives of gradients = backwards that need one (all but the last chunk of the last
  // stage); and each stage receives exactly what its neighbour sends it.
  for (int p : {2, 3, 4, 5, 8})
    for (int v : {1, 2, 3})
      for (int groups : {1, 2, 3})
        for (bool overlap : {false, true}) {
          if (v > 1 && p < 3 && !overlap) continue;  // Megatron: pp > 2 without overlap_p2p_comm
          const int m = v > 1 ? p * groups : p * groups + 1;
          INFO("p " << p << " v " << v << " m " << m << " overlap " << overlap);
          std::vector<int> sent_next(p), sent_prev(p), recv_prev(p), recv_next(p), need_in(p), need_grad(p);
          for (int s = 0; s < p; ++s) {
            int forwards = 0, backwards = 0;
            for (const auto& st : megatron_pipeline_schedule(p, v, m, s, overlap)) {
              sent_next[s] += st.send_next;
              sent_prev[s] += st.send_prev;
              recv_prev[s] += st.recv_prev;
              recv_next[s] += st.recv_next;
              if (st.kind == Kind::Forward) {
                ++forwards;
                need_in[s] += !(s == 0 && st.at.chunk == 0);
              } else if (st.kind == Kind::Backward) {
                ++backwards;
                need_grad[s] += !(s == p - 1 && st.at.chunk == v - 1);
              }
            }
            CHECK(forwards == m * v);
            CHECK(backwards == m * v);
          }
          for (int s = 0; s < p; ++s) {
            CHECK(recv_prev[s] == need_in[s]);
            CHECK(recv_next[s] == need_grad[s]);
            CHECK(recv_prev[s] == sent_next[(s + p - 1) % p]);
            CHECK(recv_next[s] == sent_prev[(s + 1) % p]);
          }
        }
}

TEST_CASE("pipeline schedule: interleaved warm-up is 2 (p - s - 1) + (v - 1) p forwards", "[workload]") {
  const int p = 4, v = 2, m = 8;
  for (int s = 0; s < p; ++s) {
    const auto steps = megatron_pipeline_schedule(p, v, m, s, false);
    int warm = 0;
    for (const auto& st : steps) {
      if (st.kind == Kind::Backward) break;
      warm += st.kind == Kind::Forward;
    }
    // The steady state starts with one more forward before its first backward.
    CHECK(warm == 2 * (p - s - 1) + (v - 1) * p + 1);
  }
}
