// The dispatcher and the catalog commands through the real binary: `commsim help CMD` is the
// command's own help, did-you-mean for a mistyped command, `commsim instances` / `presets` (text
// and JSON), `commsim help node` names only keys the loader accepts, and the completion
// scripts complete commands, options and values (bash run for real; zsh and fish parsed).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/hw/gpu.hpp"
#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "scenarios/cli/help/node_keys.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

TEST_CASE("commsim help CMD prints the command's own help", "[scenarios]") {
  for (const char* cmd : {"run", "sweep", "nccl-tests", "compare", "instances", "completion"}) {
    const auto help = run_commsim({"help", cmd});
    const auto own = run_commsim({cmd, "--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.out == own.out);
    CHECK(help.out.find(std::string("commsim ") + cmd) != std::string::npos);
  }
  const auto top = run_commsim({"help"});
  CHECK(top.exit_code == 0);
  CHECK(top.out.find("instances") != std::string::npos);
  CHECK(top.out.find("help topics") != std::string::npos);
}

TEST_CASE("commsim suggests the command a typo meant", "[scenarios]") {
  const auto r = run_commsim({"rnu", "x.toml"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "commsim: unknown command 'rnu' (did you mean 'run'?)\n");
  CHECK(run_commsim({"nccl-test"}).err == "commsim: unknown command 'nccl-test' (did you mean 'nccl-tests'?)\n");
  CHECK(run_commsim({"help", "swep"}).err == "commsim: unknown command or help topic 'swep' (did you mean 'sweep'?)\n");
  CHECK(run_commsim({"frobnicate"}).err == "commsim: unknown command 'frobnicate' (see commsim --help)\n");
  // A help topic typed as a command is offered as the help command that shows it.
  CHECK(run_commsim({"node"}).err == "commsim: unknown command 'node' (did you mean 'commsim help node'?)\n");
  CHECK(run_commsim({"jsn"}).err == "commsim: unknown command 'jsn' (did you mean 'commsim help json'?)\n");
  CHECK(run_commsim({"help", "nod"}).err == "commsim: unknown command or help topic 'nod' (did you mean 'node'?)\n");
  // `commsim help help` is the usage, as `commsim help` is.
  const auto help_help = run_commsim({"help", "help"});
  CHECK(help_help.exit_code == 0);
  CHECK(help_help.out == run_commsim({"help"}).out);
}

TEST_CASE("commsim instances lists every catalog machine with its GPUs, NVLink, NICs and source", "[scenarios]") {
  const auto text = run_commsim({"instances"});
  REQUIRE(text.exit_code == 0);
  // One line per machine: GPUs (hosts x GPUs for an NVLink domain of several hosts), the GPU with
  // its HBM and dense peaks, NVLink, NICs with their technology, source.
  auto line_of = [&](const std::string& name) {
    const auto at = text.out.find("\n" + name + " ");
    return at == std::string::npos ? std::string() : text.out.substr(at + 1, text.out.find('\n', at + 1) - at - 1);
  };
  const std::string p4d = line_of("p4d.24xlarge");
  CHECK(p4d.find(" 8  A100-40GB 40GB bf16 0.312 PF") != std::string::npos);
  CHECK(p4d.find("NVLink3 x12, NVSwitch") != std::string::npos);
  CHECK(p4d.find("4 x 100 Gb/s EFA v1") != std::string::npos);
  const std::string rack = line_of("gb200-nvl72");
  CHECK(rack.find("72 (18x4)  GB200 186GB bf16 2.5 fp8 5 fp4 10 PF") != std::string::npos);
  CHECK(rack.find("72 x 400 Gb/s InfiniBand NDR (ConnectX-7)") != std::string::npos);
  CHECK(rack.find("NVIDIA GB200 NVL72 datasheet") != std::string::npos);
  CHECK(text.out.find("commsim help node") != std::string::npos);
  // NVLS (the NVSwitch's multicast NCCL's NVLS and NVLSTree use) is named where the machine has it:
  // the RoCE DGX H100 has it off, which an IB -> RoCE what-if must not hide.
  CHECK(line_of("dgx-h100").find("NVLink4 x18, NVSwitch, NVLS ") != std::string::npos);
  CHECK(line_of("dgx-h100-roce").find("NVLS") == std::string::npos);
  const auto j = nlohmann::json::parse(run_commsim({"instances", "--json"}).out);
  for (const auto& i : j["instances"])
    if (i["name"] == "dgx-h100" || i["name"] == "dgx-h100-roce") CHECK(i["nvls"] == (i["name"] == "dgx-h100"));
  CHECK(j["command"] == "instances");
  REQUIRE(j["instances"].size() == models::hw::instance_names().size());
  for (const auto& i : j["instances"]) {
    CHECK(!i["citation"].get<std::string>().empty());
    CHECK(i["gpus"].get<int>() > 0);
    // Every listed name is one a scenario can use.
    CHECK_NOTHROW(models::hw::find_instance(i["name"].get<std::string>()));
  }
}

TEST_CASE("commsim presets lists every model preset with its shape, parameters and source", "[scenarios]") {
  const auto text = run_commsim({"presets"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("llama-3-8b            32   4096    32        8  14336  128256  GQA -                         "
                      "8.03 B     8.03 B") != std::string::npos);
  // DeepSeek-V3: multi-head latent attention, 256 routed experts of ffn 2048 (top 8) and one
  // shared; 37.55 B parameters a token passes through (the embedding included).
  CHECK(text.out.find("deepseek-v3           61   7168   128      128  18432  129280  MLA 256e x2048 top 8 +1     "
                      "671.03 B    37.55 B") != std::string::npos);
  // Qwen3-30B-A3B's experts are 768 wide; its ffn column (6144) is the dense width it does not use.
  CHECK(text.out.find("qwen3-30b-a3b         48   2048    32        4   6144  151936  GQA 128e x768 top 8") !=
        std::string::npos);
  const auto j = nlohmann::json::parse(run_commsim({"presets", "--json"}).out);
  REQUIRE(j["presets"].size() == models::model::preset_names().size());
  for (const auto& p : j["presets"]) {
    // A source other than the fallback: a new preset must say where its shape comes from.
    CHECK(p["source"] != "models/model/model_shape.cpp");
    CHECK(p["parameters"].is_number_integer());
    CHECK(p["active_parameters"].get<int64_t>() <= p["parameters"].get<int64_t>());
    CHECK((p["experts"] == 0) == (p["moe_ffn"] == 0));
  }
  CHECK(j["presets"][0]["parameters"] == 8030261248);  // Llama-3-8B, as tests/models check the count
}

TEST_CASE("commsim help node documents only [cluster.node] keys the loader accepts", "[scenarios]") {
  const auto r = run_commsim({"help", "node"});
  REQUIRE(r.exit_code == 0);
  // The loader checks that a file a key names is there (topo_file's example, topo.txt).
  const auto dir = scenarios_test::fresh_temp_dir("help-node");
  std::ofstream(dir / "topo.txt") << "\tGPU0\nGPU0\t X \n";
  for (const auto& k : scenarios::node_keys()) {
    CHECK(r.out.find(std::string("  ") + k.name + " ") != std::string::npos);
    if (std::string(k.name) == "gpu" || std::string(k.name) == "gpus") continue;
    const std::string toml = std::string("name = \"n\"\n[cluster]\n[cluster.node]\ngpu = \"H200\"\ngpus = 8\n") +
                             k.name + " = " + k.example + "\n[collective]\nop = \"all_reduce\"\nbytes = \"1 MiB\"\n";
    INFO(k.name);
    CHECK_NOTHROW(scenarios::load_scenario_text(toml, (dir / "node.toml").string(), {}, dir.string()));
  }
  // Every GPU a custom node may name, each of which loads.
  for (const auto& g : models::hw::gpu_catalog()) {
    INFO(g.name);
    const bool listed = r.out.find(g.name + ",") != std::string::npos || r.out.find(g.name + "\n") != std::string::npos;
    CHECK(listed);
    const std::string toml = "name = \"n\"\n[cluster]\n[cluster.node]\ngpu = \"" + g.name +
                             "\"\ngpus = 4\n[collective]\nop = \"all_reduce\"\nbytes = \"1 MiB\"\n";
    CHECK_NOTHROW(scenarios::load_scenario_text(toml, (dir / "node.toml").string(), {}, dir.string()));
  }
  fs::remove_all(dir);
}

namespace {
// Runs `script` in bash with the completion loaded and returns what _commsim offers.
std::string bash_complete(const fs::path& script, const std::string& words, int cword) {
  const fs::path out = script.parent_path() / "reply";
  const std::string cmd = "bash -c 'source " + script.string() + "; COMP_WORDS=(" + words +
                          "); COMP_CWORD=" + std::to_string(cword) + "; _commsim; echo \"${COMPREPLY[*]}\"' >" +
                          out.string();
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string reply = scenarios_test::slurp(out);
  if (!reply.empty() && reply.back() == '\n') reply.pop_back();
  return reply;
}
}  // namespace

TEST_CASE("commsim completion: bash completes commands, options and values", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("completion");
  const auto r = run_commsim({"completion", "bash"});
  REQUIRE(r.exit_code == 0);
  const fs::path script = dir / "commsim.bash";
  std::ofstream(script) << r.out;
  CHECK(bash_complete(script, "commsim ru", 1) == "run");
  CHECK(bash_complete(script, "commsim i", 1) == "import instances");
  CHECK(bash_complete(script, "commsim sweep x.toml --res", 3) == "--resume");
  CHECK(bash_complete(script, "commsim sweep x.toml --re", 3) == "--resume --require-fit");
  CHECK(bash_complete(script, "commsim sweep x.toml --fail", 3) == "--fail-on-error");
  CHECK(bash_complete(script, "commsim nccl-tests x.toml --op all_r", 4) == "all_reduce");
  CHECK(bash_complete(script, "commsim nccl-tests x.toml -d bf", 4) == "bfloat16");
  CHECK(bash_complete(script, "commsim import k8s job.yaml --instance p4", 5) == "p4d.24xlarge p4de.24xlarge");
  CHECK(bash_complete(script, "commsim help no", 2) == "node");
  CHECK(bash_complete(script, "commsim completion f", 2) == "fish");
  // A number, a range or KEY=V1,V2 takes no file name, though its type name has dots (N:1..1024).
  CHECK(bash_complete(script, "commsim sweep x.toml --jobs \"\"", 4).empty());
  CHECK(bash_complete(script, "commsim run x.toml --samples \"\"", 4).empty());
  CHECK(bash_complete(script, "commsim sweep x.toml --vary \"\"", 4).empty());
  CHECK(bash_complete(script, "commsim plan x.toml --gpus \"\"", 4).empty());
  fs::remove_all(dir);
}

TEST_CASE("commsim completion: zsh and fish offer files only to paths, and repeatable options again", "[scenarios]") {
  const auto zsh = run_commsim({"completion", "zsh"}).out;
  CHECK(zsh.find("N\\:0..100000:_files") == std::string::npos);
  CHECK(zsh.find("N\\:1..1024:_files") == std::string::npos);
  CHECK(zsh.find("NCCL_TESTS.txt:_files") != std::string::npos);
  // calibrate --fix and report --measured take several: zsh offers them again ('*').
  CHECK(zsh.find("'*--fix[") != std::string::npos);
  CHECK(zsh.find("'*--measured[") != std::string::npos);
  const auto fish = run_commsim({"completion", "fish"}).out;
  CHECK(fish.find("-l samples -r -F") == std::string::npos);
  CHECK(fish.find("-l vary -r -F") == std::string::npos);
  CHECK(fish.find("-l measured -r -F") != std::string::npos);
}

TEST_CASE("commsim completion: zsh and fish scripts name every command and parse in their shells", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("completion");
  for (const char* shell : {"zsh", "fish"}) {
    const auto r = run_commsim({"completion", shell});
    REQUIRE(r.exit_code == 0);
    for (const char* cmd : {"run", "compare", "sweep", "nccl-tests", "instances", "presets"})
      CHECK(r.out.find(cmd) != std::string::npos);
    CHECK(r.out.find("resume") != std::string::npos);
    const fs::path script = dir / (std::string("commsim.") + shell);
    std::ofstream(script) << r.out;
    // Parsed by the shell itself where it is installed (scripts/install-deps.sh installs both).
    const std::string check = std::string("command -v ") + shell + " >/dev/null && " + shell + " -n " + script.string();
    INFO(shell);
    CHECK(std::system(check.c_str()) == 0);
  }
  CHECK(run_commsim({"completion", "tcsh"}).exit_code == 2);
  fs::remove_all(dir);
}
