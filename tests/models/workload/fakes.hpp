#pragma once
// Test doubles for the workload tests: a collective engine that returns closed-form ring times
// (no flows), and a World of n ranks with no links (PCIe copies use the executor's fallback).
#include <deque>
#include <memory>
#include <string>

#include "models/collectives/collective.hpp"
#include "models/world/world.hpp"

namespace workload_test {

// Ring times on idle links: T = alpha + f(op, n) * S / B with f = 2(n-1)/n (all-reduce),
// (n-1)/n (all-gather, reduce-scatter), 1 (send/recv).
class FakeEngine : public models::collectives::CollectiveEngine {
 public:
  FakeEngine(sim::Simulator& sim, double alpha_s, double bytes_per_s) : sim_(sim), alpha_(alpha_s), bw_(bytes_per_s) {}
  static double factor(models::nccl::CollOp op, int n) {
    using models::nccl::CollOp;
    if (op == CollOp::AllReduce) return 2.0 * (n - 1) / n;
    if (op == CollOp::SendRecv) return 1.0;
    return double(n - 1) / n;
  }
  double time(models::nccl::CollOp op, int n, int64_t bytes) const {
    return alpha_ + factor(op, n) * double(bytes) / (bw_ * scale_);
  }
  void set_rate_scale(double scale) override { scale_ = scale; }
  void launch(const models::collectives::Group& g, models::nccl::CollOp op, int64_t bytes, Done done,
              bool = false) override {
    ++launched;
    total_s += time(op, int(g.ranks.size()), bytes);
    defer(time(op, int(g.ranks.size()), bytes), std::move(done), choose(g, op, bytes));
  }
  void send_recv(int, int, int64_t bytes, Done done, const std::vector<int>* = nullptr) override {
    ++launched;
    defer(time(models::nccl::CollOp::SendRecv, 2, bytes), std::move(done),
          models::collectives::CollectiveRecord{models::nccl::CollOp::SendRecv, bytes});
  }
  models::collectives::CollectiveRecord choose(const models::collectives::Group&, models::nccl::CollOp op,
                                               int64_t bytes) const override {
    return models::collectives::CollectiveRecord{op, bytes};
  }
  int launched = 0;
  double scale_ = 1;  // set_rate_scale (comm.overlap_slowdown)
  double total_s = 0;

 private:
  // Handlers hold an index: a Done does not fit inside a simulator handler.
  void defer(double seconds, Done done, models::collectives::CollectiveRecord rec) {
    pending_.push_back({std::move(done), rec});
    const std::size_t i = pending_.size() - 1;
    sim_.schedule_in(sim::Time::from_seconds(seconds), [this, i] { pending_[i].first(pending_[i].second); });
  }
  sim::Simulator& sim_;
  double alpha_, bw_;
  std::deque<std::pair<Done, models::collectives::CollectiveRecord>> pending_;
};

class FakeWorld : public models::World {
 public:
  explicit FakeWorld(int n) : placement_{1, n, 1}, ranks_(n) {
    for (int r = 0; r < n; ++r) ranks_[r] = models::RankInfo{r, 0, r, r, 0};
    node_.gpu = models::hw::find_gpu("H200");
    node_.gpus = n;
  }
  int size() const override { return int(ranks_.size()); }
  int nodes() const override { return 1; }
  const models::RankInfo& rank(int r) const override { return ranks_[r]; }
  models::Transport transport(int, int) const override {
    models::Transport t;
    t.label = "FAKE";
    return t;
  }
  void path(int, int, std::vector<sim::LinkId>&) const override {}
  void host_to_gpu(int, std::vector<sim::LinkId>&) const override {}
  void gpu_to_host(int, std::vector<sim::LinkId>&) const override {}
  std::string describe() const override { return "fake"; }
  const models::topology::Placement& placement() const override { return placement_; }
  const models::hw::NodeSpec& node() const override { return node_; }
  const models::nccl::NcclEnv& nccl_env() const override { return env_; }

 private:
  models::nccl::NcclEnv env_;
  models::topology::Placement placement_;  // one node, one GPU per pod
  models::hw::NodeSpec node_;
  std::vector<models::RankInfo> ranks_;
};

}  // namespace workload_test
