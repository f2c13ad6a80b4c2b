// Chrome trace event JSON (the "JSON Array/Object format" read by Perfetto and chrome://tracing):
// a process per node, a thread per rank and stream, complete ("X") events for compute and
// collectives, and a "links" process with one counter track per link (average utilisation over
// the step, as RunResult holds per-link totals, not a time series). Per rank: host work (CPU-Adam)
// on its own "cpu" thread, an "exposed comm" thread marking when the rank's communication ran
// while its compute stream was idle, and flow arrows ("s"/"f") joining the members of each
// collective. Members are recognised by op, name, start, end and size: identical collectives of
// different groups that start and end at the same instant are joined as one.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "viz/viz.hpp"

namespace viz {
namespace {

using nlohmann::json;

// Per rank: compute, comm, offload, cpu, exposed comm, others, offload d2h, then up to nine extra
// lanes of tracks whose slices overlap (see lanes below).
constexpr int kFixedSlots = 7, kStreamSlots = 16;
int stream_index(const std::string& s) {
  if (s == "compute") return 0;
  if (s == "comm") return 1;
  if (s == "offload") return 2;
  if (s == "cpu") return 3;
  if (s == "exposed comm") return 4;
  if (s == "offload d2h") return 6;
  return 5;
}
// The trace's track of a span: ZeRO-Offload's copies to and from the host overlap on one stream
// (two copy engines), and a track's slices must nest, so copies to the host get a track of their own.
std::string track_of(const models::TimelineEvent& e) {
  if (e.stream == "offload" && e.name.rfind("d2h", 0) == 0) return "offload d2h";
  return e.stream;
}
// At most this many flow arrows: beyond, a trace of thousands of ranks would be mostly arrows.
constexpr std::size_t kMaxFlows = 50'000;

using Span = std::pair<double, double>;
// Sorted, disjoint union of spans.
std::vector<Span> merged(std::vector<Span> v) {
  std::sort(v.begin(), v.end());
  std::vector<Span> out;
  for (const auto& s : v) {
    if (!out.empty() && s.first <= out.back().second)
      out.back().second = std::max(out.back().second, s.second);
    else
      out.push_back(s);
  }
  return out;
}
// Parts of `a` (merged) not covered by `b` (merged).
std::vector<Span> minus(const std::vector<Span>& a, const std::vector<Span>& b) {
  std::vector<Span> out;
  std::size_t j = 0;
  for (auto [lo, hi] : a) {
    while (j < b.size() && b[j].second <= lo) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < hi; ++k) {
      if (b[k].first > lo) out.push_back({lo, b[k].first});
      lo = std::max(lo, b[k].second);
    }
    if (lo < hi) out.push_back({lo, hi});
  }
  return out;
}
// Microseconds (the format's unit) at nanosecond resolution: no float noise (9724.149765999999).
double us(double s) { return std::isfinite(s) ? std::round(s * 1e9) / 1e3 : 0; }

// Each event's lane on its rank's track: slices of one track must not overlap (viewers draw an
// overlapping slice as a child or drop it), yet ZeRO-Offload's parameter prefetch and gradient
// copies to the GPU run at once on one stream. Per (rank, track), in order of start (the longer
// first), a slice goes to the first lane whose last slice has ended (at the trace's nanosecond
// resolution); lane 0 is the track itself, lane k the track named "<track> <k + 1>".
std::vector<int> lanes(const std::vector<models::TimelineEvent>& timeline, double t0) {
  std::map<std::pair<int, std::string>, std::vector<std::size_t>> by_track;
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const auto& e = timeline[i];
    if (std::isfinite(e.start_s) && std::isfinite(e.end_s)) by_track[{e.rank, track_of(e)}].push_back(i);
  }
  std::vector<int> lane(timeline.size(), 0);
  for (auto& [key, idx] : by_track) {
    auto start = [&](std::size_t i) { return us(timeline[i].start_s - t0); };
    auto end = [&](std::size_t i) { return std::max(start(i), us(timeline[i].end_s - t0)); };
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return start(a) != start(b) ? start(a) < start(b) : end(a) > end(b);
    });
    std::vector<double> lane_end;  // per lane, where its last slice ends
    for (std::size_t i : idx) {
      std::size_t k = 0;
      while (k < lane_end.size() && lane_end[k] > start(i)) ++k;
      if (k == lane_end.size()) lane_end.push_back(0);
      lane_end[k] = end(i);
      lane[i] = static_cast<int>(k);
    }
  }
  return lane;
}
// A RankBreakdown as trace arguments (keys of `run --json`); the terms add up to the step.
json breakdown_json(const models::RankBreakdown& b) {
  return {{"compute_s", b.compute_s},
          {"interference_s", b.interference_s},
          {"exposed_comm_s", b.exposed_comm_s},
          {"host_s", b.host_s},
          {"bubble_s", b.bubble_s},
          {"barrier_wait_s", b.barrier_wait_s},
          {"other_s", b.other_s}};
}
json meta(const char* what, int pid, int tid, json args) {
  return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace

std::string chrome_trace(const models::RunResult& r) {
  json events = json::array();
  std::map<int, int> node_of;
  int max_node = 0;
  for (const auto& k : r.ranks) {
    node_of[k.rank] = k.node;
    max_node = std::max(max_node, k.node);
  }
  auto pid_of = [&](int rank) {
    auto it = node_of.find(rank);
    return (it == node_of.end() ? 0 : it->second) + 1;  // pid 0 reads as "idle" in some viewers
  };
  // tid: rank-major, streams in a fixed order, so Perfetto lists rank 0 compute, rank 0 comm, ...;
  // a track's extra lanes take the rank's next free slots.
  std::map<std::pair<int, std::string>, int> lane_slot;  // (rank, lane's track name) -> slot
  std::map<int, int> lanes_of_rank;
  auto tid_of = [&](int rank, const std::string& stream) {
    if (auto it = lane_slot.find({rank, stream}); it != lane_slot.end()) return rank * kStreamSlots + it->second + 1;
    return rank * kStreamSlots + stream_index(stream) + 1;
  };
  auto lane_track = [&](int rank, const std::string& track, int lane) {
    if (lane == 0) return track;
    const std::string name = track + " " + std::to_string(lane + 1);
    if (!lane_slot.count({rank, name}))  // beyond the last slot: the last (never seen in a step)
      lane_slot[{rank, name}] = std::min(kStreamSlots - 1, kFixedSlots + lanes_of_rank[rank]++);
    return name;
  };

  double t0 = INFINITY, t1 = 0;
  for (const auto& e : r.timeline)
    if (std::isfinite(e.start_s)) t0 = std::min(t0, e.start_s);
  if (!std::isfinite(t0)) t0 = 0;
  std::map<int, bool> named_node;
  std::map<int, bool> named_thread;
  // A node is named when one of its ranks has a row: the timeline keeps only a few ranks at scale
  // (models/run/result_fill.hpp timeline_ranks), and a process per node without a row is an empty line in the viewer
  // (a 4,096-GPU run had 503 of them).
  auto name_node = [&](int pid) {
    if (named_node[pid]) return;
    named_node[pid] = true;
    events.push_back(meta("process_name", pid, 0, {{"name", "node " + std::to_string(pid - 1)}}));
    events.push_back(meta("process_sort_index", pid, 0, {{"sort_index", pid - 1}}));
  };
  auto name_thread = [&](int rank, const std::string& stream) {
    const int pid = pid_of(rank), tid = tid_of(rank, stream);
    name_node(pid);
    if (named_thread[tid]) return;
    named_thread[tid] = true;
    const std::string label = stream == "cpu" ? "cpu (host work)" : stream;
    events.push_back(meta("thread_name", pid, tid, {{"name", "rank " + std::to_string(rank) + " " + label}}));
    events.push_back(meta("thread_sort_index", pid, tid, {{"sort_index", tid}}));
  };
  // Per rank: communication in flight, and the compute stream's GPU work (host work is the CPU's).
  std::map<int, std::vector<Span>> comm_spans, compute_spans;
  // Collective members: (op, name, start, end, bytes) -> (rank, stream) of each member.
  std::map<std::tuple<std::string, std::string, double, double, int64_t>, std::vector<std::pair<int, std::string>>>
      members;
  const std::vector<int> lane = lanes(r.timeline, t0);
  for (std::size_t i = 0; i < r.timeline.size(); ++i) {
    const auto& e = r.timeline[i];
    if (!std::isfinite(e.start_s) || !std::isfinite(e.end_s)) continue;
    const std::string track = lane_track(e.rank, track_of(e), lane[i]);
    const int pid = pid_of(e.rank), tid = tid_of(e.rank, track);
    name_thread(e.rank, track);
    if (!e.op.empty()) {
      comm_spans[e.rank].push_back({e.start_s, e.end_s});
      if (e.op != "send_recv") members[{e.op, e.name, e.start_s, e.end_s, e.bytes}].push_back({e.rank, e.stream});
    } else if (e.stream == "compute") {
      compute_spans[e.rank].push_back({e.start_s, e.end_s});
    }
    json args = {{"rank", e.rank}, {"stream", e.stream}};
    if (!e.op.empty()) {
      args["op"] = e.op;
      args["bytes"] = e.bytes;
      if (!e.algo.empty()) args["algo"] = e.algo;
      if (!e.proto.empty()) args["proto"] = e.proto;
    }
    std::string name = e.name.empty() ? (e.op.empty() ? e.stream : e.op) : e.name;
    events.push_back({{"ph", "X"},
                      {"name", std::move(name)},
                      {"cat", e.op.empty() ? e.stream : std::string("collective")},
                      {"pid", pid},
                      {"tid", tid},
                      // Both ends rounded to the nanosecond, the duration their difference: a
                      // span never ends after the next one on its track starts.
                      {"ts", us(e.start_s - t0)},
                      {"dur", std::max(0.0, us(e.end_s - t0) - us(e.start_s - t0))},
                      {"args", std::move(args)}});
    t1 = std::max(t1, e.end_s - t0);
  }
  // Exposed communication: the rank's communication while its compute stream was idle.
  for (auto& [rank, spans] : comm_spans) {
    const auto exposed = minus(merged(spans), merged(compute_spans[rank]));
    if (exposed.empty()) continue;
    name_thread(rank, "exposed comm");
    for (const auto& [lo, hi] : exposed)
      events.push_back({{"ph", "X"},
                        {"name", "exposed communication"},
                        {"cat", "exposed"},
                        {"pid", pid_of(rank)},
                        {"tid", tid_of(rank, "exposed comm")},
                        {"ts", us(lo - t0)},
                        {"dur", std::max(0.0, us(hi - t0) - us(lo - t0))},
                        {"args", {{"rank", rank}}}});
  }
  // Flow arrows from each member of a collective to the next (by rank), at the middle of its span.
  std::size_t flows = 0;
  for (auto& [key, list] : members) {
    if (list.size() < 2) continue;
    std::sort(list.begin(), list.end());
    const double mid = us((std::get<2>(key) + std::get<3>(key)) / 2 - t0);
    for (std::size_t i = 0; i + 1 < list.size() && flows < kMaxFlows; ++i, ++flows) {
      const auto& [a, sa] = list[i];
      const auto& [b, sb] = list[i + 1];
      events.push_back({{"ph", "s"},
                        {"id", flows},
                        {"name", std::get<0>(key)},
                        {"cat", "collective"},
                        {"pid", pid_of(a)},
                        {"tid", tid_of(a, sa)},
                        {"ts", mid}});
      events.push_back({{"ph", "f"},
                        {"bp", "e"},
                        {"id", flows},
                        {"name", std::get<0>(key)},
                        {"cat", "collective"},
                        {"pid", pid_of(b)},
                        {"tid", tid_of(b, sb)},
                        {"ts", mid}});
    }
  }
  const double step_end = std::max(t1, std::isfinite(r.step_time_s) ? r.step_time_s : 0);
  if (!r.links.empty()) {
    const int links_pid = max_node + 2;
    events.push_back(meta("process_name", links_pid, 0, {{"name", "links (average utilisation over the step)"}}));
    events.push_back(meta("process_sort_index", links_pid, 0, {{"sort_index", max_node + 1}}));
    for (const auto& l : r.links) {
      // A fraction (0..1), as in every commsim output (docs/result.schema.json).
      const double fraction = std::isfinite(l.utilization) ? l.utilization : 0;
      const std::string name = l.name + (l.kind.empty() ? "" : " (" + l.kind + ")");
      events.push_back({{"ph", "C"},
                        {"name", name},
                        {"pid", links_pid},
                        {"tid", 0},
                        {"ts", 0.0},
                        {"args", {{"utilization", fraction}}}});
      events.push_back({{"ph", "C"},
                        {"name", name},
                        {"pid", links_pid},
                        {"tid", 0},
                        {"ts", us(step_end)},
                        {"args", {{"utilization", 0.0}}}});
    }
  }
  // Where each rank's step went (its terms add up to step_time_s), the mean rank first.
  json per_rank = json::object();
  for (const auto& k : r.ranks) per_rank[std::to_string(k.rank)] = breakdown_json(k.breakdown);
  json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData",
               {{"generator", "commsim"},
                {"scenario", r.scenario},
                {"step_time_s", std::isfinite(r.step_time_s) ? r.step_time_s : 0.0},
                {"step_breakdown", breakdown_json(r.step_breakdown)},
                {"rank_breakdown", std::move(per_rank)},
                // Which ranks have events, and why those (a run of many ranks records a few).
                {"timeline_ranks", r.timeline_ranks},
                {"timeline_ranks_why", r.timeline_ranks_why}}}};
  // Replace invalid UTF-8 instead of throwing: names come from user files.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace viz
