// The scenario loader: the shipped examples, --set overrides, key positions for SpecErrors,
// calibration profiles and DeepSpeed JSON with "auto".
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "models/error.hpp"
#include "models/workload/layout.hpp"
#include "models/model/model_shape.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/models/param_margin.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios::load_scenario;
using scenarios::load_scenario_text;

namespace {
const std::string kExamples = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/";
const char* kMinimal = R"(name = "minimal"
[cluster]
instance = "h200x4"
[placement]
gpus_per_pod = 4
[collective]
op = "all_reduce"
bytes = "1 GiB"
)";

void write_loader(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// A p4d.24xlarge Llama-3-8B scenario in `dir` that reads `json` as its DeepSpeed config; `zero`
// is appended as the scenario's own [zero] table (its first key lands on line 7).
scenarios::LoadedScenario load_with_deepspeed(const fs::path& dir, const std::string& json,
                                              const std::string& zero = "") {
  write_loader(dir / "ds.json", json);
  write_loader(dir / "s.toml",
        "deepspeed_config = \"ds.json\"\n[cluster]\ninstance = \"p4d.24xlarge\"\n"
        "[model]\npreset = \"llama-3-8b\"\n" +
            (zero.empty() ? "" : "[zero]\n" + zero));
  return load_scenario((dir / "s.toml").string());
}
}  // namespace

TEST_CASE("scenarios: the shipped examples load with the contract's keys", "[scenarios]") {
  const auto coll = load_scenario(kExamples + "allreduce_h200x4.toml");
  CHECK(coll.spec.cluster.instance == "h200x4");
  REQUIRE(coll.spec.collective);
  CHECK(coll.spec.collective->bytes == (int64_t{1} << 30));  // "1 GiB" = 2^30 bytes
  CHECK(coll.spec.collective->op == "all_reduce");
  CHECK(coll.spec.nccl_env.at("NCCL_NVLS_ENABLE") == "0");
  CHECK_FALSE(coll.spec.model);

  const auto z3 = load_scenario(kExamples + "p4d_zero3_llama3_8b.toml");
  CHECK(z3.spec.cluster.instance == "p4d.24xlarge");
  REQUIRE(z3.spec.model);
  CHECK(z3.spec.model->preset == "llama-3-8b");
  CHECK(z3.spec.training.grad_accum == 4);
  CHECK(z3.spec.training.steps == 50);
  CHECK(z3.spec.training.grad_checkpointing);
  CHECK(z3.spec.zero.offload_optimizer == "cpu");
  CHECK(z3.spec.zero.offload_param == "cpu");
  CHECK(z3.spec.zero.reduce_bucket_size == 5e7);
  // "auto" persistence threshold, as the Hugging Face Trainer fills it: 10 * hidden (4096).
  CHECK(z3.spec.zero.stage3_param_persistence_threshold == 40960);
}

TEST_CASE("scenarios: --set overrides any key, typed as TOML, else taken as a string", "[scenarios]") {
  const auto s = load_scenario_text(
      kMinimal, "m.toml",
      {"placement.gpus_per_pod=1", "placement.pods_per_node=4", "placement.host_ipc=false", "collective.bytes=256 MiB",
       "nccl.env.NCCL_P2P_DISABLE=1", "training.steps=7", "name=\"quoted name\""});
  CHECK(s.spec.placement.gpus_per_pod == 1);
  CHECK(s.spec.placement.pods_per_node == 4);
  CHECK_FALSE(s.spec.placement.host_ipc);
  CHECK(s.spec.collective->bytes == 256 * 1048576);
  CHECK(s.spec.nccl_env.at("NCCL_P2P_DISABLE") == "1");  // an integer becomes the env string
  CHECK(s.spec.training.steps == 7);                     // created a table the file did not have
  CHECK(s.spec.name == "quoted name");
  // The value column of "placement.gpus_per_pod=1" is 24 (key of 22 characters, then '=').
  CHECK(s.position_of("placement.gpus_per_pod").str() == "--set:1:24");
  CHECK(s.position_of("placement.host_ipc").str() == "--set:3:20");
  // The file's own keys keep their place.
  CHECK(s.position_of("cluster.instance").str() == "m.toml:3:12");
}

