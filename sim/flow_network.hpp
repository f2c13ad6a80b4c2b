#pragma once
// sim::FlowNetwork: directed links with a capacity (bytes/s) and a latency; flows with a path, a
// size and an optional rate cap (a per-channel or protocol limit). Rates are max-min fair
// (progressive filling, Bertsekas & Gallager, "Data Networks", sec. 6.5.2).
//
// Incremental by design: an arrival or departure marks its links dirty, and one recompute per
// instant (Simulator::schedule_end_of_instant: after every other event of that instant) re-runs progressive filling
// only on the connected component of links and flows those links touch. Flows whose rate did not change keep their
// completion event. Cost per change is O(component · log component), independent of the flows elsewhere in the network.
// Fast paths, exact (the same doubles as progressive filling, tested against it): a dirty link left
// empty is skipped; a flow alone on every link of its path is a component of its own and gets
// min(cap, narrowest capacity) in O(path). Paths of up to kInlineHops links are stored in the
// flow record (no heap block per flow).
//
// Timing of one flow: its bytes occupy the links from start until they drain at the fair rate;
// the completion handler runs `latency` (sum over the path, plus any extra) after the drain.
// So on an idle link: T = latency + bytes / bandwidth.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/inplace_function.hpp"
#include "sim/simulator.hpp"
#include "sim/small_vector.hpp"
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

// One flow of a block (FlowNetwork::start_block): what start_with_latency takes, less the handler.
struct BlockFlow {
  std::span<const LinkId> path;
  int64_t bytes = 0;
  double rate_cap = kUnlimitedRate;
  Time latency;
};

class FlowNetwork {
 public:
  using Completion = InplaceFunction<void(), 48>;

  explicit FlowNetwork(Simulator& simulator) : sim_(simulator) {}
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  // capacity in bytes per second, per direction (a link is one direction).
  LinkId add_link(std::string_view name, std::string_view kind, double capacity_bytes_per_s, Time latency);
  // Room for `links` more links whose names take `name_bytes` bytes in all (a World adds a
  // million links at 131,072 GPUs: reserved, the records are never copied while it builds).
  void reserve_links(std::size_t links, std::size_t name_bytes);
  // Changes a link's capacity and latency before anything crosses it (a link built nominal, then
  // degraded: models/world/link_stragglers.hpp). Checked: no flow or block has used it.
  void set_link(LinkId l, double capacity_bytes_per_s, Time latency);

  // Starts a flow of `bytes` along `path` (distinct links). `on_done` runs when the last byte has
  // arrived: drain time + path latency + extra_latency.
  FlowId start(std::span<const LinkId> path, int64_t bytes, Completion on_done, double rate_cap = kUnlimitedRate,
               Time extra_latency = Time::zero());
  // The same, but the flow's latency is `latency` exactly, not the path's: for models that
  // account for latency themselves (a collective's pipeline latency is calibrated as a whole).
  FlowId start_with_latency(std::span<const LinkId> path, int64_t bytes, Completion on_done, double rate_cap,
                            Time latency);
  // Weighted flow (the all-to-all fold): one record that stands for `weight` identical
  // flows on `path` (each of bytes / weight, capped at rate_cap / weight, with this latency).
  // Progressive filling raises rates per unit of weight: a link's fair share is its remaining
  // capacity over the unfixed weight on it, and a flow of weight w is fixed at w times that share
  // (or at its cap) -- the rate the w flows would get together, since max-min gives identical
  // flows identical rates (the solution is unique). `bytes` may be fractional (a resumed share).
  // Weight 1 is exactly start_with_latency.
  FlowId start_weighted(std::span<const LinkId> path, double bytes, Completion on_done, double rate_cap, Time latency,
                        uint32_t weight);
  // Bytes a flow still has to drain now (0 once drained or not active).
  double remaining(FlowId id) const;

