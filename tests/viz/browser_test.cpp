// The reports as a person sees them: rendered by headless Chromium (Debian's `chromium`), the
// DOM it built must hold every chart, and the browser must log no console error. Without a
// Chromium on the machine the test says SKIPPED and passes (CI installs it; see README).
// COMMSIM_SCREENSHOT=path.png also saves a screenshot of the comparison page (docs/compare.png);
// COMMSIM_VIZ_KEEP=1 keeps the rendered pages and prints where.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/viz/fixtures.hpp"
#include "viz/viz.hpp"

namespace {
namespace fs = std::filesystem;

std::optional<std::string> find_chromium() {
  if (const char* env = std::getenv("COMMSIM_CHROMIUM"); env && *env) return std::string(env);
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (::access(p, X_OK) == 0) return std::string(p);
  return std::nullopt;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

struct Browser {
  std::string exe;
  fs::path dir;  // scratch: pages, profile, outputs
  int runs = 0;

  // Runs Chromium headless on `page` with `mode` (--dump-dom or --screenshot=...); returns
  // stdout, and stderr in `err`. A fresh profile each time; no network, no background services.
  std::string run(const fs::path& page, const std::string& mode, std::string& err) {
    const fs::path profile = dir / ("profile" + std::to_string(runs));
    const fs::path out = dir / ("out" + std::to_string(runs)), errf = dir / ("err" + std::to_string(runs));
    ++runs;
    const std::string cmd = "timeout 120 '" + exe +
                            "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                            "--disable-background-networking --disable-component-update --disable-sync "
                            "--disable-dev-shm-usage --hide-scrollbars --enable-logging=stderr --v=0 "
                            "--user-data-dir='" +
                            profile.string() + "' " + mode + " 'file://" + page.string() + "' >'" + out.string() +
                            "' 2>'" + errf.string() + "'";
    const int rc = std::system(cmd.c_str());
    err = slurp(errf);
    INFO("chromium exit status " << rc << "\n" << err.substr(0, 2000));
    CHECK(rc == 0);
    return slurp(out);
  }
};

// Console errors and uncaught exceptions, as Chromium logs them with --enable-logging=stderr.
void check_no_console_errors(const std::string& err) {
  INFO(err.substr(0, 3000));
  CHECK(err.find("Uncaught") == std::string::npos);
  CHECK(err.find(":CONSOLE(") == std::string::npos);
  CHECK(err.find("Failed to load resource") == std::string::npos);
}

}  // namespace

TEST_CASE("viz: reports render in headless Chromium with every chart and no console error", "[viz][browser]") {
  const auto exe = find_chromium();
  if (!exe) {
    std::cerr << "SKIPPED viz browser test: no chromium found (install Debian's `chromium`, or set "
                 "COMMSIM_CHROMIUM)\n";
    WARN("SKIPPED: chromium not installed");
    return;
  }
  char tmpl[] = "/tmp/commsim-viz-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  Browser b{*exe, fs::path(tmpl)};
  auto write = [&](const std::string& name, const std::string& html) {
    std::ofstream(b.dir / name, std::ios::binary) << html;
    return b.dir / name;
  };
  const auto a = viz_test::one_pod_four_gpus(), c = viz_test::four_pods_one_gpu();
  const auto run8 = viz_test::make_run(viz_test::eight_ranks());
  const auto report8 =
      write("report8.html", viz::report_html(run8, viz_test::inputs_for(viz_test::eight_ranks(), true)));
  const auto report1k = write("report1024.html", viz::report_html(viz_test::make_run(viz_test::ranks_1024()),
                                                                  viz_test::inputs_for(viz_test::ranks_1024(), false)));
  const auto compare =
      write("compare.html", viz::compare_html({viz_test::make_run(a), viz_test::make_run(c)},
                                              {viz_test::inputs_for(a, true), viz_test::inputs_for(c, false)}));
  std::string err;
  SECTION("a report of 8 ranks: five charts, a bar per rank, a timeline row per rank and stream") {
    const std::string dom = b.run(report8, "--dump-dom", err);
    check_no_console_errors(err);
    CHECK(count(dom, "<svg") == 5);
    for (const char* chart : {"chart-topology", "chart-ranks", "chart-timeline", "chart-links", "chart-busbw"})
      CHECK(dom.find(chart) != std::string::npos);
    CHECK(count(dom, "class=\"bar-rank\"") == 8);
    CHECK(count(dom, "class=\"timeline-row\"") == 24);
    CHECK(count(dom, "class=\"legend-item\"") >= 12);
  }
  SECTION("a report of 1,024 ranks stays aggregated") {
    const std::string dom = b.run(report1k, "--dump-dom", err);
    check_no_console_errors(err);
    CHECK(count(dom, "<svg") == 5);
    CHECK(count(dom, "class=\"bar-group\"") == 64);
    CHECK(count(dom, "class=\"timeline-row\"") == 9);
  }
  SECTION("the comparison: ratios on top, charts side by side, and a screenshot") {
    const std::string dom = b.run(compare, "--dump-dom", err);
    check_no_console_errors(err);
    CHECK(count(dom, "class=\"chart chart-") == 9);  // four charts per column, one bus-bandwidth chart
    CHECK(count(dom, "class=\"headline-bars\"") == 1);
    CHECK(dom.find("class=\"ratio step-ratio\"") != std::string::npos);
    const fs::path png = b.dir / "compare.png";
    b.run(compare, "--window-size=1600,3900 --screenshot='" + png.string() + "'", err);
    const std::string bytes = slurp(png);
    REQUIRE(bytes.size() > 50'000);  // a blank page compresses to a few KB
    CHECK(bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    if (const char* keep = std::getenv("COMMSIM_SCREENSHOT"); keep && *keep)
      fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
  }
  SECTION("the shipped scenarios, simulated by commsim report, compared on one page") {
    std::vector<std::string> scenarios;
    for (const char* dir : {"scenarios/seeds", "scenarios/examples"})
      for (const auto& f : fs::directory_iterator(fs::path(COMMSIM_SOURCE_DIR) / dir))
        if (f.path().extension() == ".toml") scenarios.push_back(f.path().string());
    std::sort(scenarios.begin(), scenarios.end());
    REQUIRE(scenarios.size() >= 2);
    const fs::path page = b.dir / "shipped.html";
    std::string cmd = std::string("'") + COMMSIM_BINARY + "' report";
    for (const auto& sc : scenarios) cmd += " '" + sc + "'";
    cmd += " --html '" + page.string() + "' >'" + (b.dir / "report.out").string() + "' 2>&1";
    INFO(cmd << "\n" << slurp(b.dir / "report.out"));
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string dom = b.run(page, "--dump-dom", err);
    check_no_console_errors(err);
    CHECK(count(dom, "class=\"chart chart-") == 4 * scenarios.size() + 1);
    CHECK(count(dom, "class=\"ratio step-ratio\"") == scenarios.size() - 1);
    CHECK(dom.find("NaN") == std::string::npos);
  }
  if (const char* keep = std::getenv("COMMSIM_VIZ_KEEP"); keep && *keep) {
    std::cerr << "viz browser test: pages kept in " << b.dir << "\n";
  } else {
    std::error_code ec;
    fs::remove_all(b.dir, ec);
  }
}

namespace {
// Injected into a copy of a page (the pages themselves carry no script): for every chart, every pair
// of <text> elements whose rendered boxes overlap by more than 1.5 px both ways, written into the
// DOM so --dump-dom reads it. Boxes come from the browser's own layout (getBoundingClientRect), so
// font metrics are the real ones, not an estimate.
constexpr const char* kOverlapProbe = R"js(<script>
(function(){
  var out=[];
  document.querySelectorAll('svg.chart').forEach(function(svg){
    var boxes=[];
    svg.querySelectorAll('text').forEach(function(t){
      if(!t.textContent.trim())return;
      var r=t.getBoundingClientRect(); if(r.width<=0||r.height<=0)return;
      boxes.push({r:r,s:t.textContent});
    });
    for(var i=0;i<boxes.length;i++)for(var j=i+1;j<boxes.length;j++){
      var a=boxes[i].r,b=boxes[j].r;
      var dx=Math.min(a.right,b.right)-Math.max(a.left,b.left), dy=Math.min(a.bottom,b.bottom)-Math.max(a.top,b.top);
      if(dx>1.5&&dy>1.5)out.push(svg.getAttribute('class')+': "'+boxes[i].s+'" / "'+boxes[j].s+'"');
    }
  });
  var pre=document.createElement('pre'); pre.id='overlaps';
  pre.textContent='OVERLAPS '+out.length+'\n'+out.slice(0,40).join('\n')+'\nEND';
  document.body.appendChild(pre);
})();
</script>)js";

std::string overlaps_of(const std::string& dom) {
  // The probe's output, not its source (which holds the same words): the text of <pre id="overlaps">.
  const size_t pre = dom.find("<pre id=\"overlaps\">");
  if (pre == std::string::npos) return "probe did not run";
  const size_t a = dom.find("OVERLAPS ", pre), b = dom.find("\nEND", a);
  return dom.substr(a, b - a + 1);
}
}  // namespace

TEST_CASE("viz: no two labels overlap in the rendered report at 8, 64 and 4,096 ranks", "[viz][browser]") {
  const auto exe = find_chromium();
  if (!exe) {
    WARN("SKIPPED: chromium not installed");
    return;
  }
  char tmpl[] = "/tmp/commsim-viz-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  Browser b{*exe, fs::path(tmpl)};
  for (int nodes : {1, 8, 512}) {
    viz_test::Layout L;
    L.name = std::to_string(nodes) + " nodes x 8 GPUs";
    L.nodes = nodes;
    L.gpus_per_pod = 8;
    L.micro_batches = 1;
    const auto run = viz_test::make_run(L);
    std::string html = viz::report_html(run, viz_test::inputs_for(L, true));
    html.insert(html.rfind("</body>"), kOverlapProbe);
    const fs::path page = b.dir / ("overlap" + std::to_string(nodes) + ".html");
    std::ofstream(page, std::ios::binary) << html;
    std::string err;
    // A desktop window: the charts are drawn for ~1,180 px.
    const std::string dom = b.run(page, "--window-size=1280,2000 --dump-dom", err);
    const std::string found = overlaps_of(dom);
    INFO(8 * nodes << " ranks: " << found);
    CHECK(found.rfind("OVERLAPS 0\n", 0) == 0);
  }
  std::error_code ec;
  fs::remove_all(b.dir, ec);
}

TEST_CASE("viz: the sweep page over nodes renders its three charts with no overlapping label", "[viz][browser]") {
  const auto exe = find_chromium();
  if (!exe) {
    WARN("SKIPPED: chromium not installed");
    return;
  }
  char tmpl[] = "/tmp/commsim-viz-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  Browser b{*exe, fs::path(tmpl)};
  // The shipped two-node ZeRO-3 seed at 1, 2, 4 and 8 nodes, crossed with two micro-batch sizes
  // (two series on each chart), simulated by commsim.
  const fs::path page = b.dir / "sweep.html";
  const std::string cmd = std::string("'") + COMMSIM_BINARY + "' sweep '" + COMMSIM_SOURCE_DIR +
                          "/scenarios/seeds/p4d_2node_nvlink_waits_efa.toml' --vary cluster.nodes=1,2,4,8 "
                          "--vary training.micro_batch=1,2 --html '" +
                          page.string() + "' >'" + (b.dir / "sweep.out").string() + "' 2>&1";
  INFO(cmd << "\n" << slurp(b.dir / "sweep.out"));
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string html = slurp(page), err;
  const std::string dom = b.run(page, "--dump-dom", err);
  check_no_console_errors(err);
  for (const char* chart : {"chart-scaling-throughput", "chart-scaling-efficiency", "chart-scaling-breakdown"})
    CHECK(count(dom, chart) == 1);
  CHECK(count(dom, "class=\"scaling-series\"") == 4);  // two series on each line chart
  CHECK(count(dom, "class=\"scaling-point") == 16);    // eight points on each line chart
  CHECK(count(dom, "class=\"scaling-bar\"") == 8);
  CHECK(count(dom, "class=\"point-row") == 8);
  CHECK(dom.find("NaN") == std::string::npos);
  html.insert(html.rfind("</body>"), kOverlapProbe);
  const fs::path probed = b.dir / "sweep-probed.html";
  std::ofstream(probed, std::ios::binary) << html;
  const std::string found = overlaps_of(b.run(probed, "--window-size=1280,2400 --dump-dom", err));
  INFO(found);
  CHECK(found.rfind("OVERLAPS 0\n", 0) == 0);
  std::error_code ec;
  fs::remove_all(b.dir, ec);
}
