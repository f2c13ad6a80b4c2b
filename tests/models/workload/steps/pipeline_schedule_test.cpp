// Megatron-Core's pipeline orders (models/workload/steps/pipeline_schedule.hpp) against schedules.py.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "models/workload/steps/pipeline_schedule.hpp"

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

namespace {

// Each stage runs its passes in list order; a forward waits for the previous stage's forward of its
// micro-batch, a backward (B, or B+W) for the next stage's. Communication takes no time. Returns
// the makespan.
double pipeline_makespan(int p, const std::vector<std::vector<PipeStep>>& lists, double tf, double tb, double tw) {
  std::vector<std::vector<double>> fwd_done(p), bwd_done(p);
  const int m = 1 + [&] {
    int mx = 0;
    for (const auto& l : lists)
      for (const auto& st : l) mx = std::max(mx, st.at.micro_batch);
    return mx;
  }();
  for (int s = 0; s < p; ++s) fwd_done[s].assign(m, -1), bwd_done[s].assign(m, -1);
  std::vector<double> free(p, 0);
  std::vector<std::size_t> next(p, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s)
      for (; next[s] < lists[s].size(); ++next[s], progress = true) {
        const PipeStep& st = lists[s][next[s]];
        const int mb = st.at.micro_batch;
        double ready = free[s], length = 0;
        if (st.kind == Kind::Comm) continue;
        if (st.kind == Kind::Forward) {
          if (s > 0 && fwd_done[s - 1][mb] < 0) break;
          ready = std::max(ready, s > 0 ? fwd_done[s - 1][mb] : 0.0);
          length = tf;
        } else if (st.kind == Kind::BackwardWeight) {
          length = tw;
        } else {
          if (s + 1 < p && bwd_done[s + 1][mb] < 0) break;
          ready = std::max(ready, s + 1 < p ? bwd_done[s + 1][mb] : 0.0);
          length = st.kind == Kind::Backward ? tb + tw : tb;
        }
        free[s] = ready + length;
        if (st.kind == Kind::Forward) fwd_done[s][mb] = free[s];
        if (st.kind == Kind::Backward || st.kind == Kind::BackwardInput) bwd_done[s][mb] = free[s];
      }
  }
  for (int s = 0; s < p; ++s) REQUIRE(next[s] == lists[s].size());  // no deadlock
  return *std::max_element(free.begin(), free.end());
}

}  // namespace

TEST_CASE("pipeline schedule: ZB-H1 runs F, B, W of every micro-batch in order and defers s W passes", "[workload]") {
  for (int p : {2, 4, 8})
    for (int m : {1, 3, p, 2 * p + 1}) {
      INFO("p " << p << " m " << m);
      std::vector<int> sent_next(p), sent_prev(p), recv_prev(p), recv_next(p);
      for (int s = 0; s < p; ++s) {
        std::vector<int> f(m, 0), b(m, 0), w(m, 0);
        int order = 0, w_after_last_b = 0;
        bool all_b_done = false;
        int b_count = 0;
        for (const auto& st : zb_h1_pipeline_schedule(p, m, s)) {
          sent_next[s] += st.send_next;
          sent_prev[s] += st.send_prev;
          recv_prev[s] += st.recv_prev;
          recv_next[s] += st.recv_next;
          if (st.kind == Kind::Comm) {
            CHECK((st.blocking || (st.send_prev && !st.send_next && !st.recv_prev && !st.recv_next)));
            continue;
          }
          REQUIRE(st.kind != Kind::Backward);
          const int mb = st.at.micro_batch;
          ++order;
          if (st.kind == Kind::Forward) f[mb] = order;
          if (st.kind == Kind::BackwardInput) {
            CHECK(f[mb] > 0);
            b[mb] = order;
            all_b_done = ++b_count == m;
          }
          if (st.kind == Kind::BackwardWeight) {
            CHECK(b[mb] > 0);
            w[mb] = order;
            if (all_b_done) ++w_after_last_b;
          }
        }
        for (int i = 0; i < m; ++i) CHECK((f[i] > 0 && b[i] > f[i] && w[i] > b[i]));
        // The last B is followed by the deferred W (the first min(s, m - warm-up) rounds') and by its
        // own W unless that is one of them.
        const int deferred = std::min(s, m - std::min(p - s - 1, m));
        CHECK(w_after_last_b == deferred + (m - 1 >= deferred ? 1 : 0));
      }
      for (int s = 0; s < p; ++s) {
        CHECK(recv_prev[s] == (s == 0 ? 0 : m));
        CHECK(recv_next[s] == (s == p - 1 ? 0 : m));
        if (s > 0) CHECK(recv_prev[s] == sent_next[s - 1]);
        if (s + 1 < p) CHECK(recv_next[s] == sent_prev[s + 1]);
      }
    }
}

TEST_CASE("pipeline schedule: ZB-H1's bubble is (p - 1)(T_F + T_B - T_W), 1F1B's (p - 1)(T_F + T_B + T_W)",
          "[workload]") {
  // Qi et al. 2024, section 3.1 (m >= p). Pass times in arbitrary units, communication free.
  for (int p : {2, 4, 8})
    for (int m : {p, 2 * p, 2 * p + 3})
      for (auto [tf, tb, tw] : {std::tuple{1.0, 1.0, 1.0}, {2.0, 1.0, 1.0}, {1.0, 1.0, 0.5}}) {
        INFO("p " << p << " m " << m << " tf " << tf << " tb " << tb << " tw " << tw);
        std::vector<std::vector<PipeStep>> one_f_one_b, zb;
        for (int s = 0; s < p; ++s) {
          one_f_one_b.push_back(megatron_pipeline_schedule(p, 1, m, s, false));
          zb.push_back(zb_h1_pipeline_schedule(p, m, s));
        }
        const double work = m * (tf + tb + tw);
        CHECK(pipeline_makespan(p, one_f_one_b, tf, tb, tw) == Approx(work + (p - 1) * (tf + tb + tw)));
        CHECK(pipeline_makespan(p, zb, tf, tb, tw) == Approx(work + (p - 1) * (tf + tb - tw)));
      }
}
