#pragma once
// sim::FlowNetwork: directed links with a capacity (bytes/s) and a latency; flows with a path, a
// size and an optional rate cap (a per-channel or protocol limit). Rates are max-min fair
// (progressive filling, Bertsekas & Gallager, "Data Networks", sec. 6.5.2).
//
// Incremental by design: an arrival or departure marks its links dirty, and one recompute per
// instant (Simulator::schedule_end_of_instant: after every other event of that instant) re-runs progressive filling
// only on the connected component of links and flows those links touch. Flows whose rate did not change keep their
// completion event. Cost per change is O(component · log component), independent of the flows elsewhere in the network.
//
// Timing of one flow: its bytes occupy the links from start until they drain at the fair rate;
// the completion handler runs `latency` (sum over the path, plus any extra) after the drain.
// So on an idle link: T = latency + bytes / bandwidth.
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "sim/inplace_function.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

namespace sim {

struct LinkId {
  uint32_t index = UINT32_MAX;
  bool operator==(const LinkId&) const = default;
};

struct FlowId {
  uint32_t slot = UINT32_MAX;
  uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

inline constexpr double kUnlimitedRate = std::numeric_limits<double>::infinity();

class FlowNetwork {
 public:
  using Completion = InplaceFunction<void(), 48>;

  explicit FlowNetwork(Simulator& simulator) : sim_(simulator) {}
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  // capacity in bytes per second, per direction (a link is one direction).
  LinkId add_link(std::string name, std::string kind, double capacity_bytes_per_s, Time latency);

  // Starts a flow of `bytes` along `path` (distinct links). `on_done` runs when the last byte has
  // arrived: drain time + path latency + extra_latency.
  FlowId start(std::span<const LinkId> path, int64_t bytes, Completion on_done, double rate_cap = kUnlimitedRate,
               Time extra_latency = Time::zero());
  // The same, but the flow's latency is `latency` exactly, not the path's: for models that
  // account for latency themselves (a collective's pipeline latency is calibrated as a whole).
  FlowId start_with_latency(std::span<const LinkId> path, int64_t bytes, Completion on_done, double rate_cap,
                            Time latency);
  // Removes a flow that has not finished; its handler never runs. Returns false if not active.
  bool cancel(FlowId id);

  double rate(FlowId id) const;  // bytes/s now (0 until the instant's recompute has run)
  bool active(FlowId id) const;
  std::size_t active_flows() const { return active_flows_; }

  // Per-link accounting for reports.
  std::size_t link_count() const { return links_.size(); }
  const std::string& link_name(LinkId l) const { return link_names_[l.index]; }
  const std::string& link_kind(LinkId l) const { return link_kinds_[l.index]; }
  double link_capacity(LinkId l) const { return links_[l.index].capacity; }
  Time link_latency(LinkId l) const { return links_[l.index].latency; }
  double link_bytes(LinkId l) const;  // bytes carried so far, including flows in progress
  Time link_busy(LinkId l) const;     // time with at least one flow on the link
  double link_load(LinkId l) const;   // sum of the current rates of its flows
  std::size_t link_flow_count(LinkId l) const { return links_[l.index].flows.size(); }

  // Audit mode: after every recompute, check (SIM_CHECK) that no link carries more than its
  // capacity and that the rates are max-min fair: every flow is at its cap or crosses a saturated
  // link on which no other flow gets more.
  void set_audit(bool on) { audit_ = on; }
  bool audit() const { return audit_; }  // models add their own checks when on
  uint64_t recomputes() const { return recomputes_; }
  uint64_t flows_rated() const { return flows_rated_; }  // sum of component sizes, for benches

 private:
  struct Link {
    double capacity = 0;
    Time latency;
    std::vector<uint32_t> flows;  // active flow slots
    double bytes_done = 0;        // bytes of flows already drained or settled off this link
    Time busy_total;
    Time busy_since;
    // scratch for progressive filling
    uint64_t mark = 0;
    double remaining = 0;
    uint32_t unfixed = 0;
    uint32_t version = 0;
  };
  enum class State : uint8_t { Free, Flowing, Draining };
  struct Flow {
    std::vector<LinkId> path;
    std::vector<uint32_t> position;  // index of this flow in links_[path[i]].flows
    Completion on_done;
    double remaining = 0;  // bytes still to drain at last_update
    double total = 0;
    double rate = 0;
    double cap = kUnlimitedRate;
    Time last_update;
    Time latency;
    EventId event;  // Flowing: when it drains; Draining: when its last byte arrives
    uint32_t generation = 0;
    State state = State::Free;
  };

  FlowId start_impl(std::span<const LinkId> path, int64_t bytes, Completion on_done, double rate_cap, Time latency,
                    bool add_path_latency);
  void attach(uint32_t slot);
  void detach(uint32_t slot);
  void settle(Flow& f);
  void mark_dirty(LinkId l);
  void schedule_recompute();
  void recompute();
  void rate_component(uint32_t seed_link);
  void apply_rate(uint32_t slot, double rate);
  void on_drained(uint32_t slot);
  void on_finished(uint32_t slot);
  void free_slot(uint32_t slot);
  void audit_component() const;

  Simulator& sim_;
  std::vector<Link> links_;
  std::vector<Flow> flows_;
  // Hot per-flow scratch of progressive filling, apart from the big Flow records so the
  // component walk and the bottleneck scans touch dense memory (8 bytes per flow).
  std::vector<uint64_t> flow_mark_;
  std::vector<double> new_rate_;                      // < 0: not fixed yet in the current filling
  std::vector<std::string> link_names_, link_kinds_;  // cold: reports only
  std::vector<uint32_t> free_flows_;
  std::vector<uint32_t> dirty_links_;
  bool recompute_scheduled_ = false;
  bool audit_ = false;
  std::size_t active_flows_ = 0;
  uint64_t epoch_ = 0;
  uint64_t recomputes_ = 0;
  uint64_t flows_rated_ = 0;
  // scratch, reused across recomputes so the hot path does not allocate
  std::vector<uint32_t> seeds_, comp_links_, comp_flows_, capped_, stack_;
  struct Share {
    double share;
    uint32_t link;
    uint32_t version;
  };
  std::vector<Share> heap_;
};

}  // namespace sim
