// The parameter registry (models/params.hpp): one row per [cluster.params] name, and the checks
// every model's values go through.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "models/comm_plan/link_params.hpp"
#include "models/error.hpp"
#include "models/params.hpp"

using models::ParamOwner;
using models::ParamSpec;

namespace {
// The SpecError check_param throws, as (key, message); empty key when nothing was thrown.
std::pair<std::string, std::string> error_of(const std::string& name, double value) {
  try {
    models::check_param(name, value);
  } catch (const models::SpecError& e) {
    return {e.key(), e.what()};
  }
  return {};
}
}  // namespace

TEST_CASE("params: names are unique and every registered default lies in its own range", "[models]") {
  std::set<std::string> seen;
  int with_default = 0;
  for (const ParamSpec& p : models::param_registry()) {
    INFO(p.name);
    CHECK(seen.insert(std::string(p.name)).second);
    CHECK_FALSE(p.source.empty());
    if (p.default_value) {
      ++with_default;
      CHECK(p.range.contains(*p.default_value));
      CHECK_NOTHROW(models::check_param(std::string(p.name), *p.default_value));
      CHECK(models::param_default(p.name) == *p.default_value);
    } else {
      CHECK_FALSE(p.default_note.empty());  // a computed default says where it comes from
    }
  }
  // 10 World capacities, socket.thread_duplex, 64 collective parameters (with the three step floors, nvls.efficiency,
  // nvls.latency, nvls.warp_copy_bandwidth, nvls.chunk_latency, sharp.efficiency, sharp.latency and
  // nvlink.channel_bandwidth_ll), 32 compute laws
  // (models/compute, with the mxfp8 and nvfp4 GEMM rates), 4 workload (host CPU-Adam, one core's bandwidth,
  // compute-communication interference, comm.overlap_slowdown), 1 memory (framework overhead), 15 at-scale
  // (models/params_goodput.hpp: 3 variability, 6 failure rates, 5 checkpoint and restart, 1 price;
  // checkpoint.bytes_per_param computed)
  CHECK(seen.size() == 130);
  CHECK(with_default == 91);
}

TEST_CASE("params: the collective engine's defaults are the registry's, name for name", "[models]") {
  const auto d = models::collectives::LinkParams::defaults();
  for (const ParamSpec& p : models::param_registry()) {
    if (p.owner != ParamOwner::Collectives) continue;
    INFO(p.name);
    const double v = d.get(std::string(p.name));  // every collectives name is bound to a field
    if (p.default_value) CHECK(v == *p.default_value);
  }
  // Hop latencies are NCCL's hwLat in microseconds (tuning.cc): NVLink Simple 3.4 us.
  CHECK(d.get("nvlink.hop_latency.simple") == Approx(3.4e-6));
}

TEST_CASE("params: an unknown name is an error with the closest registered names", "[models]") {
  const auto [key, message] = error_of("nvlink.efficency.simple", 0.7);
  CHECK(key == "cluster.params.nvlink.efficency.simple");
  CHECK(message ==
        "unknown parameter 'nvlink.efficency.simple' (did you mean nvlink.efficiency.ll, nvlink.efficiency.simple, "
        "nvlink.efficiency.ll128?)");
  // check_params reports it from a whole table, and the collective engine refuses it too.
  CHECK_THROWS_AS(models::check_params({{"nvlink.efficiency.ll", 0.3}, {"nic.bandwith", 1e9}}), models::SpecError);
  auto p = models::collectives::LinkParams::defaults();
  CHECK_THROWS_AS(p.apply({{"nccl.kernel_latencyy", 1e-6}}), models::SpecError);
}

TEST_CASE("params: a value out of range is an error naming the range", "[models]") {
  CHECK(error_of("nvlink.efficiency.ll", 1.5).second ==
        "parameter 'nvlink.efficiency.ll' = 1.5 is out of range (expected a fraction in (0, 1])");
  CHECK(error_of("nvlink.efficiency.ll", 1.5).first == "cluster.params.nvlink.efficiency.ll");
  CHECK(error_of("nvlink.bandwidth", 0).second ==
        "parameter 'nvlink.bandwidth' = 0 is out of range (expected a bandwidth in [1e+06, 1e+15] B/s)");
  CHECK(error_of("pcie.latency", -1e-6).second ==
        "parameter 'pcie.latency' = -1e-06 is out of range (expected a time in [0, 1] s)");
  CHECK(error_of("compute.overlap_slowdown", 11).second ==
        "parameter 'compute.overlap_slowdown' = 11 is out of range (expected a factor in [0, 10])");
  CHECK(error_of("nccl.launch_sharpness", 0.5).second.find("[1, 64]") != std::string::npos);
  CHECK_FALSE(error_of("nccl.launch_sharpness", std::nan("")).first.empty());
  CHECK_FALSE(error_of("host.core_bytes_per_s", std::numeric_limits<double>::infinity()).first.empty());
  // The edges: a latency may be 0, a bandwidth may not; an efficiency may be 1, not 0.
  CHECK(error_of("pcie.latency", 0).first.empty());
  CHECK(error_of("nvlink.efficiency.simple", 1).first.empty());
  CHECK_FALSE(error_of("nvlink.efficiency.simple", 0).first.empty());
  CHECK(error_of("compute.overlap_slowdown", 0).first.empty());
  CHECK(error_of("compute.overlap_slowdown", 10).first.empty());
}

// Values in seconds or B/s are bounded by physics, so a unit mistake is refused where it
// is written ("1e300", a latency in microseconds without its unit) instead of printing tables of
// hundreds of hours; 0 stays "unknown" for the per-channel rates.
TEST_CASE("params: times and bandwidths have physical bounds", "[models]") {
  CHECK(error_of("nccl.kernel_latency", 1).first.empty());
  CHECK(error_of("nccl.kernel_latency", 1e300).second ==
        "parameter 'nccl.kernel_latency' = 1e+300 is out of range (expected a time in [0, 1] s)");
  CHECK_FALSE(error_of("nvlink.hop_latency.simple", 5).first.empty());  // 5 us written without a unit
  CHECK(error_of("nic.bandwidth", 1e6).first.empty());
  CHECK(error_of("nic.bandwidth", 1e15).first.empty());
  CHECK_FALSE(error_of("nic.bandwidth", 1e16).first.empty());
  CHECK(error_of("ib.channel_bandwidth", 0).first.empty());
  CHECK(error_of("ib.channel_bandwidth", 1).second ==
        "parameter 'ib.channel_bandwidth' = 1 is out of range (expected 0 or a bandwidth in [1e+06, 1e+15] B/s)");
  CHECK_FALSE(error_of("nccl.launch_sharpness", 65).first.empty());
  // Every registered default sits inside its bounds; every time and bandwidth has a finite bound.
  for (const auto& p : models::param_registry()) {
    INFO(p.name);
    if (p.default_value) CHECK(p.range.contains(*p.default_value));
    if (p.unit == models::ParamUnit::Seconds || p.unit == models::ParamUnit::BytesPerSecond)
      CHECK(std::isfinite(p.range.max));
  }
}

TEST_CASE("params: a model reads a set value, or its fallback when unset", "[models]") {
  const std::map<std::string, double> set = {{"eth.bandwidth", 3e9}};
  CHECK(models::param_or(set, "eth.bandwidth", 1e9) == 3e9);
  CHECK(models::param_or(set, "nic.bandwidth", 1e9) == 1e9);
  CHECK_THROWS_AS(models::param_or({{"eth.bandwidth", -1}}, "eth.bandwidth", 1e9), models::SpecError);
}