  // Watches (the all-to-all fold): `on_touch` runs once, inside the start of the first
  // flow that attaches to one of `links` while that link carries a flow, before that flow joins
  // (so the watcher can replace its own flows first: it may start and cancel flows). The watch
  // ends then, or at unwatch. A link has one watch at a time (the latest).
  uint32_t watch_links(std::span<const LinkId> links, Completion on_touch);
  void unwatch(uint32_t watch);
  // No flow on the link and no closed-form block holding it.
  bool link_idle(LinkId l) const;
  // set_closed_forms' setting (closed_forms() also says false in audit mode).
  bool closed_forms_requested() const { return closed_forms_; }
  // Closed form (flow_block.cpp). Starts `flows` together as one block if every link they cross
  // is idle (no flow, no other block) and no two of them share a link: each then runs alone at
  // min(cap, narrowest capacity), the rate progressive filling gives a flow alone on its path, so
  // the block is solved at once and costs two events (its last drain, its last arrival) instead
  // of two per flow. `on_all_done` runs when the last flow has arrived (max of drain + latency),
  // at the same picosecond as with flows. Guard: a flow attached later to a link the block still
  // holds turns the block back into flows first (materialize: each undrained flow resumes with the
  // state it would have had as a flow), so contention is rated exactly from that instant on.
  // Returns false, starting nothing, when the block cannot run in closed form (links busy, shared
  // links, closed forms off, audit mode): the caller then starts its flows one by one.
  // `shape` (non-zero): the caller's name for this exact list of flows; a block that runs in
  // closed form is then remembered, and start_cached_block(shape) repeats it without the list.
  bool start_block(std::span<const BlockFlow> flows, Completion on_all_done, uint64_t shape = 0);
  // The part of a block that runs alone: when start_block refused `flows` because some
  // of them share links or find links busy, starts as one closed-form block those whose every link
  // is idle and crossed by no other flow of `flows` -- each of them is then a max-min component of
  // its own as a flow too, for as long as no flow arrives on its links (the guard), so the block
  // is exact as start_block's is. Sets solo[i] (resized to flows.size()) for them and returns how
  // many; 0: nothing started (closed forms off, or no flow alone). The caller starts the others
  // as flows, which never touch the solo ones' links.
  uint32_t start_solo_block(std::span<const BlockFlow> flows, Completion on_all_done, std::vector<uint8_t>& solo);
  // Repeats the remembered block `shape` in O(1) when the whole network is idle (no flow, no
  // other block): it then touches no link; its links are credited by settle_blocks(), and any
  // flow or block starting while it runs makes it an ordinary held block first (its links
  // marked), which the guard turns into flows only where links are shared. False: not remembered, or
  // the network is not idle (start it with start_block).
  bool start_cached_block(uint64_t shape, Completion on_all_done);
  // A new name for start_block's `shape`, never handed out before on this network. The network
  // names shapes, not its callers: several engines (one per [[jobs]] job) may share one network,
  // and a name each numbered from 1 would repeat another engine's block (its links, bytes, time).
  uint64_t new_shape() { return ++shapes_named_; }
  // Brings the links' accounting up to date (credits of repeated blocks, a repeated block still
  // running turned into flows): call before reading link_bytes / link_busy after a run.
  void settle_blocks();
  // Off: start_block always returns false (tests compare the two; --full).
  void set_closed_forms(bool on) { closed_forms_ = on; }
  bool closed_forms() const { return closed_forms_ && !audit_; }
  uint64_t blocks_closed() const { return blocks_closed_; }              // blocks solved in closed form
  uint64_t blocks_materialized() const { return blocks_materialized_; }  // of those, turned into flows
  uint64_t blocks_repeated() const { return blocks_repeated_; }          // of those, start_cached_block

  // Folded replicas (models/scale/step/replicas.hpp). A workload made of m identical replicas whose
  // own traffic stays on their own links simulates one replica for m: each class c of links (the
  // same link of every replica) gets a folded link, and the flows of the simulated replica's own
  // operations (started while set_fold_tag(true)) run on the folded links of their links, so that
  // they are rated exactly as any replica's own flows are in the full network (which never meet
  // another replica's). Every other flow (a data-parallel collective's, across replicas) runs on
  // the real links. That is exact as long as no other flow is on a link of class c while the
  // folded link of c carries a flow: the guard checks it at the end of every instant in which a flow
  // or block arrived on a classed link, and if it fails, records it and stops the simulator (the
  // caller then runs every replica). `class_of_link`: per link (add every link first), its class
  // or kNoClass; `capacity_of_class` etc. are taken from `model_of_class`, one link of each class.
  static constexpr uint32_t kNoClass = UINT32_MAX;
  void set_folded_links(std::vector<uint32_t> class_of_link, std::span<const LinkId> model_of_class);
  void set_fold_tag(bool on) { fold_tag_ = on; }
  bool fold_tag() const { return fold_tag_; }
  // No flow and no closed-form block in flight (set_folded_links may be called).
  bool idle() const { return active_flows_ == 0 && live_blocks_ == 0; }
  bool folded() const { return first_folded_ != UINT32_MAX; }
  bool is_folded_link(LinkId l) const { return folded() && l.index >= first_folded_; }
  // The folded link carrying the simulated replica's own flows for real link `l`'s class, if any.
  std::optional<LinkId> folded_link_of(LinkId l) const {
    if (!folded() || l.index >= class_of_link_.size() || class_of_link_[l.index] == kNoClass) return std::nullopt;
    return LinkId{first_folded_ + class_of_link_[l.index]};
  }
  // The guard failed: when, and on which class (its model link).
  bool fold_violated() const { return fold_violated_; }
  Time fold_violation_time() const { return violation_time_; }
  LinkId fold_violation_link() const { return violation_link_; }

