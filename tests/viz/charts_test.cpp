// viz charts and the report page, checked on their SVG/HTML text with hand-made results of 4, 8 and 1,024
// ranks (tests/viz/fixtures.hpp): one bar per rank, timeline rows, legends, no NaN, escaping,
// nothing fetched from the network.
#include <catch2/catch.hpp>
#include <cmath>
#include <regex>
#include <set>
#include <string>

#include "tests/viz/fixtures.hpp"
#include "tests/viz/html_checks.hpp"
#include "viz/charts/charts.hpp"
#include "viz/format.hpp"
#include "viz/palette.hpp"
#include "viz/svg.hpp"
#include "viz/viz.hpp"

using viz_test::count_of;
using viz_test::has_non_finite;
using viz_test::without_data_uris;

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

TEST_CASE("viz: a run longer than two days reads in days and hours, not as a clock", "[viz]") {
  CHECK(viz::fmt::duration_hms(31291641) == "362 d 04 h");        // 8692 h 27 min: a 15 T-token run on 512 GPUs
  CHECK(viz::fmt::duration_hms(47.9 * 3600) == "47:54:00");       // under two days a clock still reads well
  CHECK(viz::fmt::duration_hms(2 * 86400 + 3000) == "2 d 01 h");  // to the nearest hour
  CHECK(viz::fmt::duration_hms(1e40) == "3.17e+32 years");
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
