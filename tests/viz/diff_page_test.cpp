// `commsim diff`'s page: bars on a logarithmic axis of simulated / measured, so a row far off does
// not flatten the rows a few percent off, with percent ticks and the text table's percent format.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "viz/viz.hpp"

namespace {
// The width of the bar whose tooltip starts with `title`.
double bar_width(const std::string& html, const std::string& title) {
  const std::regex rect("<rect x=\"[^\"]*\" y=\"[^\"]*\" width=\"([0-9.]+)\"[^>]*><title>" + title);
  std::smatch m;
  REQUIRE(std::regex_search(html, m, rect));
  return std::stod(m[1]);
}
}  // namespace

TEST_CASE("viz: the diff page draws a row 25 times off and rows 2 % off, each visibly", "[viz]") {
  viz::DiffReport d;
  d.title = "diff";
  d.points = {{"nccl-tests", "all_gather 8 B", 1e-5, 2.476e-4, "", ""},
              {"compute", "gemm", 1.0, 1.02, "", ""},
              {"compute", "attention", 1.0, 0.5, "", ""}};
  const std::string html = viz::diff_html(d);
  const double far = bar_width(html, "nccl-tests all_gather 8 B");
  const double near = bar_width(html, "compute gemm");
  const double half = bar_width(html, "compute attention");
  // log(24.76) : log(1.02) : log(2): a 2 % row is 0.6 % of the far one's length, not 0.08 %.
  CHECK(near > 1.0);
  CHECK(near / far == Approx(std::log(1.02) / std::log(24.76)).epsilon(0.05));
  CHECK(half / far == Approx(std::log(2.0) / std::log(24.76)).epsilon(0.05));
  // The labels read as the text table's: "+2376.0%", "+2.0%", "-50.0%", and the axis has ticks.
  CHECK(html.find(">+2376.0%<") != std::string::npos);
  CHECK(html.find(">+2.0%<") != std::string::npos);
  CHECK(html.find(">-50.0%<") != std::string::npos);
  CHECK(html.find(">+100.0%<") != std::string::npos);  // a tick
  CHECK(html.find(">0<") != std::string::npos);        // the zero line's tick
}
