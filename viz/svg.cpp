// SVG primitives (see svg.hpp): the only place that writes SVG syntax by hand.
#include "viz/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace viz::svg {

std::string esc(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text; they would make the SVG invalid.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) v = 0;
  // Pixel coordinates never need more than 2 decimals; clamp absurd values so printf stays short.
  v = std::clamp(v, -1e9, 1e9);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0" || s.empty()) return std::string("0");
  return s;
}

Writer::Writer(double width, double height, std::string_view css_class, std::string_view aria_label,
               double max_css_width) {
  out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" << esc(css_class) << "\" viewBox=\"0 0 " << num(width)
       << ' ' << num(height) << "\" width=\"" << num(width) << "\" height=\"" << num(height)
       << "\" role=\"img\" aria-label=\"" << esc(aria_label) << "\" preserveAspectRatio=\"xMinYMin meet\"";
  if (max_css_width > 0) out_ << " style=\"max-width:" << num(max_css_width) << "px\"";
  out_ << '>';
}

void Writer::rect(double x, double y, double w, double h, std::string_view fill, std::string_view css_class,
                  std::string_view tooltip, std::string_view extra) {
  out_ << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(std::max(0.0, w)) << "\" height=\""
       << num(std::max(0.0, h)) << "\" fill=\"" << esc(fill) << '"';
  if (!css_class.empty()) out_ << " class=\"" << esc(css_class) << '"';
  if (!extra.empty()) out_ << ' ' << extra;
  if (tooltip.empty()) {
    out_ << "/>";
  } else {
    out_ << "><title>" << esc(tooltip) << "</title></rect>";
  }
}

void Writer::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
                  std::string_view extra) {
  out_ << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\"" << num(y2)
       << "\" stroke=\"" << esc(stroke) << "\" stroke-width=\"" << num(width) << '"';
  if (!extra.empty()) out_ << ' ' << extra;
  out_ << "/>";
}

void Writer::polyline(const std::vector<std::pair<double, double>>& pts, std::string_view stroke, double width,
                      std::string_view extra) {
  out_ << "<polyline fill=\"none\" stroke=\"" << esc(stroke) << "\" stroke-width=\"" << num(width) << "\" points=\"";
  for (size_t i = 0; i < pts.size(); ++i) out_ << (i ? " " : "") << num(pts[i].first) << ',' << num(pts[i].second);
  out_ << '"';
  if (!extra.empty()) out_ << ' ' << extra;
  out_ << "/>";
}

void Writer::circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke,
                    std::string_view tooltip, std::string_view css_class) {
  out_ << "<circle cx=\"" << num(cx) << "\" cy=\"" << num(cy) << "\" r=\"" << num(r) << "\" fill=\"" << esc(fill)
       << "\" stroke=\"" << esc(stroke) << "\" stroke-width=\"1.5\"";
  if (!css_class.empty()) out_ << " class=\"" << esc(css_class) << '"';
  if (tooltip.empty()) {
    out_ << "/>";
  } else {
    out_ << "><title>" << esc(tooltip) << "</title></circle>";
  }
}

void Writer::text(double x, double y, std::string_view s, const TextStyle& st) {
  out_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(st.size) << "\" text-anchor=\""
       << esc(st.anchor) << "\" fill=\"" << esc(st.fill) << '"';
  if (st.weight != "normal") out_ << " font-weight=\"" << esc(st.weight) << '"';
  if (!st.css_class.empty()) out_ << " class=\"" << esc(st.css_class) << '"';
  if (st.vertical) out_ << " transform=\"rotate(-90 " << num(x) << ' ' << num(y) << ")\"";
  out_ << '>' << esc(s) << "</text>";
}

void Writer::open_group(std::string_view css_class, std::string_view extra) {
  out_ << "<g";
  if (!css_class.empty()) out_ << " class=\"" << esc(css_class) << '"';
  if (!extra.empty()) out_ << ' ' << extra;
  out_ << '>';
}

