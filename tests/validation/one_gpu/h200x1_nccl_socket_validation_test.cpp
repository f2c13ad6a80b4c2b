// socket.thread_duplex against its measurement (scenarios/validation/h200x1/measured/nccl_socket/,
// README there): 4 processes on one H200 VM, each its own NCCL host, every pair NET/Socket. Per
// launch, d = (mean per-direction rate of the 4-rank ring points: each rank sends and receives) /
// (mean rate of the 2-rank broadcast: one rank only sends, the other only receives); the parameter
// is the median over the launches. And the message does not matter: within a launch the TP step's
// all_reduce (32 MiB) and the FSDP2 block's all_gather (486.6 MB) move the same bytes per second.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/validation/jsonl_rows.hpp"
#include "models/params.hpp"

namespace {
struct SocketLaunchRates {
  std::vector<double> ring, one_way;
  std::map<std::string, std::vector<double>> by_point;
};

std::map<std::string, SocketLaunchRates> socket_launches() {
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured/nccl_socket/";
  std::map<std::string, SocketLaunchRates> out;
  for (const char* f : {"socket_hosts.jsonl", "cores.jsonl"}) {
    std::ifstream in(dir + f);
    REQUIRE(in.good());
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const auto j = nlohmann::json::parse(line);
      SocketLaunchRates& l = out[j.at("tag").get<std::string>()];
      const double r = j.at("per_direction_GBps");
      const std::string p = j.at("point");
      l.by_point[p].push_back(r);
      if (j.at("ranks").get<int>() == 4) l.ring.push_back(r);
      if (p == "bc2") l.one_way.push_back(r);
    }
  }
  return out;
}

double socket_rate_mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// One launch file's per-direction rates, by launch tag and point (every row of each).
std::map<std::string, std::map<std::string, std::vector<double>>> rates_by_tag_and_point(const char* file) {
  std::ifstream in(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured/nccl_socket/" + file);
  REQUIRE(in.good());
  std::map<std::string, std::map<std::string, std::vector<double>>> rate;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    rate[j.at("tag").get<std::string>()][j.at("point").get<std::string>()].push_back(j.at("per_direction_GBps"));
  }
  return rate;
}
}  // namespace

TEST_CASE("validation: socket.thread_duplex is the median both-way over one-way ratio through NCCL", "[validation][nccl]") {
  const auto all = socket_launches();
  REQUIRE(all.size() == 7);
  std::vector<double> d;
  for (const auto& [tag, l] : all) {
    REQUIRE(l.ring.size() >= 8);
    REQUIRE(l.one_way.size() >= 2);
    d.push_back(socket_rate_mean(l.ring) / socket_rate_mean(l.one_way));
    std::printf("%-9s ring %.2f GB/s, one-way %.2f GB/s, d %.3f\n", tag.c_str(), socket_rate_mean(l.ring), socket_rate_mean(l.one_way), d.back());
  }
  const double med = validation::median(d);
  CHECK(models::param_default("socket.thread_duplex") == Approx(med).margin(0.005));
  for (double x : d) CHECK(std::fabs(x - med) <= 0.08);  // 0.54-0.65: placement moves rates, not the ratio
}

TEST_CASE("validation: the TP all_reduce and the FSDP2 block all_gather move alike over Socket", "[validation][nccl]") {
  for (const auto& [tag, l] : socket_launches()) {
    const double ar = socket_rate_mean(l.by_point.at("ar32")), ag = socket_rate_mean(l.by_point.at("ag_blk"));
    CHECK(std::fabs(ar / ag - 1) <= 0.12);  // a point moves +-15 % round to round
  }
}

// Pods in network namespaces of their own (veth pairs on one Linux bridge, as a pod without
// hostNetwork gets from a bridge CNI) against the same processes over loopback, interleaved in one
// call (pod_netns.jsonl, README there). commsim has one Socket rate for pods of one host whatever
// their namespace; this is the measurement that rests on: every point where ranks send and receive
// crosses the bridge within the +-15 % a point moves round to round, and only a one-way edge at
// MTU 1500 is slower.
TEST_CASE("validation: NCCL's Socket collectives cross a pod bridge at loopback's rate", "[validation][nccl]") {
  const auto rate = rates_by_tag_and_point("pod_netns.jsonl");
  REQUIRE(rate.size() == 3);
  for (const char* bridge : {"mtu1500", "mtu9001"}) {
    for (const char* p : {"ar32", "ag_blk", "rs_blk", "ag64", "ar2"}) {
      REQUIRE(rate.at(bridge).at(p).size() == 6);
      const double r = validation::median(rate.at(bridge).at(p)) / validation::median(rate.at("lo").at(p));
      std::printf("%s %-6s bridge / lo %.2f\n", bridge, p, r);
      CHECK(std::fabs(r - 1) <= 0.15);
    }
  }
  const double one_way_1500 =
      validation::median(rate.at("mtu1500").at("bc2")) / validation::median(rate.at("lo").at("bc2"));
  const double one_way_9001 =
      validation::median(rate.at("mtu9001").at("bc2")) / validation::median(rate.at("lo").at("bc2"));
  CHECK(one_way_1500 == Approx(0.83).margin(0.01));
  CHECK(one_way_9001 == Approx(0.95).margin(0.01));
}

// Point-to-point over Socket against the all-reduce on the same ring edges, with NCCL's
// point-to-point chunk varied (socket_p2p.jsonl, README there): the figures docs/accuracy.md quotes.
// A larger chunk lifts the ring send/recv towards the collectives' rate, and a fixed time per chunk
// in series with a rate, fitted on 128 KiB and 1 MiB, puts 512 KiB within 6 %.
TEST_CASE("validation: point-to-point over Socket gains with NCCL's chunk", "[validation][nccl]") {
  const auto rate = rates_by_tag_and_point("socket_p2p.jsonl");
  auto med = [&](const char* tag, const char* point) {
    REQUIRE(rate.at(tag).at(point).size() == 6);
    return validation::median(rate.at(tag).at(point));
  };
  const double r128 = med("chunk128k", "sr64"), r512 = med("chunk512k", "sr64"), r1m = med("chunk1m", "sr64");
  CHECK(r128 / med("chunk128k", "ar32") == Approx(0.67).margin(0.005));
  CHECK(r512 / med("chunk512k", "ar32") == Approx(0.77).margin(0.005));
  CHECK(r1m / med("chunk1m", "ar32") == Approx(0.79).margin(0.005));
  CHECK(r128 < r512);
  CHECK(r512 < r1m);
  // chunk / (t0 + chunk / R) through the two ends
  const double c1 = 131072, c2 = 1048576, t1 = c1 / (r128 * 1e9), t2 = c2 / (r1m * 1e9);
  const double R = (c2 - c1) / (t2 - t1), t0 = t1 - c1 / R;
  std::printf("per chunk %.1f us, rate %.2f GB/s\n", t0 * 1e6, R / 1e9);
  CHECK(t0 * 1e6 == Approx(20.5).margin(0.1));
  CHECK(R / 1e9 == Approx(2.14).margin(0.01));
  CHECK(std::fabs(524288 / (t0 + 524288 / R) / (r512 * 1e9) - 1) <= 0.06);
}
