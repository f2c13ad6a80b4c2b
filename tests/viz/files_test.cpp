// Files for other tools: the Chrome trace (JSON that Perfetto and chrome://tracing open) and the
// CSV (RFC 4180, units in the header), checked by parsing them back.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "tests/viz/fixtures.hpp"
#include "viz/viz.hpp"

namespace {
// Minimal RFC 4180 reader for the test: fields of one record, quotes undone.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string f;
  bool quoted = false;
  rows.back().clear();
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        f += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        f += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(f), f.clear();
    } else if (c == '\r') {
    } else if (c == '\n') {
      rows.back().push_back(f), f.clear();
      rows.emplace_back();
    } else {
      f += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}
}  // namespace

TEST_CASE("viz: chrome trace has a process per node, a thread per rank and stream, counters per link", "[viz]") {
  const auto r = viz_test::make_run(viz_test::eight_ranks());
  const auto doc = nlohmann::json::parse(viz::chrome_trace(r));
  REQUIRE(doc.contains("traceEvents"));
  std::set<int> node_pids, link_pids;
  std::set<std::pair<int, int>> threads;
  std::set<std::string> counters;
  size_t complete = 0;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name" && std::string(e["args"]["name"]).rfind("node ", 0) == 0)
      node_pids.insert(e["pid"].get<int>());
    if (ph == "M" && e["name"] == "thread_name") threads.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    if (ph == "X" && e["cat"] != "exposed") {
      ++complete;
      const double ts = e["ts"], dur = e["dur"];
      CHECK(std::isfinite(ts));
      CHECK(ts >= 0);
      CHECK(dur >= 0);
      CHECK(threads.count({e["pid"].get<int>(), e["tid"].get<int>()}) == 1);  // every span sits on a named thread
      if (e["cat"] == "collective") CHECK(e["args"].contains("bytes"));
    }
    if (ph == "C") {
      counters.insert(e["name"]);
      link_pids.insert(e["pid"].get<int>());
    }
  }
  CHECK(node_pids.size() == 2);
  // ranks x (compute, comm, offload), plus an "exposed comm" row per rank that had any.
  CHECK(threads.size() >= 8 * 3);
  CHECK(threads.size() <= 8 * 4);
  CHECK(complete == r.timeline.size());
  CHECK(counters.size() == r.links.size());
  REQUIRE(link_pids.size() == 1);
  CHECK(node_pids.count(*link_pids.begin()) == 0);  // counters live in their own "links" process
  // Durations are microseconds: the trace's longest span equals the timeline's, times 1e6.
  double longest = 0;
  for (const auto& e : r.timeline) longest = std::max(longest, e.end_s - e.start_s);
  double longest_trace = 0;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X") longest_trace = std::max(longest_trace, e["dur"].get<double>());
  CHECK(longest_trace == Approx(longest * 1e6));
}

// At scale the timeline keeps a few ranks (models/run/result_fill.hpp timeline_ranks): a node none
// of whose ranks has a row gets no process, so the viewer shows no empty lines.
TEST_CASE("viz: chrome trace names only the nodes whose ranks have a row", "[viz]") {
  auto r = viz_test::make_run(viz_test::eight_ranks());
  const auto on_node1 = [&](const models::TimelineEvent& e) { return r.ranks[e.rank].node == 1; };
  REQUIRE(std::any_of(r.timeline.begin(), r.timeline.end(), on_node1));
  r.timeline.erase(std::remove_if(r.timeline.begin(), r.timeline.end(), on_node1), r.timeline.end());
  const auto doc = nlohmann::json::parse(viz::chrome_trace(r));
  std::set<std::string> nodes;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name" && std::string(e["args"]["name"]).rfind("node ", 0) == 0)
      nodes.insert(e["args"]["name"].get<std::string>());
  CHECK(nodes == std::set<std::string>{"node 0"});
}