TEST_CASE("scenarios: a SpecError from the models is reported where its key was written", "[scenarios]") {
  const auto s = load_scenario_text(kMinimal, "layout.toml");
  const auto e = s.to_user_error(models::SpecError("placement.gpus_per_pod", "8 GPUs per pod but the node has 4"));
  CHECK(std::string(e.what()) == "layout.toml:5:16: 8 GPUs per pod but the node has 4");
  // A key that was not written falls back to its table, then to the file.
  CHECK(s.to_user_error(models::SpecError("placement.pods_per_node", "x")).pos().str() == "layout.toml:4:1");
  CHECK(s.to_user_error(models::SpecError("parallel.tp", "x")).pos().str() == "layout.toml:1:1");
  CHECK(s.to_user_error(models::SpecError("nccl.env.NCCL_ALGO", "x")).pos().str() == "layout.toml:1:1");
}

TEST_CASE("scenarios: tables are closed and typos get a suggestion", "[scenarios]") {
  CHECK(scenarios::closest_match("gpus_per_pdo", {"pods_per_node", "gpus_per_pod"}) == "gpus_per_pod");
  CHECK(scenarios::closest_match("nmae", {"name", "model"}) == "name");  // a swap is one typo
  CHECK(scenarios::closest_match("banana", {"steps", "dtype"}).empty());
  CHECK_THROWS_WITH(load_scenario_text(std::string(kMinimal) + "[training]\nstpes = 3\n", "t.toml"),
                    "t.toml:10:1: unknown key 'stpes' in [training] (did you mean 'steps'?)");
}

TEST_CASE("scenarios: a calibration profile fills cluster.params, the scenario's own values win", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("profile");
  write_loader(dir / "prof.toml", "[params]\n\"nvlink.bw\" = \"20 GB/s\"\nnvlink.latency = 2e-6\nshm.bw = 9e9\n");
  write_loader(dir / "s.toml", std::string(kMinimal) + "[cluster.params]\n\"shm.bw\" = \"5 GB/s\"\n");
  const auto s = load_scenario((dir / "s.toml").string(), {"cluster.profile=" + (dir / "prof.toml").string()});
  CHECK(s.spec.cluster.params.at("nvlink.bw") == Approx(20e9));
  CHECK(s.spec.cluster.params.at("nvlink.latency") == Approx(2e-6));  // nested table flattened
  CHECK(s.spec.cluster.params.at("shm.bw") == Approx(5e9));           // scenario wins
  CHECK(s.position_of("cluster.params.nvlink.bw").file == (dir / "prof.toml").string());
  CHECK(s.position_of("cluster.params.shm.bw").file == (dir / "s.toml").string());
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a DeepSpeed JSON is read verbatim and its \"auto\" resolved", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("ds");
  // The seeds' real file (scenarios/seeds/notes/002_*), trimmed to the keys that matter.
  write_loader(dir / "ds.json", R"({
    "bf16": { "enabled": true },
    "zero_optimization": {
        "stage": 3,
        "offload_optimizer": { "device": "cpu", "pin_memory": true },
        "offload_param": { "device": "cpu", "pin_memory": true },
        "overlap_comm": true,
        "sub_group_size": 1e8,
        "reduce_bucket_size": 5e7,
        "stage3_prefetch_bucket_size": "auto",
        "stage3_param_persistence_threshold": "auto",
        "stage3_max_live_parameters": 1e8,
        "stage3_max_reuse_distance": 1e8,
        "stage3_gather_16bit_weights_on_model_save": true
    },
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": 4
})");
  write_loader(dir / "s.toml", R"(deepspeed_config = "ds.json"
[cluster]
instance = "p4d.24xlarge"
[model]
preset = "llama-3-8b"
hidden = 4096
[training]
micro_batch = 2
[zero]
reduce_bucket_size = 1e6
)");
  const auto s = load_scenario((dir / "s.toml").string());
  const auto& z = s.spec.zero;
  CHECK(z.stage == 3);
  CHECK(z.offload_optimizer == "cpu");
  CHECK(z.offload_param == "cpu");
  CHECK(z.sub_group_size == 1e8);
  CHECK(z.stage3_max_live_parameters == 1e8);
  CHECK(z.stage3_max_reuse_distance == 1e8);  // it sets the checkpointed backward's re-gathers
  CHECK(z.reduce_bucket_size == 1e6);         // the scenario's [zero] wins over the JSON
  // Hugging Face Trainer: prefetch = 0.9 * hidden^2, persistence = 10 * hidden.
  CHECK(z.stage3_prefetch_bucket_size == std::floor(0.9 * 4096.0 * 4096.0));
  CHECK(z.stage3_param_persistence_threshold == 40960);
  CHECK(s.spec.training.micro_batch == 2);  // "auto": from [training]
  CHECK(s.spec.training.grad_accum == 4);   // a number in the JSON, not set in [training]
  CHECK(s.spec.training.dtype == "bf16");
  CHECK(s.position_of("zero.sub_group_size").str() == (dir / "ds.json").string() + ":8:9");
  CHECK(s.position_of("zero.reduce_bucket_size").str() == (dir / "s.toml").string() + ":10:22");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: DeepSpeed's field names work like their stage3_ aliases", "[scenarios]") {
  // DeepSpeedZeroConfig accepts both spellings (Field(..., alias="stage3_max_live_parameters")).
  const fs::path dir = scenarios_test::fresh_temp_dir("ds_alias");
  const auto s = load_with_deepspeed(dir, R"({"zero_optimization": {"stage": 3, "max_live_parameters": 3e8,
    "max_reuse_distance": 2e8, "prefetch_bucket_size": 4e7, "param_persistence_threshold": 1e5}})");
  const auto& z = s.spec.zero;
  CHECK(z.stage3_max_live_parameters == 3e8);
  CHECK(z.stage3_max_reuse_distance == 2e8);
  CHECK(z.stage3_prefetch_bucket_size == 4e7);
  CHECK(z.stage3_param_persistence_threshold == 1e5);
  CHECK(s.position_of("zero.stage3_max_reuse_distance").str() == (dir / "ds.json").string() + ":2:5");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: DeepSpeed's legacy offload flags apply, newer keys are accepted, unmodelled ones are listed",
          "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("ds_legacy");
  const auto s = load_with_deepspeed(dir, R"({"zero_optimization": {"stage": 3, "cpu_offload": true,
    "cpu_offload_param": true, "zero_quantized_weights": true, "zero_hpz_partition_size": 8, "reduce_scatter": true,
    "stage3_use_all_reduce_for_fetch_params": false, "zenflow": {"topk_ratio": 0.1},
    "leaf_module": {"classes": []}, "stage3_allgather_sequential": false}})");
  const auto& z = s.spec.zero;
  CHECK(z.offload_optimizer == "cpu");  // cpu_offload: true (deprecated spelling)
  CHECK(z.offload_param == "cpu");      // cpu_offload_param: true
  // Only the keys set away from DeepSpeed's defaults, in key order.
  CHECK(z.unmodelled == std::vector<std::string>{"zenflow", "zero_hpz_partition_size", "zero_quantized_weights"});
  fs::remove_all(dir);
}

