// viz charts and pages, checked on their SVG/HTML text with hand-made results of 4, 8 and 1,024
// ranks (tests/viz/fixtures.hpp): one bar per rank, timeline rows, legends, no NaN, escaping,
// nothing fetched from the network.
#include <catch2/catch.hpp>
#include <cmath>
#include <regex>
#include <set>
#include <string>

#include "tests/viz/fixtures.hpp"
#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"
#include "viz/viz.hpp"

namespace {
size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}
// Any attribute or text holding nan/inf means a non-finite number leaked into the drawing.
// The page without its charts' download links (base64 data: URIs of the same SVG, checked in plain
// form): std::regex recurses per character and overflows the stack on such a long attribute, and
// base64 may spell "nan" or "http" by chance.
std::string without_data_uris(std::string s) {
  for (size_t at; (at = s.find("data:image/svg+xml;base64,")) != std::string::npos;) s.erase(at, s.find('"', at) - at);
  return s;
}

bool has_non_finite(const std::string& s) {
  static const std::regex kBad(R"((="[^"]*\b(nan|inf)\b)|(>\s*-?(nan|inf)\s*<))", std::regex::icase);
  return std::regex_search(without_data_uris(s), kBad);
}
}  // namespace

TEST_CASE("viz: svg primitives escape text and never print non-finite numbers", "[viz]") {
  CHECK(viz::svg::esc("<a href='x'>&\"") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
  CHECK(viz::svg::num(NAN) == "0");
  CHECK(viz::svg::num(INFINITY) == "0");
  CHECK(viz::svg::num(12.5) == "12.5");
  CHECK(viz::svg::num(-0.001) == "0");
  CHECK(viz::svg::num(3) == "3");
  // Log scale: the decade midpoint of [1, 100] is 10.
  const viz::svg::Scale s{1, 100, 0, 200, true};
  CHECK(s(10) == Approx(100));
  // Nice ticks cover the interval with 1/2/5 steps.
  const auto t = viz::svg::linear_ticks(0, 47, 5);
  REQUIRE(t.size() >= 3);
  CHECK(t.front() == 0);
  CHECK(t.back() <= 47);
  CHECK(viz::svg::log_ticks(8, 1024, 2).size() == 8);  // 8,16,...,1024
  // Within a decade or two a decimal axis gets the 1-2-5 steps, then every digit.
  CHECK(viz::svg::log_ticks(1, 1000, 10) == std::vector<double>{1, 10, 100, 1000});
  CHECK(viz::svg::log_ticks(70, 1500, 10) == std::vector<double>{100, 200, 500, 1000});
  CHECK(viz::svg::log_ticks(120, 480, 10) == std::vector<double>{200, 300, 400});
}

TEST_CASE("viz: quantities read the way engineers write them", "[viz]") {
  CHECK(viz::fmt::seconds(0.0123) == "12.3 ms");
  CHECK(viz::fmt::bytes(218e6) == "218 MB");
  CHECK(viz::fmt::rate(172e9) == "172 GB/s");
  CHECK(viz::fmt::duration_hms(981) == "0:16:21");  // the seed's 1 pod x 4 GPUs run time
  CHECK(viz::fmt::count(1024) == "1,024");
  CHECK(viz::fmt::bytes_binary_axis(1 << 20) == "1 MiB");
}

TEST_CASE("viz: rank bars draw one stacked bar per rank, and groups at 1,024 ranks", "[viz]") {
  for (auto L : {viz_test::one_pod_four_gpus(), viz_test::eight_ranks()}) {
    const auto r = viz_test::make_run(L);
    const std::string svg = viz::charts::rank_bars(r);
    const size_t n = r.ranks.size();
    CHECK(count_of(svg, "class=\"bar-rank\"") == n);
    // Every rank has compute; the legend names each colour used.
    CHECK(count_of(svg, "class=\"seg seg-compute\"") == n);
    CHECK(svg.find(">compute</text>") != std::string::npos);
    CHECK(svg.find(">exposed communication</text>") != std::string::npos);
    CHECK(svg.find(">barrier wait</text>") != std::string::npos);
    CHECK(svg.find("time per step (") != std::string::npos);  // axis title with unit
    CHECK_FALSE(has_non_finite(svg));
  }
  const auto big = viz_test::make_run(viz_test::ranks_1024());
  const std::string svg = viz::charts::rank_bars(big);
  // 128 nodes exceed kMaxRankBars (64), so ranges of ceil(1024/64) = 16 ranks: 64 bars.
  CHECK(count_of(svg, "class=\"bar-group\"") == 64);
  CHECK(count_of(svg, "class=\"bar-rank\"") == 0);
  CHECK(svg.find("slowest rank of the group") != std::string::npos);
  CHECK(svg.size() < 200'000);
}

TEST_CASE("viz: timeline has a row per rank and stream, and three representative ranks at 1,024", "[viz]") {
  const auto r8 = viz_test::make_run(viz_test::eight_ranks());
  const std::string svg = viz::charts::timeline(r8);
  // 8 ranks x (compute, comm, offload) streams.
  CHECK(count_of(svg, "class=\"timeline-row\"") == 24);
  for (int k = 0; k < 8; ++k) CHECK(svg.find(">rank " + std::to_string(k) + "</text>") != std::string::npos);
  // Collectives labelled with op and size where they fit, legend per op.
  CHECK(svg.find(">all_gather<") != std::string::npos);
  CHECK(svg.find(">reduce_scatter<") != std::string::npos);
  CHECK(svg.find("all_gather 4000 MB") != std::string::npos);
  CHECK(svg.find("time since step start (s)") != std::string::npos);
  CHECK_FALSE(has_non_finite(svg));

  const auto big = viz_test::make_run(viz_test::ranks_1024());
  const auto shown = viz::charts::timeline_ranks(big);
  REQUIRE(shown.size() == 3);
  // The representative rows are the ranks with least, median and most exposed + barrier wait.
  auto wait = [&](int k) { return big.ranks[k].exposed_comm_s + big.ranks[k].barrier_wait_s; };
  for (const auto& k : big.ranks) {
    CHECK(wait(shown.front().rank) <= wait(k.rank));
    CHECK(wait(shown.back().rank) >= wait(k.rank));
  }
  const std::string bsvg = viz::charts::timeline(big);
  CHECK(count_of(bsvg, "class=\"timeline-row\"") == 9);
  CHECK(bsvg.find("most wait") != std::string::npos);
  CHECK(bsvg.find("showing 3 of 1,024 ranks") != std::string::npos);
  CHECK(bsvg.size() < 200'000);
}

TEST_CASE("viz: topology shows the transport at each level, in the legend too", "[viz]") {
  const std::string one = viz::charts::topology(viz_test::make_run(viz_test::one_pod_four_gpus()));
  CHECK(count_of(one, "class=\"topo-gpu\"") == 4);
  CHECK(count_of(one, "class=\"topo-pod\"") == 1);
  CHECK(one.find("data-transport=\"P2P NVLink\"") != std::string::npos);
  CHECK(one.find("P2P NVLink: P2P/CUMEM/read (within a pod)") != std::string::npos);
  CHECK(one.find("topo-network") == std::string::npos);  // nothing goes over the network

  const std::string four = viz::charts::topology(viz_test::make_run(viz_test::four_pods_one_gpu()));
  CHECK(count_of(four, "class=\"topo-pod\"") == 4);
  CHECK(count_of(four, "class=\"topo-nic\"") == 4);  // each pod leaves the host through its NIC
  CHECK(four.find("data-transport=\"NET EFA\"") != std::string::npos);
  CHECK(four.find("NET EFA: NET/Libfabric/0/GDRDMA (between pods of a node)") != std::string::npos);

  const std::string big = viz::charts::topology(viz_test::make_run(viz_test::ranks_1024()));
  // One row of nodes (8 GPUs each: two fit in 1,120 px) and a box for the others.
  const size_t drawn = count_of(big, "class=\"topo-node\"");
  CHECK(drawn == 2);
  CHECK(big.find(std::to_string(128 - drawn) + " more") != std::string::npos);
  CHECK(big.find("nodes not drawn") != std::string::npos);  // not "like these": a mixed cluster's may differ
  CHECK(count_of(big, "class=\"topo-gpu\"") == 8 * drawn);
  CHECK(big.find("NET EFA: NET/Libfabric/0/GDRDMA (between nodes)") != std::string::npos);
}

TEST_CASE("viz: link chart shows each link class's busiest link and mean, then the busiest links", "[viz]") {
  const auto r = viz_test::make_run(viz_test::four_pods_one_gpu());
  const std::string svg = viz::charts::links(r);
  std::set<std::string> kinds;
  for (const auto& l : r.links) kinds.insert(l.kind);
  CHECK(count_of(svg, "class=\"link-class-row\"") == kinds.size());
  CHECK(count_of(svg, "class=\"link-row\"") >= 1);
  CHECK(count_of(svg, "class=\"link-row\"") <= std::min<size_t>(r.links.size(), viz::charts::kMaxLinks));
  CHECK(svg.find("share of the step (%)") != std::string::npos);
  CHECK(svg.find(">EFA link</text>") != std::string::npos);
  CHECK(svg.find(">PCIe link</text>") != std::string::npos);
  // The busiest link comes first: utilisation = bytes / (capacity x step).
  const auto& top = r.links.front();
  CHECK(top.utilization == Approx(top.bytes / (top.capacity_bytes_per_s * r.step_time_s)));
}

TEST_CASE("viz: links with identical traffic collapse into one row, the class row gives max and mean", "[viz]") {
  models::RunResult r;
  r.step_time_s = 1;
  for (int i = 0; i < 12; ++i)  // a symmetric ring: 12 NVLink ports, same bytes each
    r.links.push_back({"node0/gpu" + std::to_string(i) + " -> nvswitch", "NVLink", 4e11, 0.9, 0.8, 5e11});
  r.links.push_back({"node0/nic0 -> fabric", "EFA", 1e9, 0.5, 0.2, 5e9});
  r.links.push_back({"node0/nic1 -> fabric", "EFA", 0, 0, 0, 5e9});
  const std::string svg = viz::charts::links(r);
  CHECK(count_of(svg, "class=\"link-class-row\"") == 2);
  CHECK(count_of(svg, "class=\"link-row\"") == 3);  // 12 alike NVLink ports, then each EFA link
  CHECK(svg.find(" × 12</text>") != std::string::npos);
  CHECK(svg.find("max 80% · mean 80%") != std::string::npos);
  CHECK(svg.find("max 20% · mean 10%") != std::string::npos);
  // The bottleneck class is listed first.
  CHECK(svg.find("data-kind=\"NVLink\"") < svg.find("data-kind=\"EFA\""));
}

TEST_CASE("viz: long labels keep both ends", "[viz]") {
  CHECK(viz::charts::fit_label("short", 10) == "short");
  const std::string cut = viz::charts::fit_label("node123/gpu7 -> leaf-switch-42/port-17", 20);
  CHECK(cut.rfind("node123", 0) == 0);
  CHECK(cut.size() - std::string("…").size() + 1 == 20);
  CHECK(cut.substr(cut.size() - 7) == "port-17");
}

TEST_CASE("viz: bus bandwidth chart has log axes, predicted lines and measured points", "[viz]") {
  const auto pts = viz_test::busbw_curve(130e9, 25e-6, true);
  const std::string svg = viz::charts::busbw(pts);
  CHECK(count_of(svg, "class=\"busbw-predicted\"") == 2);
  CHECK(count_of(svg, "class=\"busbw-measured\"") > 20);
  CHECK(svg.find("bus bandwidth (GB/s, log scale)") != std::string::npos);
  CHECK(svg.find("message size (bytes, log scale") != std::string::npos);
  CHECK(svg.find(">all_gather measured</text>") != std::string::npos);
  CHECK(svg.find(">1 GiB</text>") != std::string::npos);
  const std::string none = viz::charts::busbw({});
  CHECK(none.find("no bus bandwidth data") != std::string::npos);
}

TEST_CASE("viz: report page is self-contained, escaped and free of NaN", "[viz]") {
  auto r = viz_test::make_run(viz_test::one_pod_four_gpus());
  r.scenario = "<script>alert(\"x\")</script> & \"co\"";
  r.ranks[1].compute_s = NAN;
  r.ranks[2].barrier_wait_s = INFINITY;
  r.timeline[3].end_s = NAN;
  r.links[0].utilization = NAN;
  viz::ReportInputs in;
  in.summary = {{"cluster", "a<b>"}};
  in.busbw = {{"all_reduce", 1024, NAN, 0}, {"all_reduce", 2048, 1e9, INFINITY}};
  const std::string html = viz::report_html(r, in);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;co&quot;") != std::string::npos);
  CHECK(html.find("a&lt;b&gt;") != std::string::npos);
  CHECK_FALSE(has_non_finite(html));
  // Offline: the only URL is the SVG namespace; no fonts, no imports, no external images.
  const std::string no_data = without_data_uris(html);
  const std::string stripped = std::regex_replace(no_data, std::regex("http://www\\.w3\\.org/2000/svg"), "");
  CHECK(stripped.find("http") == std::string::npos);
  CHECK(stripped.find("url(") == std::string::npos);
  CHECK(stripped.find("@import") == std::string::npos);
  // Five charts, every <svg> closed.
  CHECK(count_of(html, "<svg ") == 5);
  CHECK(count_of(html, "</svg>") == 5);
  for (const char* c : {"chart-topology", "chart-ranks", "chart-timeline", "chart-links", "chart-busbw"})
    CHECK(html.find(c) != std::string::npos);
}

TEST_CASE("viz: comparison page puts the step and run time ratios on top", "[viz]") {
  const auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  const auto b = viz_test::make_run(viz_test::four_pods_one_gpu());
  const std::string html = viz::compare_html({a, b}, {viz_test::inputs_for(viz_test::one_pod_four_gpus(), true),
                                                      viz_test::inputs_for(viz_test::four_pods_one_gpu(), false)});
  // Ratio = step(B) / step(A), printed with two decimals before the charts.
  const std::string ratio = viz::fmt::fixed(b.step_time_s / a.step_time_s, 2) + "×";
  const size_t at = html.find("class=\"ratio step-ratio\">" + ratio);
  REQUIRE(at != std::string::npos);
  CHECK(at < html.find("<svg"));
  // Same number of steps: the run-time ratio equals the step ratio and is not printed a second time.
  REQUIRE(a.steps == b.steps);
  CHECK(count_of(html, ">" + ratio + "<") == 1);
  CHECK(html.find("run-ratio") == std::string::npos);
  CHECK(html.find("; run time ") != std::string::npos);
  // Four charts per column, and one bus-bandwidth chart with every layout on one axis.
  CHECK(count_of(html, "class=\"chart chart-") == 9);
  CHECK(count_of(html, "class=\"chart chart-busbw\"") == 1);
  CHECK(count_of(html, "class=\"busbw-series\"") == 4);  // 2 layouts x 2 collectives
  // Each chart can be saved as SVG.
  CHECK(count_of(html, "class=\"svg-download\"") == 9);
  CHECK(count_of(html, "class=\"headline-bars\"") == 1);
  CHECK(b.step_time_s > a.step_time_s);  // EFA between pods is slower than NVLink inside one
  CHECK_FALSE(has_non_finite(html));
}

TEST_CASE("viz: rank bars stack the step breakdown, each bar reaching the step time", "[viz]") {
  models::RunResult r;
  r.scenario = "pipeline";
  r.step_time_s = 4.0;
  for (int k = 0; k < 2; ++k) {
    models::RankResult rr;
    rr.rank = k;
    rr.compute_s = 2.5;
    // compute, interference, exposed, host, bubble, barrier, other: 4 s in all.
    rr.breakdown = {2.0, 0.5, 0.5, 0.0, k == 0 ? 1.0 : 0.75, k == 0 ? 0.0 : 0.25, 0.0};
    r.ranks.push_back(rr);
  }
  const std::string svg = viz::charts::rank_bars(r);
  CHECK(count_of(svg, "class=\"seg seg-compute\"") == 2);
  CHECK(count_of(svg, "class=\"seg seg-interference\"") == 2);
  CHECK(count_of(svg, "class=\"seg seg-bubble\"") == 2);
  CHECK(count_of(svg, "class=\"seg seg-barrier\"") == 1);
  CHECK(count_of(svg, "class=\"seg seg-offload\"") == 0);
  CHECK(svg.find(">pipeline bubble</text>") != std::string::npos);
  CHECK(svg.find(">interference (compute lost to overlapping communication)</text>") != std::string::npos);
  CHECK(svg.find("host work") == std::string::npos);  // absent components stay out of the legend
  CHECK(svg.find("pipeline bubble: 1.00 s") != std::string::npos);
  CHECK_FALSE(has_non_finite(svg));
}

TEST_CASE("viz: a different step count gives the run-time ratio its own card", "[viz]") {
  auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  auto b = viz_test::make_run(viz_test::four_pods_one_gpu());
  b.steps = a.steps * 2;
  b.run_time_s = b.step_time_s * b.steps;
  const std::string html = viz::compare_html({a, b}, {});
  CHECK(html.find("class=\"ratio small run-ratio\">" + viz::fmt::fixed(b.run_time_s / a.run_time_s, 2) + "×") !=
        std::string::npos);
}

TEST_CASE("viz: the headline legend names only the components some layout has", "[viz]") {
  auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  auto b = viz_test::make_run(viz_test::four_pods_one_gpu());
  for (auto* r : {&a, &b})
    for (auto& k : r->ranks) k.offload_s = 0, k.barrier_wait_s = 0;
  const std::string html = viz::compare_html({a, b}, {});
  const std::string bars = html.substr(html.find("class=\"headline-bars\""));
  const std::string head = bars.substr(0, bars.find("</svg>"));
  CHECK(head.find(">compute</text>") != std::string::npos);
  CHECK(head.find(">host work (CPU offload)</text>") == std::string::npos);
  CHECK(head.find(">barrier wait</text>") == std::string::npos);
}

TEST_CASE("viz: the headline bars are the mean rank's breakdown, adding up to the step", "[viz]") {
  // A pipeline layout against a ZeRO-Offload one: bubble and interference in one, host work in the other.
  std::vector<models::RunResult> runs(2);
  runs[0].scenario = "tp8 pp4";
  runs[0].step_breakdown = {2.0, 0.25, 0.5, 0.0, 1.25, 0.0, 0.0};
  runs[1].scenario = "zero3 offload";
  runs[1].step_breakdown = {2.0, 0.0, 0.25, 11.0, 0.0, 0.0, 0.0};
  for (auto& r : runs) {
    r.step_time_s = r.run_time_s = r.step_breakdown.total();
    models::RankResult k;
    k.breakdown = r.step_breakdown;
    r.ranks.push_back(k);
  }
  const std::string html = viz::compare_html(runs, {});
  const std::string bars = html.substr(html.find("class=\"headline-bars\""));
  const std::string head = bars.substr(0, bars.find("</svg>"));
  for (const char* part :
       {"compute", "interference", "exposed communication", "host work (CPU offload)", "pipeline bubble"})
    CHECK(head.find(std::string("class=\"headline-legend\">") + part + "</text>") != std::string::npos);
  for (const char* absent : {"barrier wait", "other"})
    CHECK(head.find(std::string("class=\"headline-legend\">") + absent + "</text>") == std::string::npos);
  CHECK(head.find("<title>pipeline bubble: 1.25 s</title>") != std::string::npos);
  CHECK(head.find("<title>host work the GPU waits for (CPU offload): 11.0 s</title>") != std::string::npos);
  CHECK(count_of(head, "</title></rect>") == 4 + 3);  // the bars' segments (with tooltips): 4 and 3
}

TEST_CASE("viz: several measured files are separate series on one axis", "[viz]") {
  std::vector<viz::BusBwPoint> pts;
  for (const char* file : {"ar_ring.txt (NCCL_ALGO=Ring)", "ar_tree.txt (NCCL_ALGO=Tree)"})
    for (int64_t s = 1024; s <= (1 << 20); s *= 4) pts.push_back({"all_reduce", s, 0, 1e9 * s / (1 << 20), file});
  const std::string svg = viz::charts::busbw(pts);
  CHECK(count_of(svg, "class=\"busbw-series\"") == 2);
  CHECK(svg.find(">ar_ring.txt (NCCL_ALGO=Ring) · all_reduce measured</text>") != std::string::npos);
  CHECK(svg.find(">ar_tree.txt (NCCL_ALGO=Tree) · all_reduce measured</text>") != std::string::npos);
}

TEST_CASE("viz: a bare collective's timeline says it holds its iterations, not one step", "[viz]") {
  models::RunResult r;
  r.steps = 3;
  models::RankResult rr;
  r.ranks.push_back(rr);
  for (int i = 0; i < 3; ++i) r.timeline.push_back({0, "comm", "ar", "all_reduce", i * 1e-3, (i + 1) * 1e-3, 1 << 20});
  const std::string svg = viz::charts::timeline(r);
  CHECK(svg.find("Timeline of the 3 iterations") != std::string::npos);
  CHECK(svg.find("time since the first iteration") != std::string::npos);
}

TEST_CASE("viz: each bus bandwidth curve names its group, one colour per curve when an op runs on two", "[viz]") {
  std::vector<viz::BusBwPoint> pts;
  for (int64_t s = 1024; s <= (1 << 20); s *= 4) {
    pts.push_back({"all_gather", s, 2e9 * s / (1 << 20), 0, "", "tp group of 8 GPUs on 1 node"});
    pts.push_back({"all_gather", s, 1e9 * s / (1 << 20), 0, "", "dp group of 8 GPUs on 8 nodes"});
  }
  const std::string svg = viz::charts::busbw(pts);
  CHECK(count_of(svg, "class=\"busbw-series\"") == 2);
  CHECK(svg.find(">all_gather, tp group of 8 GPUs on 1 node predicted</text>") != std::string::npos);
  CHECK(svg.find(">all_gather, dp group of 8 GPUs on 8 nodes predicted</text>") != std::string::npos);
  CHECK(svg.find("data-group=\"tp group of 8 GPUs on 1 node\"") != std::string::npos);
  // The two all-gathers in the first two series colours (curves in order of (op, group)), not both in all_gather's.
  const auto dp = svg.find("data-group=\"dp group of 8 GPUs on 8 nodes\"");
  const auto tp = svg.find("data-group=\"tp group of 8 GPUs on 1 node\"");
  REQUIRE(dp != std::string::npos);
  CHECK(svg.find(std::string("stroke=\"") + viz::kSeriesColors[0] + "\"", dp) < tp);
  CHECK(svg.find(std::string("stroke=\"") + viz::kSeriesColors[1] + "\"", tp) != std::string::npos);
}

TEST_CASE("viz: a ratio under 0.01 keeps two significant digits, and a run ratio that differs gets its card", "[viz]") {
  CHECK(viz::fmt::two_decimals(0.00057) == "0.00057");
  CHECK(viz::fmt::two_decimals(0.0038) == "0.0038");
  CHECK(viz::fmt::two_decimals(0.57) == "0.57");
  CHECK(viz::fmt::two_decimals(0) == "0.00");
  // A rate a day keeps two significant digits below 1, as run prints it: 0.0152 and 0.0227 are not both "0.02".
  CHECK(viz::fmt::per_day(0.0152) == "0.015");
  CHECK(viz::fmt::per_day(0.0227) == "0.023");
  CHECK(viz::fmt::per_day(1.5) == "1.50");
  CHECK(viz::fmt::per_day(0) == "0.00");
  CHECK(viz::fmt::usd(0.0982) == "$0.0982");
  CHECK(viz::fmt::usd(4.9097) == "$4.91");
  CHECK(viz::fmt::usd(14180) == "$14180");
  auto a = viz_test::make_run(viz_test::one_pod_four_gpus());
  auto b = viz_test::make_run(viz_test::one_pod_four_gpus());
  // 4.56 ms against 8.00 s a step (x0.00057); run time 0.00023 of the baseline's (other step counts).
  a.step_time_s = 8.0;
  a.run_time_s = 8.0 * 50;
  b.step_time_s = 4.56e-3;
  b.steps = 20;
  b.run_time_s = 4.56e-3 * 20;
  const std::string html = viz::compare_html({a, b}, {});
  CHECK(html.find("class=\"ratio step-ratio\">0.00057×") != std::string::npos);
  CHECK(html.find("class=\"ratio small run-ratio\">0.00023×") != std::string::npos);
  CHECK(html.find(">0.00×") == std::string::npos);
}

TEST_CASE("viz: a run longer than two days reads in days and hours, not as a clock", "[viz]") {
  CHECK(viz::fmt::duration_hms(31291641) == "362 d 04 h");        // 8692 h 27 min: a 15 T-token run on 512 GPUs
  CHECK(viz::fmt::duration_hms(47.9 * 3600) == "47:54:00");       // under two days a clock still reads well
  CHECK(viz::fmt::duration_hms(2 * 86400 + 3000) == "2 d 01 h");  // to the nearest hour
  CHECK(viz::fmt::duration_hms(1e40) == "3.17e+32 years");
}

namespace {
// A what-if of one file: compare appends each column's overrides to the scenario's name.
std::vector<models::RunResult> what_if_runs() {
  std::vector<models::RunResult> runs;
  const char* suffixes[] = {"", " [cluster.instance=p5en.48xlarge]", " [cluster.instance=p6-b200.48xlarge]"};
  const char* instances[] = {"p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"};
  const double steps[] = {17.5, 17.39, 8.794}, per_hour[] = {3523, 4051, 7292};
  for (int i = 0; i < 3; ++i) {
    auto r = viz_test::make_run(viz_test::one_pod_four_gpus());
    r.scenario = std::string("Llama-3-70B, 15 T tokens: what to run, on what, at what cost") + suffixes[i];
    r.layout = std::string("512 GPUs: 64 nodes ") + instances[i] + ", 64 pods x 8 GPUs; megatron tp 8 pp 4 dp 16";
    r.step_time_s = steps[i];
    r.run_time_s = steps[i] * r.steps;
    r.cost.known = true;
    r.cost.usd_per_hour = per_hour[i];
    r.cost.usd_per_run = per_hour[i] * r.run_time_s / 3600;
    runs.push_back(r);
  }
  return runs;
}
std::string headline_of(const std::string& html) {
  const std::string bars = html.substr(html.find("class=\"headline-bars\""));
  return bars.substr(0, bars.find("</svg>"));
}
}  // namespace

TEST_CASE("viz: the headline bars of a what-if name each column by its overrides and its layout", "[viz]") {
  std::vector<viz::ReportInputs> inputs(3, viz_test::inputs_for(viz_test::one_pod_four_gpus(), false));
  for (auto& in : inputs) in.title.clear();  // the columns' own names, as compare gives them
  const std::string html = viz::compare_html(what_if_runs(), inputs);
  const std::string head = headline_of(html);
  // Not "cost" (the last word of the shared name) and not cut on the left: number, what differs,
  // then the layout line with the GPU count.
  CHECK(head.find(">[1] no overrides  ·  512 GPUs: 64 nodes p5.48xlarge,") != std::string::npos);
  CHECK(head.find(">[2] [cluster.instance=p5en.48xlarge]  ·  512 GPUs: 64 nodes p5en.48xlarge,") != std::string::npos);
  CHECK(head.find(">[3] [cluster.instance=p6-b200.48xlarge]  ·  512 GPUs: 64 nodes p6-b200.48xlarge,") !=
        std::string::npos);
  CHECK(head.find(">cost") == std::string::npos);
  // Labels start at the left edge of the chart, above their bars (text-anchor start, not end).
  CHECK(count_of(head, "class=\"headline-label\"") == 3);
  CHECK(head.find("text-anchor=\"end\"") == std::string::npos);
  // The bus bandwidth legend numbers the columns the same way.
  CHECK(html.find("[1] no overrides · ") != std::string::npos);
  CHECK(html.find("[1] cost") == std::string::npos);
}

TEST_CASE("viz: the compare headline puts the cost ratio beside the time ratio where prices are known", "[viz]") {
  const auto runs = what_if_runs();
  const std::string html = viz::compare_html(runs, {});
  // p6-b200: half the time, but dearer per run; the card says both.
  const double ratio = runs[2].cost.usd_per_run / runs[0].cost.usd_per_run;
  REQUIRE(ratio > 1);
  CHECK(html.find("class=\"ratio small cost-ratio\">" + viz::fmt::fixed(ratio, 2) +
                  "×</div><div class=\"lbl\">$ per run: " + viz::fmt::usd(runs[2].cost.usd_per_run) + " vs " +
                  viz::fmt::usd(runs[0].cost.usd_per_run) + " (dearer)") != std::string::npos);
  CHECK(count_of(html, "class=\"ratio small cost-ratio\"") == 2);
  // $ per run beside each bar's step time.
  CHECK(headline_of(html).find(viz::fmt::seconds(runs[2].step_time_s) + " · " +
                               viz::fmt::usd(runs[2].cost.usd_per_run) + " per run") != std::string::npos);
  // Without a price for one column, no cost card and no $ in its bar.
  auto unpriced = runs;
  unpriced[1].cost.known = false;
  const std::string without = viz::compare_html({unpriced[0], unpriced[1]}, {});
  CHECK(without.find("cost-ratio") == std::string::npos);
  CHECK(without.find("$ per run:") == std::string::npos);
  // At one price per hour the cost ratio is the time ratio: said in words, not a second big number.
  auto same_price = runs;
  same_price[1].cost.usd_per_run = same_price[0].cost.usd_per_run * same_price[1].run_time_s / same_price[0].run_time_s;
  const std::string once = viz::compare_html({same_price[0], same_price[1]}, {});
  CHECK(once.find("cost-ratio") == std::string::npos);
  CHECK(once.find("; $ per run: " + viz::fmt::usd(same_price[1].cost.usd_per_run) + " vs ") != std::string::npos);
}

TEST_CASE("viz: a timeline of thousands of interleaved sub-pixel spans is drawn as banded blocks", "[viz]") {
  // One rank's compute stream: 20,000 kernels of 0.6 ms, each followed by a 0.2 ms collective on
  // the same stream, over 16 s: every span is under a pixel of a 900 px chart.
  models::RunResult r;
  r.scenario = "interleaved";
  r.steps = 1;
  models::RankResult k;
  r.ranks.push_back(k);
  double t = 0, compute = 0, coll = 0;
  for (int i = 0; i < 20000; ++i) {
    r.timeline.push_back({0, "compute", "L" + std::to_string(i) + " fwd", "", t, t + 0.6e-3, 0, "", ""});
    compute += 0.6e-3, t += 0.6e-3;
    r.timeline.push_back({0, "compute", "sp all_gather", "all_gather", t, t + 0.2e-3, 134000000, "Ring", "Simple"});
    coll += 0.2e-3, t += 0.2e-3;
  }
  r.step_time_s = r.run_time_s = t;
  const std::string svg = viz::charts::timeline(r, {});
  // At most a few hundred rects (8 px blocks of two bands), not 40,000 slivers.
  CHECK(count_of(svg, "<rect") < 400);
  CHECK(count_of(svg, "class=\"ev ev-mixed\"") > 100);
  // Each block's bands keep the mix: three quarters compute, a quarter all_gather.
  const std::regex band(
      R"re(<rect x="[0-9.]+" y="([0-9.]+)" width="[0-9.]+" height="([0-9.]+)" fill="([^"]+)" class="ev ev-mixed")re");
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, band));
  const double h_first = std::stod(m[2]);
  CHECK(h_first == Approx(16 * 0.75).margin(0.6));                                    // row of 16 px, compute's share
  CHECK(svg.find("too short to draw one by one:\nall_gather") == std::string::npos);  // compute listed first
  CHECK(svg.find("too short to draw one by one:\ncompute") != std::string::npos);
  CHECK(svg.size() < 200000);
  CHECK_FALSE(has_non_finite(svg));
}

TEST_CASE("viz: the report's tokens/s card groups its thousands", "[viz]") {
  auto r = viz_test::make_run(viz_test::one_pod_four_gpus());
  r.throughput.estimated = true;
  r.throughput.tokens_per_s = 479343.4;
  const std::string html = viz::report_html(r, viz::ReportInputs{});
  CHECK(html.find(">479,343<") != std::string::npos);
  CHECK(html.find("479343") == std::string::npos);
}

// Several layouts: colour by layout, dash by collective; the key draws each curve's own stroke and
// dash, and five collectives get five patterns (three had repeated).
TEST_CASE("viz: the bus bandwidth key shows each curve's dash, five collectives five patterns", "[viz]") {
  std::vector<viz::BusBwPoint> pts;
  const char* ops[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall"};
  for (const char* series : {"[1] p5", "[2] p5en"})
    for (const char* op : ops)
      for (int64_t s = 1024; s <= (1 << 20); s *= 32) pts.push_back({op, s, 1e9 * s / 1024, 0, series, ""});
  const std::string svg = viz::charts::busbw(pts);
  const std::regex curve("class=\"busbw-predicted\"( stroke-dasharray=\"([^\"]*)\")?");
  std::set<std::string> curve_dashes;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), curve); it != std::sregex_iterator(); ++it)
    curve_dashes.insert((*it)[2].str());
  CHECK(curve_dashes.size() == 5);
  // Every dashed curve's pattern is in the key, on a stroke rather than a square.
  const std::string key = svg.substr(svg.find("class=\"legend\""));
  for (const auto& d : curve_dashes)
    if (!d.empty()) CHECK(key.find("stroke-dasharray=\"" + d + "\"") != std::string::npos);
  CHECK(key.find("<rect") == std::string::npos);
}

// A key entry looks like what it names: a swatch, a hollow marker, a stroke with its dash, an
// outline, a tick (the link chart's "outline" and "tick" had been drawn as hollow circles).
TEST_CASE("viz: each legend mark draws what it names", "[viz]") {
  viz::svg::Writer w(400, 100, "chart", "marks");
  viz::svg::legend(w, 0, 0, 400,
                   {{"bar", "#111"},
                    {"measured", "#222", viz::svg::Mark::Hollow},
                    {"step time", "#333", viz::svg::Mark::Stroke, "6 4"},
                    {"busy share (outline)", "#444", viz::svg::Mark::Outline},
                    {"mean (tick)", "#555", viz::svg::Mark::Tick}});
  const std::string svg = w.finish();
  auto item = [&](const std::string& label) {
    const size_t end = svg.find(">" + label + "</text>");
    REQUIRE(end != std::string::npos);
    const size_t begin = svg.rfind("legend-item", end);
    return svg.substr(begin, end - begin);
  };
  CHECK(item("bar").find("<rect") != std::string::npos);
  CHECK(item("measured").find("<circle") != std::string::npos);
  CHECK(item("step time").find("stroke-dasharray=\"6 4\"") != std::string::npos);
  CHECK(item("busy share (outline)").find("fill=\"none\"") != std::string::npos);
  const std::string tick = item("mean (tick)");
  CHECK(tick.find("<line") != std::string::npos);
  CHECK(tick.find("<circle") == std::string::npos);
}