TEST_CASE("viz: CSV has a row per rank and per event, units in the header, quoting that round-trips", "[viz]") {
  auto r = viz_test::make_run(viz_test::one_pod_four_gpus());
  r.timeline[0].name = "fwd, \"L0\"\nline two";
  r.timeline[1].name = "=SUM(A1)";
  const auto rows = parse_csv(viz::to_csv(r));
  REQUIRE(rows.size() == 1 + r.ranks.size() + r.timeline.size());
  const auto& h = rows[0];
  for (const char* col : {"compute_s", "exposed_comm_s", "barrier_wait_s", "start_s", "end_s", "bytes_B"})
    CHECK(std::find(h.begin(), h.end(), col) != h.end());
  for (const auto& row : rows) CHECK(row.size() == h.size());
  const size_t name_col = std::find(h.begin(), h.end(), "name") - h.begin();
  const size_t first_event = 1 + r.ranks.size();
  CHECK(rows[first_event][name_col] == "fwd, \"L0\"\nline two");
  CHECK(rows[first_event + 1][name_col] == "'=SUM(A1)");  // not a spreadsheet formula
  // Numbers carry 9 significant digits (docs/result.schema.json), no float noise.
  const size_t comp_col = std::find(h.begin(), h.end(), "compute_s") - h.begin();
  CHECK(std::stod(rows[1][comp_col]) == Approx(r.ranks[0].compute_s).epsilon(5e-9));
  char nine[40];
  std::snprintf(nine, sizeof nine, "%.9g", r.ranks[0].compute_s);
  CHECK(rows[1][comp_col] == nine);
  CHECK(rows[1][0] == "rank");
}

TEST_CASE("viz: CSV rank rows and the trace carry each rank's step breakdown", "[viz]") {
  auto r = viz_test::make_run(viz_test::one_pod_four_gpus());
  for (auto& k : r.ranks) k.breakdown = {1.0, 0.25, 0.5, 2.0, 0.125, 0.0625, 0.0};
  r.step_breakdown = r.ranks[0].breakdown;
  const auto rows = parse_csv(viz::to_csv(r));
  const auto& h = rows[0];
  const char* cols[] = {"breakdown_compute_s", "breakdown_interference_s", "breakdown_exposed_comm_s",
                        "breakdown_host_s",    "breakdown_bubble_s",       "breakdown_barrier_wait_s",
                        "breakdown_other_s"};
  double sum = 0;
  for (const char* col : cols) {
    const size_t c = std::find(h.begin(), h.end(), col) - h.begin();
    REQUIRE(c < h.size());
    sum += std::stod(rows[1][c]);
    CHECK(rows[1 + r.ranks.size()][c].empty());  // event rows leave them empty
  }
  CHECK(sum == Approx(r.ranks[0].breakdown.total()));
  for (const auto& row : rows) CHECK(row.size() == h.size());

  const auto doc = nlohmann::json::parse(viz::chrome_trace(r));
  const auto& other = doc["otherData"];
  CHECK(other["step_breakdown"]["host_s"].get<double>() == 2.0);
  CHECK(other["rank_breakdown"].size() == r.ranks.size());
  CHECK(other["rank_breakdown"]["3"]["bubble_s"].get<double>() == 0.125);
}

TEST_CASE("viz: chrome trace puts host work on a cpu row, marks exposed communication, joins collective members",
          "[viz]") {
  models::RunResult r;
  r.scenario = "two ranks";
  r.step_time_s = 10e-3;
  for (int k = 0; k < 2; ++k) {
    models::RankResult rr;
    rr.rank = k;
    r.ranks.push_back(rr);
    // compute 0-4 ms, all_gather 2-6 ms (2 ms of it exposed), CPU-Adam 6-10 ms.
    r.timeline.push_back({k, "compute", "fwd", "", 0, 4e-3});
    r.timeline.push_back({k, "comm", "ag", "all_gather", 2e-3, 6e-3, 1000});
    r.timeline.push_back({k, "cpu", "cpu step", "", 6e-3, 10e-3});
  }
  const auto doc = nlohmann::json::parse(viz::chrome_trace(r));
  std::map<int, std::string> thread_names;
  int starts = 0, finishes = 0;
  std::vector<std::pair<double, double>> exposed;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names[e["tid"].get<int>()] = e["args"]["name"];
    if (e["ph"] == "X" && e["cat"] == "exposed" && e["args"]["rank"] == 0)
      exposed.push_back({e["ts"].get<double>(), e["dur"].get<double>()});
    starts += e["ph"] == "s";
    finishes += e["ph"] == "f";
  }
  int cpu_rows = 0;
  for (const auto& [tid, name] : thread_names) cpu_rows += name.find("cpu (host work)") != std::string::npos;
  CHECK(cpu_rows == 2);  // one CPU row per rank, apart from the GPU's compute row
  REQUIRE(exposed.size() == 1);
  CHECK(exposed[0].first == Approx(4000));  // microseconds
  CHECK(exposed[0].second == Approx(2000));
  CHECK(starts == 1);  // rank 0 -> rank 1 of the one all_gather
  CHECK(finishes == 1);
}

