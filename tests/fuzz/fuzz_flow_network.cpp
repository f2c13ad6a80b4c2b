// Fuzzes sim::FlowNetwork: the input bytes build a small network and a script of arrivals,
// cancellations and clock advances, run in audit mode (every recompute SIM_CHECKs capacity and
// max-min fairness). Afterwards: every flow not cancelled finished exactly once, no cancelled flow
// ever finished, the network is empty, and each link's byte count lies between the bytes of the
// flows that finished across it and that plus the bytes of cancelled ones.
//
// Ranges keep every legal scenario inside the picosecond clock (capacity and caps >= 1 MB/s, at most
// 10 GB per flow and 64 flows: the slowest drain is 10 GB / (1 MB/s / 64) = 6.4e5 s < 106 days),
// so any sim::Overflow or failed SIM_CHECK (an uncaught exception) here is a bug.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/flow_network.hpp"

namespace {

constexpr int kMaxFlows = 64;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_flow_network: %s\n", what);
    std::abort();
  }
}

struct Record {
  sim::FlowId id;
  std::vector<uint32_t> links;
  double bytes = 0;
  int finished = 0;
  bool cancelled = false;
};

double pick_rate(FuzzedDataProvider& in) {
  // 1 MB/s .. 1 TB/s, log-uniform, sometimes exactly a round number (ties are the hard case)
  if (in.ConsumeBool()) return 1e9 * static_cast<double>(in.ConsumeIntegralInRange<int>(1, 4));
  return std::pow(10.0, in.ConsumeFloatingPointInRange<double>(6.0, 12.0));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  net.set_audit(true);

  const int n_links = in.ConsumeIntegralInRange<int>(1, 12);
  std::vector<sim::LinkId> links;
  for (int i = 0; i < n_links; ++i)
    links.push_back(
        net.add_link("l", "x", pick_rate(in), sim::Time::from_ps(in.ConsumeIntegralInRange<int64_t>(0, 10'000'000))));

  std::vector<Record> flows;
  flows.reserve(kMaxFlows);
  while (in.remaining_bytes() > 0) {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
      case 1: {  // arrival
        if (static_cast<int>(flows.size()) >= kMaxFlows) break;
        std::vector<sim::LinkId> path;
        Record r;
        const int len = in.ConsumeIntegralInRange<int>(0, std::min(5, n_links));
        for (int k = 0; k < len; ++k) {
          const auto l = in.ConsumeIntegralInRange<uint32_t>(0, n_links - 1);
          bool dup = false;
          for (uint32_t seen : r.links) dup = dup || seen == l;
          if (dup) continue;
          r.links.push_back(l);
          path.push_back(links[l]);
        }
        const int64_t bytes = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<int64_t>(1, 10'000'000'000);
        const double cap = in.ConsumeBool() ? pick_rate(in) : sim::kUnlimitedRate;
        const sim::Time extra = sim::Time::from_ps(in.ConsumeIntegralInRange<int64_t>(0, 1'000'000));
        r.bytes = static_cast<double>(bytes);
        flows.push_back(std::move(r));
        const std::size_t index = flows.size() - 1;
        flows[index].id = net.start(
            path, bytes, [&flows, index] { ++flows[index].finished; }, cap, extra);
        break;
      }
      case 2: {  // cancellation of any flow, finished or not
        if (flows.empty()) break;
        Record& r = flows[in.ConsumeIntegralInRange<std::size_t>(0, flows.size() - 1)];
        const bool was_active = net.active(r.id);
        const bool cancelled = net.cancel(r.id);
        require(cancelled == was_active, "cancel() must succeed exactly on active flows");
        r.cancelled = r.cancelled || cancelled;
        require(!net.active(r.id), "a cancelled flow is still active");
        break;
      }
      case 3: {  // let time pass: 0 (just the instant) up to 10 ms
        const sim::Time dt = sim::Time::from_ps(in.ConsumeIntegralInRange<int64_t>(0, 10'000'000'000));
        simulator.run(simulator.now() + dt);
        for (std::size_t l = 0; l < links.size(); ++l)
          require(net.link_busy(links[l]) <= simulator.now(), "a link was busy longer than time has run");
        break;
      }
    }
  }
  simulator.run();

  require(net.active_flows() == 0, "flows left active after the run");
  std::vector<double> done_bytes(links.size(), 0.0), cancelled_bytes(links.size(), 0.0);
  for (const Record& r : flows) {
    require(r.finished == (r.cancelled ? 0 : 1), "a flow finished other than exactly once (or after cancel)");
    for (uint32_t l : r.links) (r.cancelled ? cancelled_bytes : done_bytes)[l] += r.bytes;
  }
  for (std::size_t l = 0; l < links.size(); ++l) {
    const double carried = net.link_bytes(links[l]);
    const double slack = 1e-6 * (done_bytes[l] + cancelled_bytes[l]) + 1;
    require(carried >= done_bytes[l] - slack, "a link lost bytes of finished flows");
    require(carried <= done_bytes[l] + cancelled_bytes[l] + slack, "a link carried more bytes than sent");
    require(net.link_flow_count(links[l]) == 0, "a link still holds flows");
  }
  return 0;
}