  // Removes a flow that has not finished; its handler never runs. Returns false if not active.
  bool cancel(FlowId id);

  double rate(FlowId id) const;  // bytes/s now (0 until the instant's recompute has run)
  bool active(FlowId id) const;
  std::size_t active_flows() const { return active_flows_; }

  // Per-link accounting for reports.
  std::size_t link_count() const { return links_.size(); }
  std::string_view link_name(LinkId l) const {
    const uint32_t begin = l.index == 0 ? 0 : name_end_[l.index - 1];
    return std::string_view(names_).substr(begin, name_end_[l.index] - begin);
  }
  const std::string& link_kind(LinkId l) const { return kinds_[kind_of_link_[l.index]]; }
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
  // Off: every component goes through full progressive filling (tests compare the two).
  void set_fast_paths(bool on) { fast_paths_ = on; }
  uint64_t recomputes() const { return recomputes_; }
  uint64_t flows_rated() const { return flows_rated_; }  // sum of component sizes, for benches
  uint64_t single_flow_components() const { return single_flow_components_; }

  // Paths up to this many links live inside the flow record; longer ones in a buffer the record
  // keeps for its next flows. A cluster path is GPU, PCIe, NIC, fabric, NIC, PCIe, GPU at most.
  // A link's first 4 flows live in its record the same way.
  static constexpr uint32_t kInlineHops = 8;

 private:
  // What every arrival, departure and recompute touches comes first (one cache line).
  struct Link {
    SmallVector<uint32_t, 4> flows;  // active flow slots
    double capacity = 0;
    uint64_t mark = 0;      // == epoch_: in the component being rated
    uint64_t dirty = 0;     // == dirty_round_: already queued for this instant's recompute
    double bytes_done = 0;  // bytes of flows already drained or settled off this link
    Time busy_since;
    Time busy_total;
    Time latency;
    uint64_t weight = 0;          // sum of the weights of `flows`
    uint32_t local = 0;           // its number in the component being rated (rate_component)
    uint32_t watch = UINT32_MAX;  // watch_links
    // Held by a closed-form block (flow_block.cpp): its flow `held_flow` drains at held_until;
    // held_by is cleared when the block credits the link's bytes and busy time.
    Time held_until;
    uint32_t held_by = UINT32_MAX;
    uint32_t held_flow = 0;
  };
  struct Hop {
    uint32_t link;
    uint32_t position;  // index of the flow in links_[link].flows
  };
  enum class State : uint8_t { Free, Flowing, Draining };
  struct Flow {
    double remaining = 0;  // bytes still to drain at last_update
    double total = 0;
    double rate = 0;
    double cap = kUnlimitedRate;
    Time last_update;
    Time latency;
    EventId event;  // Flowing: when it drains; Draining: when its last byte arrives
    uint32_t generation = 0;
    uint32_t weight = 1;  // start_weighted
    State state = State::Free;
    SmallVector<Hop, kInlineHops> hops;  // the path
    Completion on_done;
  };

  // A block solved in closed form (flow_block.cpp).
  struct HeldFlow {
    SmallVector<uint32_t, kInlineHops> links;
    double total = 0;
    double rate = 0;
    double cap = kUnlimitedRate;
    Time latency;
    Time drain;  // when its last byte leaves the links
  };
  struct Block {
    std::vector<HeldFlow> flows;  // the first `count` are this block's (records are reused)
    uint32_t count = 0;
    uint32_t solution = UINT32_MAX;  // a repeated block (start_cached_block): its flows are there
    Time start;
    Time last_drain;
    Time finish;    // max of drain + latency
    Time floor;     // materialized: arrivals of flows drained before materialization
    EventId event;  // at last_drain (credit), then at finish
    Completion on_all_done;
    uint32_t outstanding = 0;  // materialized: flows still to arrive
    bool materialized = false;
    bool credited = false;
  };
  // A remembered block: its flows with drain times relative to its start.
  struct Solution {
    std::vector<HeldFlow> flows;
    Time last_drain, finish;
    uint64_t uncredited = 0;  // repeated runs whose link credits wait for settle_blocks()
  };
  void block_drained(uint32_t b);
  void block_finished(uint32_t b);
  void block_flow_arrived(uint32_t b);
  void materialize(uint32_t b);
  void demote(uint32_t b);
  void credit_links(uint32_t b, uint32_t i);
  uint32_t alloc_slot();
  // Folded links: where a flow started now goes (a tagged flow's link: its class's folded link), and the guard.
  uint32_t route(uint32_t li) {
    if (!fold_tag_ || !folded()) return li;
    if (li < class_of_link_.size() && class_of_link_[li] != kNoClass) return first_folded_ + class_of_link_[li];
    violate(li);  // a replica's own flow on a link no class holds: its folded links would share it
    return li;
  }
  // A flow or block now occupies link li (held until `until` if a block's): note it for the guard.
  void occupy(uint32_t li, bool flow, Time until);
  void vacate(uint32_t li) {  // li's last flow left
    if (li < class_of_link_.size() && class_of_link_[li] != kNoClass) --real_flows_[class_of_link_[li]];
  }
  bool folded_busy(uint32_t c) const;
  bool real_busy(uint32_t c) const;
  void check_folds();
  void violate(uint32_t li);