TEST_CASE("scenarios: [zero] overrides the DeepSpeed JSON whichever spelling each uses", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("ds_override");
  const auto s = load_with_deepspeed(dir, R"({"zero_optimization": {"stage": 3, "stage3_max_reuse_distance": 1e8,
    "max_live_parameters": 1e8}})",
                                     "max_reuse_distance = 1e9\nstage3_max_live_parameters = 3e8\n");
  CHECK(s.spec.zero.stage3_max_reuse_distance == 1e9);
  CHECK(s.spec.zero.stage3_max_live_parameters == 3e8);
  CHECK(s.position_of("zero.stage3_max_reuse_distance").str() == (dir / "s.toml").string() + ":7:22");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a DeepSpeed JSON with comments and commas loads as DeepSpeed's Hjson reader takes it",
          "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("ds-hjson");
  const auto strict = load_with_deepspeed(dir, R"({"zero_optimization": {"stage": 3, "reduce_bucket_size": 5e7,
    "overlap_comm": false}, "gradient_accumulation_steps": 4})");
  // #, // and /* */ comments, trailing commas, a comma left out at the end of a line.
  const auto lenient = load_with_deepspeed(dir, R"({
  # ZeRO-3 for the 8B run
  "zero_optimization": {
    "stage": 3,                 // partition everything
    "reduce_bucket_size": 5e7   /* elements, not bytes */
    "overlap_comm": false,
  },
  "gradient_accumulation_steps": 4,
})");
  CHECK(lenient.spec.zero.stage == strict.spec.zero.stage);
  CHECK(lenient.spec.zero.reduce_bucket_size == 5e7);
  CHECK_FALSE(lenient.spec.zero.overlap_comm);
  CHECK(lenient.spec.training.grad_accum == 4);
  // Comment markers inside strings are text.
  const auto in_string = load_with_deepspeed(dir, R"({"zero_optimization": {"offload_optimizer": {"device": "cpu",
    "nvme_path": "/local/nvme#1//x/*y*/"}}})");
  CHECK(in_string.spec.zero.offload_optimizer == "cpu");
  // A key written twice is refused with both places, at any depth (nlohmann alone keeps the last).
  CHECK_THROWS_WITH(load_with_deepspeed(dir,
                                        "{\"zero_optimization\": {\"offload_param\": {\"device\": \"cpu\",\n"
                                        "  \"device\": \"none\"}}}"),
                    Catch::Contains("ds.json:2:3: duplicate key \"device\" in one object, first at ") &&
                        Catch::Contains("ds.json:1:42 (expected each key once"));
  // Still JSON otherwise: an unclosed comment, an unquoted key.
  CHECK_THROWS_WITH(load_with_deepspeed(dir, "{\"zero_optimization\": {} /* open"),
                    Catch::Contains("ds.json:1:26: invalid JSON: unclosed /* comment (expected a closing */)"));
  CHECK_THROWS_WITH(load_with_deepspeed(dir, "{zero_optimization: {}}"), Catch::Contains("ds.json:1:2: invalid JSON"));
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a [cluster.params] name written quoted and dotted is one name", "[scenarios]") {
  const std::string base = std::string(kMinimal) + "[cluster.params]\n\"nvlink.efficiency.simple\" = 0.7\n";
  // Written twice in the file: an error with both places.
  CHECK_THROWS_WITH(load_scenario_text(base + "[cluster.params.nvlink.efficiency]\nsimple = 0.75\n", "s.toml"),
                    "s.toml:12:1: cluster.params.nvlink.efficiency.simple: written twice, first at s.toml:10:1 "
                    "(expected each name once; \"a.b\" = 1 and a.b = 1 are the same name)");
  // A --set of the name, dotted as --set writes it, wins over the file's quoted spelling.
  const auto set = load_scenario_text(base, "s.toml", {"cluster.params.nvlink.efficiency.simple=0.9"});
  CHECK(set.spec.cluster.params.at("nvlink.efficiency.simple") == 0.9);
  CHECK(set.position_of("cluster.params.nvlink.efficiency.simple").file == "--set");
  const auto file_only = load_scenario_text(base, "s.toml");
  CHECK(file_only.spec.cluster.params.at("nvlink.efficiency.simple") == 0.7);
  // A plain TOML key written twice (toml++ finds it): both places too.
  CHECK_THROWS_WITH(load_scenario_text(std::string(kMinimal) + "[nccl.env]\nNCCL_ALGO = \"Ring\"\n"
                                                               "\"NCCL_ALGO\" = \"Tree\"\n",
                                       "s.toml"),
                    "s.toml:11:15: invalid TOML: '\"NCCL_ALGO\"' is defined twice, first at s.toml:10:1 (expected "
                    "each key and table once)");
}