TEST_CASE("viz: chrome trace slices nest on every track, to the nanosecond", "[viz]") {
  // Ends rounded apart from starts overlapped the next slice by 1 ns; ZeRO-Offload's copies to and
  // from the host run at once on one stream and go to two tracks.
  models::RunResult r;
  r.scenario = "back to back";
  models::RankResult rr;
  r.ranks.push_back(rr);
  r.timeline.push_back({0, "compute", "fc1", "", 2.5719444e-3, 2.5719444e-3 + 2.9966669e-3});
  r.timeline.push_back({0, "compute", "fc2", "", 2.5719444e-3 + 2.9966669e-3, 6.1e-3});
  r.timeline.push_back({0, "offload", "h2d params", "", 1e-3, 3e-3});
  r.timeline.push_back({0, "offload", "d2h grads", "", 2e-3, 4e-3});
  const auto doc = nlohmann::json::parse(viz::chrome_trace(r));
  std::map<int, std::vector<std::pair<long long, long long>>> by_track;  // tid -> (start, end) in ns
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X") {
      const long long ts = std::llround(e["ts"].get<double>() * 1e3);
      by_track[e["tid"].get<int>()].push_back({ts, ts + std::llround(e["dur"].get<double>() * 1e3)});
    }
  CHECK(by_track.size() >= 3);  // compute, offload h2d, offload d2h (and the exposed-communication row)
  for (auto& [tid, spans] : by_track) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      INFO("track " << tid);
      CHECK(spans[i].first >= spans[i - 1].second);
    }
  }
}

TEST_CASE("viz: chrome trace gives overlapping copies of one stream lanes of their own", "[viz]") {
  // ZeRO-Offload's parameter prefetch and gradient copies to the GPU run at once on one stream:
  // each slice goes to the first lane where it does not overlap ("offload", "offload 2", ...).
  models::RunResult r;
  r.scenario = "offload lanes";
  models::RankResult rr;
  rr.rank = 3;
  r.ranks.push_back(rr);
  r.timeline.push_back({3, "offload", "h2d grad buffer L31", "", 1e-3, 3e-3});
  r.timeline.push_back({3, "offload", "h2d params L28", "", 2e-3, 4e-3});    // partly over the first
  r.timeline.push_back({3, "offload", "h2d params L30", "", 1e-3, 2.5e-3});  // starts with the first
  r.timeline.push_back({3, "offload", "h2d params L27", "", 4e-3, 5e-3});    // after both: the first lane
  r.timeline_ranks = {3};
  r.timeline_ranks_why = "every rank";
  const auto doc = nlohmann::json::parse(viz::chrome_trace(r));
  std::map<int, std::string> thread;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") thread[e["tid"].get<int>()] = e["args"]["name"];
  std::map<std::string, std::string> track_of;  // slice -> its thread's name
  std::map<int, std::vector<std::pair<long long, long long>>> spans;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "offload") {
      track_of[e["name"]] = thread[e["tid"].get<int>()];
      const long long ts = std::llround(e["ts"].get<double>() * 1e3);
      spans[e["tid"].get<int>()].push_back({ts, ts + std::llround(e["dur"].get<double>() * 1e3)});
    }
  CHECK(track_of["h2d grad buffer L31"] == "rank 3 offload");
  CHECK(track_of["h2d params L30"] == "rank 3 offload 2");
  CHECK(track_of["h2d params L28"] == "rank 3 offload 3");
  CHECK(track_of["h2d params L27"] == "rank 3 offload");
  for (auto& [tid, list] : spans) {
    std::sort(list.begin(), list.end());
    for (size_t i = 1; i < list.size(); ++i) CHECK(list[i].first >= list[i - 1].second);
  }
  // The ranks the timeline holds, and why, in otherData.
  CHECK(doc["otherData"]["timeline_ranks"] == nlohmann::json::array({3}));
  CHECK(doc["otherData"]["timeline_ranks_why"] == "every rank");
  // The CSV's rank row counts the rank's events.
  const auto rows = parse_csv(viz::to_csv(r));
  REQUIRE(rows.size() == 6);
  REQUIRE(rows[0].back() == "timeline_events");
  CHECK(rows[1].back() == "4");
  for (size_t i = 2; i < rows.size(); ++i) CHECK(rows[i].back().empty());
}
