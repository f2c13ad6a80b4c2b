// Megatron-Core's 1F1B and interleaved 1F1B orders (see pipeline_schedule.hpp). Each function
// follows the Python it names in megatron/core/pipeline_parallel/schedules.py (NVIDIA/Megatron-LM,
// main of 2025-2026), without the forward-only and overlap_p2p_comm_warmup_flush paths.
#include "models/workload/steps/pipeline_schedule.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace models::workload {

namespace {

using Kind = PipeStep::Kind;

PipeStep pass(Kind k, ChunkRef at) {
  PipeStep s;
  s.kind = k;
  s.at = at;
  return s;
}

void comm(std::vector<PipeStep>& out, bool send_next, bool send_prev, bool recv_prev, bool recv_next,
          bool blocking = true) {
  if (!(send_next || send_prev || recv_prev || recv_next)) return;
  PipeStep s;
  s.send_next = send_next;
  s.send_prev = send_prev;
  s.recv_prev = recv_prev;
  s.recv_next = recv_next;
  s.blocking = blocking;
  out.push_back(s);
}

// The warm-up of forward_backward_pipelining_without_interleaving (shared by ZB-H1): `warmup`
// forwards, each received and sent on, then the first steady forward's input received.
void warm_up(std::vector<PipeStep>& out, int warmup, int remaining, bool first, bool last) {
  for (int i = 0; i < warmup; ++i) {
    comm(out, false, false, !first, false);  // recv_forward
    out.push_back(pass(Kind::Forward, {i, 0}));
    comm(out, !last, false, false, false);  // send_forward
  }
  if (remaining > 0) comm(out, false, false, !first, false);
}

// forward_backward_pipelining_without_interleaving.
std::vector<PipeStep> plain_1f1b(int p, int m, int s) {
  std::vector<PipeStep> out;
  const bool first = s == 0, last = s == p - 1;
  const int warmup = std::min(p - s - 1, m), remaining = m - warmup;
  warm_up(out, warmup, remaining, first, last);
  for (int i = 0; i < remaining; ++i) {
    out.push_back(pass(Kind::Forward, {warmup + i, 0}));
    comm(out, !last, false, false, !last);  // send_forward_recv_backward
    out.push_back(pass(Kind::Backward, {i, 0}));
    if (i == remaining - 1)
      comm(out, false, !first, false, false);  // send_backward
    else
      comm(out, false, !first, !first, false);  // send_backward_recv_forward
  }
  for (int i = 0; i < warmup; ++i) {
    comm(out, false, false, false, !last);  // recv_backward
    out.push_back(pass(Kind::Backward, {remaining + i, 0}));
    comm(out, false, !first, false, false);  // send_backward
  }
  return out;
}

// ZB-H1 (pipeline_schedule.hpp): 1F1B's order and p2p batches, the backward split into B and W.
// B's gradient is sent asynchronously (blocking = false) so that W runs while it travels; the next
// forward's input is then received in its own batch. The first `deferred` rounds' W run at the end.
std::vector<PipeStep> zb_h1(int p, int m, int s) {
  std::vector<PipeStep> out;
  const bool first = s == 0, last = s == p - 1;
  const int warmup = std::min(p - s - 1, m), remaining = m - warmup;
  const int deferred = std::min(s, remaining);
  warm_up(out, warmup, remaining, first, last);
  for (int i = 0; i < remaining; ++i) {
    out.push_back(pass(Kind::Forward, {warmup + i, 0}));
    comm(out, !last, false, false, !last);  // send_forward_recv_backward
    out.push_back(pass(Kind::BackwardInput, {i, 0}));
    comm(out, false, !first, false, false, false);  // send_backward, asynchronous
    if (i >= deferred) out.push_back(pass(Kind::BackwardWeight, {i, 0}));
    if (i != remaining - 1) comm(out, false, false, !first, false);  // recv_forward
  }
  for (int i = 0; i < warmup; ++i) {
    comm(out, false, false, false, !last);  // recv_backward
    out.push_back(pass(Kind::BackwardInput, {remaining + i, 0}));
    comm(out, false, !first, false, false, false);  // send_backward, asynchronous
    out.push_back(pass(Kind::BackwardWeight, {remaining + i, 0}));
  }
  for (int i = 0; i < deferred; ++i) out.push_back(pass(Kind::BackwardWeight, {i, 0}));
  return out;
}

class Interleaved {
 public:
  Interleaved(int p, int v, int m, int s, bool overlap)
      : p_(p), v_(v), m_(m), s_(s), overlap_(overlap), table_(megatron_schedule_table(m, v, p)) {
    total_ = m * v;
    // get_pp_rank_microbatches.
    warmup_ = (p - s - 1) * 2 + (v - 1) * p;
    all_warmup_ = warmup_ >= total_;
    warmup_ = std::min(warmup_, total_);
  }