// The registry bounds [cluster.params] values by physics (models/params.cpp); the values the shipped
// scenarios and calibration profiles use are measured or fitted ones and must sit well inside
// (10x from each finite end), so a bound never refuses a real machine's own profile.
TEST_CASE("scenarios: every shipped scenario's parameters, profiles included, sit well inside their bounds",
          "[scenarios]") {
  int scenarios_read = 0, values = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(COMMSIM_SOURCE_DIR) / "scenarios")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".toml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\n[model]") == std::string::npos && text.find("\n[collective]") == std::string::npos) continue;
    const auto loaded = load_scenario(entry.path().string());
    ++scenarios_read;
    for (const auto& [name, value] : loaded.spec.cluster.params) {
      INFO(entry.path().string() << ": " << name << " = " << value);
      CHECK(models_test::outside_margin(name, value).empty());
      ++values;
    }
  }
  CHECK(scenarios_read >= 30);
  CHECK(values >= 100);  // the 4 x H200 profile's 21 values in every validation/h200x4 scenario, p4de's 2
}

TEST_CASE("scenarios: the Megatron keys load as written and give Megatron's layout", "[scenarios]") {
  // The issue's contract block, verbatim but for its comments: GPT-3 175B on 8 DGX A100.
  const auto s = load_scenario_text(R"([model]
preset = "gpt3-175b"
seq = 2048
[training]
micro_batch = 1
global_batch = 1536
precision = "fp16"
recompute = "selective"
[parallel]
strategy = "megatron"
tp = 8
pp = 8
vp = 3
cp = 1
sequence_parallel = true
distributed_optimizer = true
[cluster]
instance = "dgx-a100-80gb"
nodes = 8
)",
                                    "issue15.toml");
  CHECK(s.spec.training.dtype == "fp16");
  CHECK(s.spec.training.global_batch == 1536);
  CHECK(s.spec.training.recompute == "selective");
  CHECK(s.spec.parallel.vp == 3);
  CHECK(s.spec.parallel.sequence_parallel);
  CHECK(s.spec.parallel.distributed_optimizer);
  const auto model = models::model::resolve_model(*s.spec.model);
  const models::workload::ParallelLayout l = models::workload::make_layout(s.spec, model, 64);
  CHECK(l.dp == 1);
  CHECK(l.grad_accum == 1536);  // global_batch / (micro_batch x dp)
  CHECK(l.interleaved());
  CHECK(l.recompute == models::workload::Recompute::Selective);
}