  FlowId start_impl(std::span<const LinkId> path, double bytes, Completion on_done, double rate_cap, Time latency,
                    bool add_path_latency, uint32_t weight = 1);
  void fire_watch(uint32_t watch);
  void attach(uint32_t slot);
  void detach(uint32_t slot);
  void settle(Flow& f);
  // Queues a link for this instant's recompute, once (the first mark keeps its place).
  void mark_dirty(uint32_t li) {
    Link& l = links_[li];
    if (l.dirty == dirty_round_) return;
    l.dirty = dirty_round_;
    dirty_links_.push_back(li);
    if (!recompute_scheduled_) schedule_recompute();
  }
  void schedule_recompute();
  void recompute();
  void rate_component(uint32_t seed_link);
  bool rate_single_flow(uint32_t seed_link);
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
  std::vector<uint32_t> flow_pos_;  // its index in comp_flows_ (rate_component)
  std::vector<double> new_rate_;    // < 0: not fixed yet in the current filling
  // Cold, for reports: the links' names end to end in one buffer (no string object or heap block
  // per link), and their kinds interned (a handful of distinct ones).
  std::string names_;
  std::vector<uint32_t> name_end_;  // link i's name ends at name_end_[i] (and begins at name_end_[i - 1])
  std::vector<std::string> kinds_;
  std::vector<uint16_t> kind_of_link_;
  std::vector<uint32_t> free_flows_;
  std::vector<uint32_t> dirty_links_;
  bool recompute_scheduled_ = false;
  bool audit_ = false;
  bool fast_paths_ = true;
  bool closed_forms_ = true;
  std::vector<Solution> solutions_;
  std::unordered_map<uint64_t, uint32_t> solution_of_shape_;
  uint64_t shapes_named_ = 0;         // new_shape
  std::vector<uint32_t> uncredited_;  // solutions with uncredited runs
  uint32_t live_blocks_ = 0;          // blocks not drained yet
  uint32_t exclusive_ = UINT32_MAX;   // the repeated block running, if any
  std::vector<Block> blocks_;
  std::vector<uint32_t> free_blocks_;
  std::vector<BlockFlow> solo_flows_;  // start_solo_block's scratch
  // Folded links (set_folded_links): per real link its class; folded links are links first_folded_ + class.
  std::vector<uint32_t> class_of_link_;
  uint32_t first_folded_ = UINT32_MAX;
  bool fold_tag_ = false;
  std::vector<uint32_t> real_flows_;  // per class: real links of the class carrying flows
  std::vector<Time> real_held_;       // per class: latest drain of a block's flow on a real link of it
  std::vector<uint32_t> suspects_;    // classes to check at the end of this instant
  bool check_scheduled_ = false;
  bool fold_violated_ = false;
  Time violation_time_;
  LinkId violation_link_;
  struct Watch {
    std::vector<uint32_t> links;
    Completion on_touch;
    bool live = false;
  };
  std::vector<Watch> watches_;
  std::vector<uint32_t> free_watches_;
  uint64_t blocks_closed_ = 0;
  uint64_t blocks_materialized_ = 0;
  uint64_t blocks_repeated_ = 0;
  std::size_t active_flows_ = 0;
  uint64_t epoch_ = 0;
  uint64_t dirty_round_ = 1;
  uint64_t recomputes_ = 0;
  uint64_t flows_rated_ = 0;
  uint64_t single_flow_components_ = 0;
  // scratch, reused across recomputes so the hot path does not allocate
  std::vector<uint32_t> seeds_, comp_links_, comp_flows_, stack_;
  // progressive filling's dense scratch (rate_component): per local link its global index,
  // remaining capacity, unfixed weight and version; the component's links in walk order (local);
  // per component flow its links (local, from comp_hop_begin_[k]), cap and weight; the capped
  // flows by (cap per unit of weight, slot).
  std::vector<uint32_t> local_link_, local_version_, comp_local_, comp_hops_, comp_hop_begin_, comp_weight_;
  std::vector<double> local_remaining_, comp_cap_;
  std::vector<uint64_t> local_unfixed_;
  std::vector<std::pair<double, uint32_t>> capped_;
  struct Share {
    double share;
    uint32_t link;
    uint32_t version;
  };
  std::vector<Share> heap_;
};

}  // namespace sim
