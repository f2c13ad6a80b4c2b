#pragma once
// SVG primitives: escaping, finite number formatting, a small element writer, scales and ticks.
// Every chart goes through these, so no NaN, no unescaped user text and no stray attribute
// syntax can reach the page (tests grep the output for exactly those).
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace viz::svg {

// XML/HTML text and attribute escaping (& < > " ').
std::string esc(std::string_view text);
// A coordinate or length: finite, at most 2 decimals, no trailing zeros ("12.5", "0").
// Non-finite input becomes 0 so a bad value shows as a missing bar, never as "nan" in the SVG.
std::string num(double v);

struct TextStyle {
  double size = 12;
  std::string anchor = "start";  // start | middle | end
  std::string fill = "#222";
  std::string weight = "normal";
  std::string css_class;
  bool vertical = false;  // rotated -90 degrees about (x, y): y-axis titles
};

// Builds one <svg> element. Width/height set the viewBox; the element scales to its container.
class Writer {
 public:
  // `max_css_width` > 0 caps the drawn width (px), for small pictures in wide columns.
  Writer(double width, double height, std::string_view css_class, std::string_view aria_label,
         double max_css_width = 0);
  // `tooltip` becomes a <title> child (native browser tooltip, no script).
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view css_class = "",
            std::string_view tooltip = "", std::string_view extra = "");
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
            std::string_view extra = "");
  void polyline(const std::vector<std::pair<double, double>>& pts, std::string_view stroke, double width,
                std::string_view extra = "");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke,
              std::string_view tooltip = "", std::string_view css_class = "");
  void text(double x, double y, std::string_view s, const TextStyle& style = {});
  void open_group(std::string_view css_class, std::string_view extra = "");
  void close_group();
  void raw(std::string_view markup);  // already-escaped markup only
  std::string finish();               // closes the <svg>; the writer is spent afterwards

 private:
  std::ostringstream out_;
};

// Maps a data interval onto a pixel interval; log scales map log10 of the value.
struct Scale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  bool log = false;
  double operator()(double v) const;
};

// "Nice" linear ticks (1, 2, 5 x 10^k steps) covering [lo, hi], about `target` of them.
std::vector<double> linear_ticks(double lo, double hi, int target);
// Powers of `base` within [lo, hi] (at least the two ends when none falls inside); base 10 over
// less than three powers adds their 2 and 5 multiples, then every digit's.
std::vector<double> log_ticks(double lo, double hi, double base);

// Legend entries laid out left to right, wrapping at `max_width`. Returns the height used.
// How an entry is drawn: as what it names looks on the chart.
enum class Mark {
  Square,   // a filled swatch (bars, areas)
  Hollow,   // an outlined circle (measured points)
  Stroke,   // a short line with the curve's dash pattern ("" solid): where curves differ by dash
  Outline,  // an unfilled box (a bar's outline)
  Tick,     // a short vertical bar (a mean marked on a bar)
};
struct LegendItem {
  std::string label;
  std::string color;
  Mark mark = Mark::Square;
  std::string dash;  // Stroke: its stroke-dasharray
};
double legend_height(double max_width, const std::vector<LegendItem>& items);
double legend(Writer& w, double x, double y, double max_width, const std::vector<LegendItem>& items);

}  // namespace viz::svg