// A --set key is read as a file's: a part may be quoted, holding dots, as [cluster.params] names
// are written ("nvlink.efficiency.simple" = 0.5).
TEST_CASE("loader: a --set key part may be quoted as in a file", "[scenarios]") {
  const auto s = load_scenario_text(kMinimal, "q.toml", {"cluster.params.\"nvlink.efficiency.simple\"=0.5"});
  CHECK(s.spec.cluster.params.at("nvlink.efficiency.simple") == 0.5);
  CHECK(s.positions.at("cluster.params.nvlink.efficiency.simple").str() == "--set:1:43");
  // One key given twice, spelled alike or not, is refused at the second, as a file refuses a key
  // twice (the last would win without a word).
  CHECK(scenarios::override_key("cluster. \"nodes\" = 2") == "cluster.nodes");
  CHECK(scenarios::override_key("cluster.params.'nvlink.efficiency.simple'=1") ==
        "cluster.params.nvlink.efficiency.simple");
  try {
    load_scenario_text(kMinimal, "q.toml", {"cluster.nodes=2", "cluster.params.x=1", "cluster.\"nodes\"=3"});
    FAIL("no error");
  } catch (const scenarios::UserError& e) {
    CHECK(
        std::string(e.what()) ==
        "--set:3:1: 'cluster.nodes' is set twice, first at --set:1:1 (expected each key once, as in a scenario file)");
  }
  CHECK_THROWS_WITH(load_scenario_text(kMinimal, "q.toml",
                                       {"cluster.params.nvlink.efficiency.simple=0.6",
                                        "cluster.params.'nvlink.efficiency.simple'=0.7"}),
                    Catch::StartsWith("--set:2:1: 'cluster.params.nvlink.efficiency.simple' is set twice"));
  // A table and a key inside it are two keys: both hold.
  const auto t = load_scenario_text(kMinimal, "q.toml", {"cluster.params={}", "cluster.params.x=1"});
  CHECK(t.spec.cluster.params.at("x") == 1);
  try {
    load_scenario_text(kMinimal, "q.toml", {"cluster.params.\"nvlink\\q\"=0.5"});
    FAIL("no error");
  } catch (const scenarios::UserError& e) {
    CHECK(std::string(e.what()).rfind("--set:1:16: 'cluster.params.\"nvlink\\q\"' has a quoted part that is not a "
                                      "TOML string (expected ",
                                      0) == 0);
  }
}

// UserError's what() is one line whatever the message or the file name quote (models/one_line.hpp).
TEST_CASE("loader: a user error is one line whatever it quotes", "[scenarios]") {
  const scenarios::UserError user({"dir\nname/b.toml", 7, 6}, "collective.op: unknown value \"all_re\nduce\"");
  CHECK(std::string(user.what()) == "dir\\nname/b.toml:7:6: collective.op: unknown value \"all_re\\nduce\"");
  CHECK(user.message() == "collective.op: unknown value \"all_re\\nduce\"");
  CHECK(user.pos().file == "dir\nname/b.toml");  // the place itself is kept as it is
}
