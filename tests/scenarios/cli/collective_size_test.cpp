// The largest collective commsim simulates (models/collective_size.hpp: 2^50 bytes, 1 PiB),
// through the real binary: a size above it is a user error at its place in `run` and
// `nccl-tests`, and one row's error in a sweep whose other points still run; a size at the bound
// is simulated.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kSizeAllReduce = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";

std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> rows;
  for (size_t at = 0, nl; (nl = out.find('\n', at)) != std::string::npos; at = nl + 1)
    rows.push_back(nlohmann::json::parse(out.substr(at, nl - at)));
  return rows;
}

double run_time(const std::string& bytes) {
  const auto r = run_commsim({"run", kSizeAllReduce, "--set", "collective.bytes=\"" + bytes + "\"", "--json"});
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["step_time_s"].get<double>();
}
}  // namespace

TEST_CASE("scenarios: a collective over 1 PiB is a user error in run, one row's error in a sweep", "[scenarios]") {
  // 2 PiB = 2^51 bytes > 2^50: refused at the value that gave it, never an abort (exit 134).
  const auto run = run_commsim({"run", kSizeAllReduce, "--set", "collective.bytes=\"2 PiB\""});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("a collective of 2251799813685248 bytes is more than 2^50 bytes (1 PiB)") != std::string::npos);

  // In a sweep the oversized point is its row, with the error; the points around it run.
  const std::vector<std::string> sweep = {"sweep", kSizeAllReduce, "--vary", "collective.bytes=1 MiB,2 PiB,4 MiB", "--json"};
  const auto s = run_commsim(sweep);
  CHECK(s.exit_code == 0);
  const auto rows = json_lines(s.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["error"].is_null());
  CHECK(rows[2]["error"].is_null());
  REQUIRE(rows[1]["error"].is_string());
  CHECK(rows[1]["error"].get<std::string>().find("more than 2^50 bytes (1 PiB)") != std::string::npos);
  CHECK(s.err.find("1 of 3 points failed") != std::string::npos);

  // --fail-on-error: exit 1, every row still written.
  auto failing = sweep;
  failing.push_back("--fail-on-error");
  const auto f = run_commsim(failing);
  CHECK(f.exit_code == 1);
  CHECK(json_lines(f.out).size() == 3);
}

TEST_CASE("scenarios: a collective of exactly 1 PiB is simulated, on the line through 1 GiB and 1 TiB", "[scenarios]") {
  // Closed form: past a few MiB an all-reduce is bandwidth-bound, t(S) = a + 2 (n-1)/n x S / B,
  // so the latency a cancels in differences: (t(1 PiB) - t(1 TiB)) / (t(1 TiB) - t(1 GiB)) =
  // (2^50 - 2^40) / (2^40 - 2^30) = 1024 exactly (to the 9 digits JSON keeps).
  const double gib = run_time("1 GiB"), tib = run_time("1 TiB"), pib = run_time("1 PiB");
  CHECK((pib - tib) / (tib - gib) == Approx(1024.0).epsilon(1e-6));
}

TEST_CASE("scenarios: nccl-tests sizes over 1 PiB are refused at their flag", "[scenarios]") {
  const auto e = run_commsim({"nccl-tests", kSizeAllReduce, "-b", "8", "-e", "2048T"});
  CHECK(e.exit_code == 2);
  CHECK(e.err == "-e:1:1: size '2048T' is more than 2^50 bytes (1 PiB), the largest collective commsim simulates "
                 "(expected a size up to 1024T)\n");
  const auto b = run_commsim({"nccl-tests", kSizeAllReduce, "-b", "4096T", "-e", "4096T"});
  CHECK(b.exit_code == 2);
  CHECK(b.err.rfind("-b:1:1: size '4096T' is more than 2^50 bytes", 0) == 0);
  // The bound itself is a size nccl-tests' table shows.
  const auto at = run_commsim({"nccl-tests", kSizeAllReduce, "-b", "1024T", "-e", "1024T"});
  CHECK(at.exit_code == 0);
  CHECK(at.out.find("\n1125899906842624 ") != std::string::npos);  // 2^50, nccl-tests' size column
}
