// `commsim report` at 4,096 GPUs with a pipeline of 128 micro-batches: the page's size follows
// what it shows (a few ranks' timelines, two nodes of the topology), not the rank or micro-batch
// count; the topology keeps every level the run used (NVLink inside a node as well as InfiniBand
// between nodes); the trace has a process only for the nodes whose ranks have a row.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
std::string read_all_cmd_report_scale(const std::filesystem::path& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("commsim report: a 4,096-GPU pipeline-parallel report stays small and keeps NVLink", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("report-scale");
  const auto scenario = dir / "pp4096.toml";
  std::ofstream(scenario) << R"(name = "GPT 18B, tp 8 x pp 8 x dp 64 on 4,096 A100"
[cluster]
instance = "dgx-a100-80gb"
nodes = 512
[model]
preset = "sc21-18b"
seq = 2048
[training]
micro_batch = 1
global_batch = 8192
[parallel]
strategy = "megatron"
tp = 8
pp = 8
)";
  const auto html = dir / "r.html", trace = dir / "r.json";
  const auto r = run_commsim({"report", scenario.string(), "--html", html.string(), "--trace", trace.string(),
                              "--no-busbw"});
  REQUIRE(r.exit_code == 0);
  // 128 micro-batches per step (8,192 / 64 replicas) on 4,096 ranks: a page under 5 MB.
  CHECK(std::filesystem::file_size(html) < 5'000'000);
  const std::string page = read_all_cmd_report_scale(html);
  CHECK(page.find("grad accum 128") != std::string::npos);  // from global_batch, not the default 1
  const auto topo = page.find("Topology and NCCL transports");
  REQUIRE(topo != std::string::npos);
  const auto topo_end = page.find("<h2>", topo);
  const std::string picture = page.substr(topo, topo_end - topo);
  CHECK(picture.find("NVLink") != std::string::npos);
  CHECK(picture.find("NET/IB") != std::string::npos);
  // Every node named in the trace has at least one span.
  const auto doc = nlohmann::json::parse(read_all_cmd_report_scale(trace));
  std::set<int> named, used;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"].get<std::string>().rfind("node ", 0) == 0)
      named.insert(e["pid"].get<int>());
    if (e["ph"] == "X") used.insert(e["pid"].get<int>());
  }
  CHECK(!named.empty());
  for (int pid : named) CHECK(used.count(pid) == 1);
}

TEST_CASE("commsim report: the summary's parallel line names every degree of the layout", "[scenarios]") {
  // Llama 4 Maverick with expert parallelism: tp 4, pp 4, ep 8 on 128 GPUs, so dp 8, as the layout line says.
  const auto dir = std::filesystem::temp_directory_path() / "commsim-report-degrees";
  std::filesystem::create_directories(dir);
  const std::string html = (dir / "r.html").string();
  const auto r = run_commsim(
      {"report", std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/llama4_maverick_ep.toml", "--html", html});
  REQUIRE(r.exit_code == 0);
  std::ifstream in(html);
  std::stringstream page;
  page << in.rdbuf();
  CHECK(page.str().find("<th>parallel</th><td>megatron tp 4 pp 4 dp 8 ep 8") != std::string::npos);
  std::filesystem::remove_all(dir);
}