void Writer::close_group() { out_ << "</g>"; }
void Writer::raw(std::string_view markup) { out_ << markup; }

std::string Writer::finish() {
  out_ << "</svg>";
  return out_.str();
}

double Scale::operator()(double v) const {
  double a = d0, b = d1, x = v;
  if (log) {
    a = std::log10(std::max(d0, 1e-300));
    b = std::log10(std::max(d1, 1e-300));
    x = std::log10(std::max(v, 1e-300));
  }
  if (!(b != a) || !std::isfinite(x)) return r0;
  return r0 + (x - a) / (b - a) * (r1 - r0);
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo || target < 1) return {lo};
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi, double base) {
  std::vector<double> ticks;
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi) || base <= 1) return {lo, hi};
  for (double t = std::pow(base, std::ceil(std::log(lo) / std::log(base) - 1e-9)); t <= hi * (1 + 1e-9); t *= base)
    ticks.push_back(t);
  // A decimal axis spanning less than a few decades also gets 2 and 5 (then every digit) times
  // each power, so a plan whose rows lie within one decade is read off more than two ticks.
  if (base == 10 && ticks.size() < 3)
    for (const std::vector<double>& steps :
         {std::vector<double>{1, 2, 5}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
      std::vector<double> finer;
      for (double p = std::pow(10.0, std::floor(std::log10(lo))); p <= hi * (1 + 1e-9); p *= 10)
        for (double m : steps)
          if (p * m >= lo * (1 - 1e-9) && p * m <= hi * (1 + 1e-9)) finer.push_back(p * m);
      if (finer.size() > ticks.size()) ticks = std::move(finer);
      if (ticks.size() >= 3) break;
    }
  if (ticks.size() < 2) return {lo, hi};
  return ticks;
}

namespace {
// Width estimate: ~6.6 px per character at 12 px, good enough for Latin labels.
double item_width(const LegendItem& it) {
  return (it.mark == Mark::Stroke ? 24 : 18) + 6.6 * static_cast<double>(it.label.size()) + 16;
}
constexpr double kLegendRow = 18;
}  // namespace

double legend_height(double max_width, const std::vector<LegendItem>& items) {
  double cx = 0, h = kLegendRow;
  for (const auto& it : items) {
    if (cx > 0 && cx + item_width(it) > max_width) {
      cx = 0;
      h += kLegendRow;
    }
    cx += item_width(it);
  }
  return h;
}

double legend(Writer& w, double x, double y, double max_width, const std::vector<LegendItem>& items) {
  double cx = x, cy = y;
  const double row = kLegendRow;
  w.open_group("legend");
  for (const auto& it : items) {
    const double item_w = item_width(it);
    if (cx > x && cx + item_w > x + max_width) {
      cx = x;
      cy += row;
    }
    w.open_group("legend-item");
    switch (it.mark) {
      case Mark::Hollow: w.circle(cx + 6, cy + 6, 5, "#fff", it.color); break;
      case Mark::Stroke:
        w.line(cx, cy + 6, cx + 18, cy + 6, it.color, it.dash.empty() ? 3 : 2,
               it.dash.empty() ? "" : "stroke-dasharray=\"" + it.dash + "\"");
        break;
      case Mark::Outline:
        w.rect(cx, cy, 12, 12, "none", "", "", "stroke=\"" + it.color + "\" stroke-width=\"1\"");
        break;
      case Mark::Tick: w.line(cx + 6, cy - 1, cx + 6, cy + 13, it.color, 2.5); break;
      case Mark::Square: w.rect(cx, cy, 12, 12, it.color, "", "", "stroke=\"#444\" stroke-width=\"0.5\""); break;
    }
    w.text(cx + (it.mark == Mark::Stroke ? 24 : 18), cy + 10.5, it.label, {.size = 12});
    w.close_group();
    cx += item_w;
  }
  w.close_group();
  return cy - y + row;
}

}  // namespace viz::svg