  std::vector<PipeStep> build() {
    std::vector<PipeStep> out;
    const int remaining = total_ - warmup_;
    comm(out, false, false, !first(), false);  // recv_forward before the first forward
    for (int k = 0; k < warmup_; ++k) {
      out.push_back(pass(Kind::Forward, fwd(k)));
      bool recv_prev = recv_from_previous_stage(k, true);
      if (k == total_ - 1) recv_prev = false;
      const bool send = !(fwd(k).chunk == v_ - 1 && last());
      if (k == warmup_ - 1 && !overlap_ && !all_warmup_) {
        comm(out, send, false, recv_prev, !last());  // send_forward_backward_recv_forward_backward
      } else {
        comm(out, send, false, recv_prev, false);  // send_forward_recv_forward
        if (overlap_ && k == warmup_ - 1 && !all_warmup_) comm(out, false, false, false, !last(), false);
      }
    }
    for (int k = 0; k < remaining; ++k) {
      const int fk = k + warmup_;
      const bool send_next = !(fwd(fk).chunk == v_ - 1 && last());
      const bool send_prev = !(bwd(k).chunk == 0 && first());
      bool recv_prev = recv_from_previous_stage(fk, true);
      const bool recv_next = recv_from_previous_stage(k, false);
      if (k == remaining - 1) recv_prev = false;
      out.push_back(pass(Kind::Forward, fwd(fk)));
      if (overlap_) {
        comm(out, send_next, false, recv_prev, false, false);  // post-forward, asynchronous
        out.push_back(pass(Kind::Backward, bwd(k)));
        comm(out, false, send_prev, false, recv_next, false);  // post-backward, asynchronous
      } else {
        out.push_back(pass(Kind::Backward, bwd(k)));
        comm(out, send_next, send_prev, recv_prev, recv_next);
      }
    }
    if (all_warmup_) comm(out, false, false, false, !last());  // recv_backward
    for (int k = remaining; k < total_; ++k) {
      out.push_back(pass(Kind::Backward, bwd(k)));
      bool recv_next = recv_from_previous_stage(k, false);
      if (k == total_ - 1) recv_next = false;
      comm(out, false, !(bwd(k).chunk == 0 && first()), false, recv_next);  // send_backward_recv_backward
    }
    return out;
  }

 private:
  bool first() const { return s_ == 0; }
  bool last() const { return s_ == p_ - 1; }
  int chunk(int k, bool forward) const {
    const int c = table_[k % total_].chunk;
    return forward ? c : v_ - 1 - c;
  }
  ChunkRef fwd(int k) const { return table_[k]; }
  ChunkRef bwd(int k) const { return {table_[k].micro_batch, v_ - 1 - table_[k].chunk}; }

  // recv_tensor_from_previous_stage: whether the batch after virtual micro-batch k receives.
  bool recv_from_previous_stage(int k, bool forward) const {
    const bool leading = forward ? first() : last();
    if (!leading) return true;
    if (k < p_ - 1) return false;  // the ending stage has produced nothing yet
    const int last_chunk = forward ? v_ - 1 : 0;
    return chunk(k - (p_ - 1), forward) != last_chunk;
  }

  int p_, v_, m_, s_;
  bool overlap_;
  std::vector<ChunkRef> table_;
  int total_ = 0, warmup_ = 0;
  bool all_warmup_ = false;
};

}  // namespace

std::vector<ChunkRef> megatron_schedule_table(int m, int v, int group) {
  std::vector<ChunkRef> table;
  table.reserve(std::size_t(m) * v);
  for (int lo = 0; lo < m; lo += group) {
    const int hi = lo + group >= m ? m : lo + group;  // the last group takes the rest
    for (int c = 0; c < v; ++c)
      for (int mb = lo; mb < hi; ++mb) table.push_back({mb, c});
  }
  return table;
}

std::vector<PipeStep> zb_h1_pipeline_schedule(int p, int m, int stage) {
  SIM_CHECK(p >= 1 && m >= 1 && stage >= 0 && stage < p, "pipeline schedule out of range");
  return zb_h1(p, m, stage);
}

std::vector<PipeStep> megatron_pipeline_schedule(int p, int v, int m, int stage, bool overlap_p2p_comm) {
  SIM_CHECK(p >= 1 && v >= 1 && m >= 1 && stage >= 0 && stage < p, "pipeline schedule out of range");
  if (v == 1) return plain_1f1b(p, m, stage);
  SIM_CHECK(m % p == 0, "interleaved 1F1B needs m a multiple of p (make_layout checks it)");
  return Interleaved(p, v, m, stage, overlap_p2p_comm).build();
}

}  // namespace models::workload
