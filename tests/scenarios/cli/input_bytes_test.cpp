// Inputs as a new user or an adversary gives them, through the real binary: bytes that are not
// UTF-8 (a file name, a --set value, an NCCL log's host name, a job's name in Latin-1), a scenario
// read from a pipe (`commsim run <(generate.sh)`), YAML aliases that refer to themselves or
// expand to millions of nodes, and a pod with no containers. Each either works or is a user
// error at its place (exit 2); none is an internal error, an abort or a hang.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;
using scenarios_test::run_commsim_with;
using scenarios_test::shell_quote;
using scenarios_test::slurp;

namespace {
const std::string kSourceOfInputBytes = COMMSIM_SOURCE_DIR;
const std::string kBytesAllReduce = kSourceOfInputBytes + "/scenarios/examples/allreduce_h200x4.toml";
const std::string kRegressions = kSourceOfInputBytes + "/tests/fuzz/regressions/";

void write_input_bytes(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// Runs `script` in bash with "$0" the commsim binary and "$F" the file `f`.
scenarios_test::CommandResult bash(const std::string& script, const std::string& f) {
  return run_commsim_with("F=" + shell_quote(f) + " bash -c " + shell_quote(script), {});
}
}  // namespace

TEST_CASE("scenarios: a scenario whose file name is not UTF-8 runs, and its JSON is UTF-8", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("latin1name");
  const fs::path latin1 = dir / "caf\xe9.toml";  // Latin-1 e-acute, as an older system names files
  fs::copy_file(kBytesAllReduce, latin1);
  const auto run = run_commsim({"run", latin1.string(), "--json"});
  REQUIRE(run.exit_code == 0);
  const auto j = nlohmann::json::parse(run.out);
  // The byte 0xE9 is read as Latin-1: U+00E9, two bytes in UTF-8 (models/utf8.hpp).
  CHECK(j["inputs"]["files"][0].get<std::string>() == (dir / "caf\xc3\xa9.toml").string());
  const auto sweep = run_commsim({"sweep", latin1.string(), "--vary", "collective.bytes=1 MiB,2 MiB", "--json"});
  REQUIRE(sweep.exit_code == 0);
  size_t rows = 0;
  for (size_t at = 0, nl; (nl = sweep.out.find('\n', at)) != std::string::npos; at = nl + 1, ++rows)
    CHECK(nlohmann::json::parse(sweep.out.substr(at, nl - at))["file"] == (dir / "caf\xc3\xa9.toml").string());
  CHECK(rows == 2);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a --set value that is not UTF-8 is an error at its byte", "[scenarios]") {
  const auto r = run_commsim({"sweep", kBytesAllReduce, "--vary", "collective.bytes=1 MiB", "--set", "name=caf\xe9", "--json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "--set:1:9: a byte that is not UTF-8 text (expected UTF-8, as in a scenario file)\n");
  const auto unterminated = run_commsim({"run", kBytesAllReduce, "--set", "name=\"abc"});
  CHECK(unterminated.exit_code == 2);
  CHECK(unterminated.err.rfind("--set:1:6: unterminated string: no closing \"", 0) == 0);
}

TEST_CASE("scenarios: an NCCL log whose host name is not UTF-8 is read, its JSON is UTF-8", "[scenarios]") {
  const auto r = run_commsim({"nccl-log", kRegressions + "nccl_log/latin1-host-name.log", "--json", "--no-simulate"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("n\xc3\xb6" "de-0") != std::string::npos);
  CHECK_NOTHROW(nlohmann::json::parse(r.out));
}

TEST_CASE("scenarios: a job named in Latin-1 imports to a scenario that runs", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("latin1job");
  const std::string out = (dir / "job.toml").string();
  write_input_bytes(out, "kept\n");
  const auto imp = run_commsim({"import", "k8s", kRegressions + "k8s_job/latin1-job-name.yaml", "--model",
                                "llama-3-8b", "--out", out, "--json"});
  REQUIRE(imp.exit_code == 0);
  CHECK(nlohmann::json::parse(imp.out)["name"] == "caf\xc3\xa9-llama");
  CHECK(slurp(out).find("caf\xc3\xa9-llama") != std::string::npos);
  CHECK(run_commsim({"run", out}).exit_code == 0);  // toml++ refused the Latin-1 byte before
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a pod with no containers is not imported with an invented layout", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("nocontainers");
  const std::string out = (dir / "job.toml").string();
  const std::string yaml = kRegressions + "k8s_job/empty-containers.yaml";
  const auto r = run_commsim({"import", "k8s", yaml, "--model", "llama-3-8b", "--out", out});
  CHECK(r.exit_code == 2);
  CHECK(r.err == yaml + ":8:15: spec.containers: an empty list (expected at least one container, with the GPUs it "
                        "requests)\n");
  CHECK_FALSE(fs::exists(out));
  // With --json and an existing --out: the import fails, the file is as it was.
  write_input_bytes(out, "kept\n");
  const auto json = run_commsim({"import", "k8s", yaml, "--model", "llama-3-8b", "--out", out, "--json"});
  CHECK(json.exit_code == 2);
  CHECK(json.out.empty());
  CHECK(slurp(out) == "kept\n");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: YAML aliases to themselves and alias bombs are refused at the alias", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("aliases");
  const std::string out = (dir / "job.toml").string();
  const std::string self = kRegressions + "k8s_job/alias-self-reference.yaml";
  const auto loop = run_commsim_with("timeout 60", {"import", "k8s", self, "--out", out});
  CHECK(loop.exit_code == 2);
  CHECK(loop.err == self + ":7:12: YAML: an alias inside the node its anchor names (expected an alias to a node "
                           "defined before it: a node cannot contain itself)\n");
  // 9 levels of 9 aliases each: 9^9 = 387,420,489 nodes once expanded; refused when the count
  // passes 100,000, after reading each anchor once.
  const std::string bomb = kRegressions + "k8s_job/alias-bomb-9-levels.yaml";
  const auto boom = run_commsim_with("timeout 60", {"import", "k8s", bomb, "--out", out});
  CHECK(boom.exit_code == 2);
  CHECK(boom.err.find("YAML: aliases expand to more than 100000 nodes") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a scenario read from a pipe runs, once read, with errors at its lines", "[scenarios]") {
  const auto run = bash(R"("$0" run <(cat "$F") --json)", kBytesAllReduce);
  REQUIRE(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["inputs"]["files"][0].get<std::string>().rfind("/dev/fd/", 0) == 0);
  // A sweep loads the scenario once per point: the pipe is read once and its text kept.
  const auto sweep = bash(R"("$0" sweep <(cat "$F") --vary "collective.bytes=1 MiB,2 MiB,4 MiB")", kBytesAllReduce);
  REQUIRE(sweep.exit_code == 0);
  CHECK(std::count(sweep.out.begin(), sweep.out.end(), '\n') == 4);
  const auto piped = bash(R"(cat "$F" | "$0" run /dev/stdin)", kBytesAllReduce);
  CHECK(piped.exit_code == 0);
  // An error names the pipe's file and the line, as for a file.
  const auto bad = bash(R"("$0" run <(sed 's/^op = .*/op = "allreduse"/' "$F"))", kBytesAllReduce);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.rfind("/dev/fd/", 0) == 0);
  CHECK(bad.err.find("collective.op: unknown value \"allreduse\"") != std::string::npos);
  // A named pipe (mkfifo) is still refused at once: it may have no writer (a blocking open would
  // hang); only a pipe this process already holds is read.
  const fs::path dir = scenarios_test::fresh_temp_dir("fifo");
  const std::string fifo = (dir / "scenario.toml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto named = run_commsim_with("timeout 60", {"run", fifo});
  CHECK(named.exit_code == 2);
  CHECK(named.err.rfind(fifo + ":1:1: cannot read scenario '" + fifo + "'", 0) == 0);
  fs::remove_all(dir);
}
