// aws-ofi-nccl's region tuner (ofi_tuner.hpp): the platform look-up, the polygon test and the
// choice. The geometry follows src/tuner/nccl_ofi_regions.cpp line by line (intersect, distance,
// is_inside_region: an edge within 1e-10 counts as inside; a ray towards (2 x 100 GiB, 2 x 2^20
// ranks) crosses an odd number of edges from inside).
#include "models/nccl/ofi_tuner.hpp"

#include <algorithm>
#include <cmath>

namespace models::nccl {

namespace {
struct OfiPt {
  double x, y;
};
OfiPt ofi_sub(OfiPt a, OfiPt b) { return {a.x - b.x, a.y - b.y}; }
double ofi_dot(OfiPt a, OfiPt b) { return a.x * b.x + a.y * b.y; }
double ofi_cross(OfiPt a, OfiPt b) { return a.x * b.y - a.y * b.x; }

// Whether segment x0->x1 crosses y0->y1: 1 yes, -1 no, 0 at an end of y0->y1 or parallel; `sect`
// receives the crossing on the y line.
int ofi_intersect(OfiPt x0, OfiPt x1, OfiPt y0, OfiPt y1, double eps, OfiPt* sect) {
  const OfiPt dx = ofi_sub(x1, x0), dy = ofi_sub(y1, y0);
  const double d = ofi_cross(dy, dx);
  if (std::fabs(d) < eps) return 0;
  long double a = static_cast<long double>(ofi_cross(x0, dx) - ofi_cross(y0, dx)) / d;
  if (sect) *sect = {static_cast<double>(y0.x + a * dy.x), static_cast<double>(y0.y + a * dy.y)};
  if (a < -eps || a > 1 + eps) return -1;
  if (a < eps || a > 1 - eps) return 0;
  a = (ofi_cross(x0, dy) - ofi_cross(y0, dy)) / d;
  if (a < 0 || a > 1) return -1;
  return 1;
}

// Distance from x to the segment y0->y1 along its normal, infinite when the foot lies outside it.
double ofi_distance(OfiPt x, OfiPt y0, OfiPt y1, double eps) {
  const OfiPt dy = ofi_sub(y1, y0);
  const OfiPt x1{x.x + dy.y, x.y - dy.x};
  OfiPt s{0, 0};
  if (ofi_intersect(x, x1, y0, y1, eps, &s) == -1) return HUGE_VAL;
  s = ofi_sub(s, x);
  return std::sqrt(ofi_dot(s, s));
}
}  // namespace

OfiTunerPlatform ofi_tuner_platform(const std::string& name) {
  if (name == "p5.48xlarge" || name == "p5e.48xlarge") return OfiTunerPlatform::P5P5e;
  if (name == "p5en.48xlarge") return OfiTunerPlatform::P5en;
  if (name == "p6-b200.48xlarge") return OfiTunerPlatform::P6B200;
  if (name == "p6-b300.48xlarge") return OfiTunerPlatform::P6B300;
  return OfiTunerPlatform::None;
}

int ofi_inside_region(double px, double py, const OfiRegion& region) {
  const double eps = 1e-10;
  const auto& v = region.vertices;
  const std::size_t n = v.size();
  const OfiPt p{px, py};
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (i + 1) % n;
    if (ofi_distance(p, {v[i].first, v[i].second}, {v[k].first, v[k].second}, eps) < eps) return 0;
  }
  // The plugin's bounding box starts from vertex 0's x and vertex 1's y.
  double min_x = v[0].first, max_x = v[0].first, min_y = v[1].second, max_y = v[1].second;
  for (const auto& [x, y] : v) {
    min_x = std::min(min_x, x), max_x = std::max(max_x, x);
    min_y = std::min(min_y, y), max_y = std::max(max_y, y);
  }
  if (px < min_x || px > max_x || py < min_y || py > max_y) return -1;
  const OfiPt far{std::log2(2.0 * kOfiMaxSize), std::log2(2.0 * kOfiMaxRanks)};
  int crosses = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (i + 1) % n;
    if (ofi_intersect(p, far, {v[i].first, v[i].second}, {v[k].first, v[k].second}, eps, nullptr) == 1) ++crosses;
  }
  return (crosses & 1) ? 1 : -1;
}

std::optional<OfiChoice> ofi_tuner_choice(OfiTunerPlatform p, int nranks, int nnodes, CollOp op, int64_t bytes,
                                          const std::function<bool(Algo, Proto)>& usable) {
  if (p == OfiTunerPlatform::None || nnodes <= 2 || nranks % nnodes != 0) return std::nullopt;
  const std::vector<OfiRegion>& regions = ofi_regions(p, nranks / nnodes, op);
  const double x = std::log2(bytes > 0 ? static_cast<double>(bytes) : 1e-6);  // the plugin's log2 of 0
  const double y = std::log2(static_cast<double>(nranks));
  for (const OfiRegion& r : regions) {
    if (!usable(r.algo, r.proto)) continue;
    if (ofi_inside_region(x, y, r) >= 0) return OfiChoice{r.algo, r.proto};
  }
  return std::nullopt;
}

}  // namespace models::nccl
