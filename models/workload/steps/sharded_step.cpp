// The sharded data-parallel step's skeleton (sharded_step.hpp).
#include "models/workload/steps/sharded_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace models::workload {

using nccl::CollOp;
using sim::Time;

namespace {
constexpr int kMaxPiecesPerUnit = 8;  // reduce-scatter pieces of one unit (bounds event count)
}  // namespace

std::string mb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MB", bytes / 1e6);
  return buf;
}

ShardedStep::ShardedStep(const DataParallelConfig& c, double persistence_threshold, double max_reuse_distance)
    : c_(c), p_({"compute", "comm", "offload"}), n_(c.dp_shard > 0 ? c.dp_shard : c.dp) {
  const int64_t tokens = int64_t(c.training.micro_batch) * c.model.seq;
  units_ = decoder_units(c.model, tokens, c.rates, c.checkpoint, persistence_threshold, 1, max_reuse_distance);
  compute_bytes_ = dtype_bytes(c.training.dtype);
  param_bytes_ = c.training.param_dtype.empty() ? compute_bytes_ : dtype_bytes(c.training.param_dtype);
  reduce_bytes_ = fsdp_reduce_bytes(c.training);
}

Program ShardedStep::build() {
  const int accum = std::max(1, c_.training.grad_accum);
  accum_ = accum;
  for (int m = 0; m < accum; ++m) {
    micro_ = m;
    micro_step(m);
  }
  optimizer();
  return std::move(p_);
}

double ShardedStep::shard_params() const {
  int64_t total = 0;
  for (const auto& u : units_) total += u.params;
  return double(total) / n_;
}

uint32_t ShardedStep::issue_gather(int u, const std::string& phase, std::optional<uint32_t> after) {
  const Unit& unit = units_[u];
  const int s = comm_stream();
  // Backward of a checkpointed block: the recompute's gather plus the modules released after it.
  const int64_t params = unit.gathered + (phase == "bwd" ? unit.regathered : 0);
  before_gather(unit, params, after);
  const int64_t bytes = params * compute_bytes_;
  // In place, in both frameworks: DeepSpeed copies the shard into its slice of the flat output
  // and gathers from that slice (partition_parameters.py _all_gather_dtype); FSDP2 does the same
  // with its all-gather input (_fsdp_collectives.py foreach_all_gather).
  p_.collective(s, kDpSlot, CollOp::AllGather, bytes, "all_gather " + phase + " " + unit.name + " " + mb(double(bytes)),
                /*in_place=*/true);
  const uint32_t e = p_.new_event();
  p_.record(s, e);
  return e;
}

uint32_t ShardedStep::forward_gather(int u, std::optional<uint32_t> after) {
  if (gathers(u)) return issue_gather(u, "fwd", after);
  const uint32_t e = p_.new_event();
  p_.record(kComputeStream, e);
  return e;
}

void ShardedStep::use_gathered(int u, uint32_t ev) {
  p_.wait(kComputeStream, ev);
  after_gather(units_[u]);
}

void ShardedStep::micro_step(int m) {
  const int U = int(units_.size());
  const std::string tg = tag(m);
  std::vector<uint32_t> ready(U);
  // Forward.
  const uint32_t begin = p_.new_event();
  p_.record(kComputeStream, begin);
  for (int k = 0; k < std::max(depth_, 1) && k < U; ++k)
    if (depth_ > 0 || k == 0) ready[k] = forward_gather(k, begin);
  for (int u = 0; u < U; ++u) {
    if (depth_ == 0 && u > 0) ready[u] = forward_gather(u, std::nullopt);
    use_gathered(u, ready[u]);
    const uint32_t started = p_.new_event();
    p_.record(kComputeStream, started);
    if (depth_ > 0 && u + depth_ < U) ready[u + depth_] = forward_gather(u + depth_, started);
    p_.compute(kComputeStream, units_[u].fwd, Work::Math, tg + "fwd " + units_[u].name);
  }
  // Backward, last unit first; the last forward unit is still gathered.
  std::vector<int> order;
  for (int u = U - 1; u >= 0; --u) order.push_back(u);
  std::vector<uint32_t> bready(U);
  const uint32_t bbegin = p_.new_event();
  p_.record(kComputeStream, bbegin);
  auto needs = [&](int idx) { return idx > 0 && !kept_for_backward(order[idx]); };
  for (int k = 1; k <= depth_ && k < U; ++k)
    if (needs(k)) bready[order[k]] = issue_gather(order[k], "bwd", bbegin);
  reduced_.clear();
  for (int idx = 0; idx < U; ++idx) {
    const int u = order[idx];
    if (needs(idx)) {
      if (depth_ == 0) bready[u] = issue_gather(u, "bwd", std::nullopt);
      use_gathered(u, bready[u]);
    }
    const uint32_t started = p_.new_event();
    p_.record(kComputeStream, started);
    if (depth_ > 0 && idx >= 1 && idx + depth_ < U && needs(idx + depth_))
      bready[order[idx + depth_]] = issue_gather(order[idx + depth_], "bwd", started);
    if (units_[u].recompute > Time::zero())
      p_.compute(kComputeStream, units_[u].recompute, Work::Math, tg + "recompute " + units_[u].name);
    p_.compute(kComputeStream, units_[u].bwd, Work::Math, tg + "bwd " + units_[u].name);
    gradients_ready(units_[u], idx == U - 1);
  }
  // End of backward: wait for every reduction (DeepSpeed's and FSDP2's final callbacks do),
  // then cast/accumulate the reduced shards.
  for (uint32_t e : reduced_) p_.wait(kComputeStream, e);
  end_of_backward(m);
}

void ShardedStep::reduce(int64_t params, const std::string& name) {
  const int s = comm_stream();
  if (s != kComputeStream) p_.join(kComputeStream, s);
  const double bucket = reduce_piece_params(params);
  const int pieces = std::clamp(int(std::ceil(double(params) / bucket)), 1, kMaxPiecesPerUnit);
  const int64_t bytes = params * reduce_bytes_;
  for (int i = 0; i < pieces; ++i) {
    const int64_t b = bytes / pieces + (i == pieces - 1 ? bytes % pieces : 0);
    p_.collective(s, kDpSlot, CollOp::ReduceScatter, b, "reduce_scatter " + name + " " + mb(double(b)));
  }
  const uint32_t e = p_.new_event();
  p_.record(s, e);
  reduced_.push_back(after_reduce(params, name, e));
}

}  // namespace models::workload
