// torchtitan job config (TOML) -> scenario (torchtitan_config.hpp). Key names and defaults are
// torchtitan's torchtitan/config/job_config.py (and the older config_manager.py); the data-parallel
// mesh is its ParallelDims (dp_shard -1 takes the ranks left over; the product of the degrees must
// be the world size), the FSDP2 policy its parallelize (MixedPrecisionPolicy from
// mixed_precision_param / mixed_precision_reduce, HSDP on the (replicate, shard) mesh), activation
// checkpointing its distributed/activation_checkpoint.py.
#include <algorithm>
#include <filesystem>
#include <map>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/utf8.hpp"
#include "scenarios/import/scenario_writer.hpp"
#include "scenarios/import/torchtitan_config.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/loader.hpp"
#include "scenarios/load/toml_document.hpp"

namespace scenarios {
namespace {

// torchtitan's model flavors whose shape is a commsim preset: layers, hidden, heads, kv heads,
// FFN width (torchtitan's from ffn_dim_multiplier and multiple_of: 8B 14336, 70B 28672, 405B 53248,
// Llama 4 16384), vocabulary, experts and top-k compared with each torchtitan ModelArgs.
// The mixture-of-experts flavors are known so that they are refused by what they are: commsim
// models experts under strategy megatron only, and torchtitan trains them under FSDP2.
struct TitanFlavor {
  const char* name;
  const char* flavor;
  const char* preset;
  bool moe;
};
constexpr TitanFlavor kTitanFlavors[] = {
    {"llama3", "8B", "llama-3.1-8b", false},
    {"llama3", "70B", "llama-3.1-70b", false},
    {"llama3", "405B", "llama-3.1-405b", false},
    {"qwen3", "8B", "qwen3-8b", false},
    {"qwen3", "32B", "qwen3-32b", false},
    {"llama4", "17bx16e", "llama-4-scout", true},
    {"llama4", "17bx128e", "llama-4-maverick", true},
    {"qwen3", "30B-A3B", "qwen3-30b-a3b", true},
    {"qwen3", "235B-A22B", "qwen3-235b-a22b", true},
    {"deepseek_v3", "671B", "deepseek-v3", true},
    {"gpt_oss", "20b", "gpt-oss-20b", true},
    {"gpt_oss", "120b", "gpt-oss-120b", true},
};

constexpr long long kTitanMaxCount = 1 << 20;  // the loader's bound on GPUs and batch sizes

// Typed reads of the config's values: a key not written is nullopt; a key of the wrong type is an
// error at its value. Each value read is listed (`read`) with the scenario key it becomes.
class TitanConfig {
 public:
  TitanConfig(std::map<std::string, TomlValue> values, std::string file)
      : values_(std::move(values)), file_(std::move(file)) {}

  const TomlValue* find(const std::string& key) const {
    const auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }
  SourcePos at(const std::string& key) const {
    const TomlValue* v = find(key);
    return v ? v->value_at : SourcePos{file_, 1, 1};
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw UserError(at(key), message);
  }

  std::optional<long long> integer(const std::string& key, long long min, long long max) const {
    const TomlValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->kind != TomlValue::Kind::Integer)
      fail(key, key + ": got " + v->type + " " + shown(*v) + " (expected an integer from " + std::to_string(min) +
                    " to " + std::to_string(max) + ")");
    if (v->integer < min || v->integer > max)
      fail(key, key + ": " + std::to_string(v->integer) + " is out of range (expected an integer from " +
                    std::to_string(min) + " to " + std::to_string(max) + ")");
    return v->integer;
  }
  std::optional<std::string> string(const std::string& key) const {
    const TomlValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->kind != TomlValue::Kind::String)
      fail(key, key + ": got " + v->type + " " + shown(*v) + " (expected a string)");
    return v->text;
  }
  std::optional<std::string> one_of(const std::string& key, const std::vector<std::string>& choices) const {
    const auto s = string(key);
    if (!s) return s;
    if (std::find(choices.begin(), choices.end(), *s) != choices.end()) return s;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "\"" : ", \"") + c + "\"";
    fail(key, key + ": \"" + *s + "\" is not one of torchtitan's values (expected " + list + ")");
  }
  std::optional<bool> boolean(const std::string& key) const {
    const TomlValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->kind != TomlValue::Kind::Boolean)
      fail(key, key + ": got " + v->type + " " + shown(*v) + " (expected true or false)");
    return v->boolean;
  }
  std::vector<std::string> strings(const std::string& key) const {
    const TomlValue* v = find(key);
    if (!v) return {};
    if (v->kind != TomlValue::Kind::Array || !v->all_strings)
      fail(key, key + ": got " + v->type + " " + shown(*v) + " (expected an array of strings)");
    return v->strings;
  }
  const std::string& file() const { return file_; }

 private:
  static std::string shown(const TomlValue& v) {
    return v.kind == TomlValue::Kind::String ? toml_quote(v.text) : v.text;
  }
  std::map<std::string, TomlValue> values_;
  std::string file_;
};

std::string titan_dtype(const std::string& torch_name) { return torch_name == "bfloat16" ? "bf16" : "fp32"; }

}  // namespace

TorchtitanImport import_torchtitan(const std::string& bytes, const std::string& file_name,
                                   const TorchtitanOptions& opt) {
  const std::string text = models::utf8_text(bytes);  // not-UTF-8 bytes read as Latin-1 (models/utf8.hpp)
  const TitanConfig c(toml_values(text, file_name), file_name);
  const std::string file = std::filesystem::path(file_name).filename().string();
  TorchtitanImport out;
  ScenarioWriter w;
  // A value read: written with the key it came from as its comment, and listed for stderr.
  auto from_file = [&](const std::string& table, const std::string& key, const TomlScalar& value,
                       const std::string& titan_key) {
    w.set(table, key, value, file + ": " + titan_key);
    out.read.push_back(titan_key + " = " + toml_value_text(value) + " -> " + table + "." + key);
  };
  // torchtitan's default for a key the file leaves out: what torchtitan would run with.
  auto titan_default = [&](const std::string& table, const std::string& key, const TomlScalar& value,
                           const std::string& titan_key) {
    w.set(table, key, value, "torchtitan's default (" + titan_key + " not in " + file + ")");
    out.read.push_back(titan_key + " (not set: torchtitan's default) -> " + table + "." + key + " = " +
                       toml_value_text(value));
  };
  auto note = [&](const std::string& line) {
    w.header("note: " + line);
    out.notes.push_back(line);
  };

  // --- the model: a preset of the flavor's shape -------------------------------------------------
  const std::string name = c.string("model.name").value_or("llama3");
  const auto flavor = c.string("model.flavor");
  if (!flavor)
    c.fail("model",
           "no model.flavor (expected [model] name = \"llama3\", flavor = \"8B\": torchtitan's default flavor "
           "is its debug model, which commsim has no preset for)");
  std::string preset, known;
  for (const auto& f : kTitanFlavors) {
    if (name == f.name && *flavor == f.flavor) {
      if (f.moe)
        c.fail("model.flavor", "model " + name + " flavor \"" + *flavor +
                                   "\" is a mixture-of-experts model (commsim's " + f.preset +
                                   "): experts are modelled under strategy megatron only, not beside torchtitan's "
                                   "FSDP2 (expected a dense flavor: llama3 8B, 70B or 405B, qwen3 8B or 32B)");
      preset = f.preset;
    }
    if (!f.moe) known += std::string(known.empty() ? "" : ", ") + f.name + " " + f.flavor;
  }
  if (preset.empty())
    c.fail("model.flavor", "model " + name + " flavor \"" + *flavor +
                               "\" has no commsim preset of its shape (expected one of: " + known +
                               "; or write the scenario's [model] shape by hand)");
  w.set("model", "preset", preset, file + ": model.name \"" + name + "\", flavor \"" + *flavor + "\" (its shape)");
  out.read.push_back("model.name = \"" + name + "\", model.flavor = \"" + *flavor + "\" -> model.preset = \"" + preset +
                     "\"");
  if (const auto seq = c.integer("training.seq_len", 1, 10000000))
    from_file("model", "seq", *seq, "training.seq_len");
  else
    titan_default("model", "seq", 2048LL, "training.seq_len");

  // --- the mesh: torchtitan's ParallelDims ---------------------------------------------------------
  const long long replicate = c.integer("parallelism.data_parallel_replicate_degree", 1, kTitanMaxCount).value_or(1);
  const long long shard_given = c.integer("parallelism.data_parallel_shard_degree", -1, kTitanMaxCount).value_or(-1);
  if (shard_given == 0)
    c.fail("parallelism.data_parallel_shard_degree",
           "parallelism.data_parallel_shard_degree: 0 (expected -1 for the ranks left over, or 1 or more)");
  // Tensor, pipeline, context and expert parallelism run beside FSDP2 (or DDP) in torchtitan. commsim's
  // fsdp and hsdp shard over data-parallel ranks only, and its megatron strategy, which has tp, pp and
  // cp, pairs them with Megatron's data parallelism (a distributed optimizer: one reduce-scatter and one
  // all-gather a step), not with FSDP2's all-gather of every block forward and backward. Simulating
  // either in place of the other would be another job's communication, so these are refused.
  struct OtherDim {
    const char* key;
    const char* what;
  };
  for (const OtherDim& d : {OtherDim{"parallelism.tensor_parallel_degree", "tensor parallelism"},
                            OtherDim{"parallelism.pipeline_parallel_degree", "pipeline parallelism"},
                            OtherDim{"parallelism.context_parallel_degree", "context parallelism"},
                            OtherDim{"parallelism.expert_parallel_degree", "expert parallelism"}}) {
    const long long degree = c.integer(d.key, 1, kTitanMaxCount).value_or(1);
    if (degree > 1)
      c.fail(d.key, std::string(d.key) + " = " + std::to_string(degree) + ": " + d.what +
                        " beside torchtitan's FSDP2/DDP (2D/3D parallelism) is not modelled: commsim's fsdp and hsdp "
                        "strategies have no tp, pp, cp or ep, and its megatron strategy pairs them with Megatron's "
                        "distributed optimizer, not FSDP2's per-block all-gathers (expected " +
                        d.key + " = 1; for a what-if, write a strategy = \"megatron\" scenario by hand)");
  }
  // The world size: --gpus, --nodes, else the product of the degrees when none is -1.
  const models::hw::NodeSpec* node = nullptr;
  if (opt.instance.empty())
    throw UserError({"--instance", 1, 1}, "a torchtitan config names no instance (expected --instance NAME)");
  try {
    node = &models::hw::find_instance(opt.instance);
  } catch (const models::SpecError& e) {
    throw UserError({"--instance", 1, 1}, e.what());
  }
  long long world = 0;
  std::string world_from;
  SourcePos world_at;
  if (opt.gpus) {
    world = *opt.gpus;
    world_from = "--gpus " + std::to_string(world);
    world_at = {"--gpus", 1, 1};
  } else if (opt.nodes) {
    world = static_cast<long long>(*opt.nodes) * node->gpus;
    world_from = "--nodes " + std::to_string(*opt.nodes) + " x " + std::to_string(node->gpus) + " GPUs";
    world_at = {"--nodes", 1, 1};
  } else if (shard_given > 0) {
    world = replicate * shard_given;
    world_from = "data_parallel_replicate_degree x data_parallel_shard_degree";
    world_at = c.at("parallelism.data_parallel_shard_degree");
  } else {
    throw UserError(c.at("parallelism.data_parallel_shard_degree"),
                    "parallelism.data_parallel_shard_degree = -1 takes the ranks left over, and the config does not "
                    "say how many ranks the job runs (expected --nodes N or --gpus N)");
  }
  long long shard = shard_given;
  if (shard < 0) {
    if (world % replicate != 0)
      c.fail("parallelism.data_parallel_replicate_degree",
             "parallelism.data_parallel_replicate_degree = " + std::to_string(replicate) + " does not divide the " +
                 std::to_string(world) + " ranks (" + world_from +
                 ") (expected a divisor of the world size, as torchtitan's ParallelDims requires)");
    shard = world / replicate;
  } else if (replicate * shard != world) {
    c.fail("parallelism.data_parallel_shard_degree",
           "data_parallel_replicate_degree x data_parallel_shard_degree = " + std::to_string(replicate) + " x " +
               std::to_string(shard) + " = " + std::to_string(replicate * shard) + " ranks but the job runs " +
               std::to_string(world) + " (" + world_from +
               ") (expected their product to be the world size, as torchtitan's ParallelDims requires; or "
               "data_parallel_shard_degree = -1)");
  }
  // Hosts: whole hosts of the instance, or part of one.
  int nodes = 1, per_node = static_cast<int>(world);
  if (world > node->gpus) {
    if (world % node->gpus != 0)
      throw UserError(world_at, std::to_string(world) + " GPUs (" + world_from + ") do not fill whole " + opt.instance +
                                    " hosts of " + std::to_string(node->gpus) + " GPUs (expected a multiple of " +
                                    std::to_string(node->gpus) + ", or at most one host)");
    nodes = static_cast<int>(world / node->gpus);
    per_node = node->gpus;
  }
  out.gpus = static_cast<int>(world);
  out.nodes = nodes;
  w.header("Written by `commsim import torchtitan " + file + "`: the training job, as a scenario.");
  w.header(
      "Each key's comment names the torchtitan key it came from; torchtitan's defaults are written where the "
      "file leaves a key out.");
  w.header(
      "Values marked 'default:' are commsim's choice where torchtitan's setting has no exact counterpart: check "
      "them before trusting a run.");
  w.set("", "name", "torchtitan " + name + " " + *flavor + " (" + file + ")");
  w.set("cluster", "instance", opt.instance, "given with --instance");
  w.set("cluster", "nodes", static_cast<long long>(nodes), world_from);
  w.set("placement", "pods_per_node", 1LL, "torchrun on the hosts: one process group per host");
  w.set("placement", "gpus_per_pod", static_cast<long long>(per_node), "one rank per GPU");

  // --- training ------------------------------------------------------------------------------------
  const auto local = c.integer("training.local_batch_size", 1, kTitanMaxCount);
  const auto older = c.integer("training.batch_size", 1, kTitanMaxCount);  // its name before local_batch_size
  if (local && older)
    c.fail("training.batch_size",
           "training.batch_size is the older name of training.local_batch_size, and both are "
           "given (expected one of them)");
  if (local)
    from_file("training", "micro_batch", *local, "training.local_batch_size");
  else if (older)
    from_file("training", "micro_batch", *older, "training.batch_size");
  else
    titan_default("training", "micro_batch", 8LL, "training.local_batch_size");
  // global_batch_size -1: local x data-parallel degree, no accumulation; else torchtitan accumulates
  // global / (local x dp) micro-batches (the loader checks the division).
  if (const auto global = c.integer("training.global_batch_size", -1, 1LL << 30); global && *global != -1) {
    if (*global < 1)
      c.fail("training.global_batch_size",
             "training.global_batch_size: " + std::to_string(*global) + " (expected -1, or 1 or more)");
    from_file("training", "global_batch", *global, "training.global_batch_size");
  }
  if (const auto steps = c.integer("training.steps", 1, 1000000000))
    from_file("training", "steps", *steps, "training.steps");
  else
    titan_default("training", "steps", 10000LL, "training.steps");
  // Precision: FSDP2's MixedPrecisionPolicy casts the sharded parameters (training.dtype, fp32 by
  // default) to mixed_precision_param for compute and reduces gradients in mixed_precision_reduce;
  // under DDP torch.autocast computes in mixed_precision_param.
  const auto compute = c.one_of("training.mixed_precision_param", {"bfloat16", "float32"});
  if (compute)
    from_file("training", "dtype", titan_dtype(*compute), "training.mixed_precision_param");
  else
    titan_default("training", "dtype", std::string("bf16"), "training.mixed_precision_param");
  const auto params = c.one_of("training.dtype", {"bfloat16", "float32"});
  if (params)
    from_file("training", "param_dtype", titan_dtype(*params), "training.dtype");
  else
    titan_default("training", "param_dtype", std::string("fp32"), "training.dtype");
  if (c.boolean("training.enable_cpu_offload").value_or(false))
    c.fail("training.enable_cpu_offload",
           "training.enable_cpu_offload = true: FSDP2's CPU offload (parameters, gradients and the optimizer step "
           "on the host) is not modelled (expected false)");

  // Activation checkpointing: torchtitan's default mode is selective, every second block.
  const auto mode = c.one_of("activation_checkpoint.mode", {"none", "selective", "full", "memory_budget"});
  const std::string ac = mode.value_or("selective");
  const std::string option = c.string("activation_checkpoint.selective_ac_option").value_or("2");
  auto chosen = [&](const std::string& value, const std::string& why) {
    w.set("training", "recompute", value, "default: " + why);
    out.chosen.push_back("training.recompute = \"" + value + "\": " + why);
  };
  const std::string ac_from = mode ? "activation_checkpoint.mode" : "activation_checkpoint.mode (torchtitan's default)";
  if (ac == "none" || ac == "full") {
    if (mode)
      from_file("training", "recompute", ac, "activation_checkpoint.mode");
    else
      titan_default("training", "recompute", ac, "activation_checkpoint.mode");
  } else if (ac == "memory_budget") {
    chosen("none",
           "activation_checkpoint.mode = \"memory_budget\": torch.compile's partitioner picks what to recompute, "
           "which commsim does not model; simulated without recompute");
  } else if (option == "op") {
    // torchtitan's per-op policy: every block checkpointed, the outputs of every other matmul,
    // attention and reductions kept (workload/layout.hpp selective_op).
    const std::string why = ac_from + " = \"selective\", selective_ac_option = \"op\"";
    w.set("training", "recompute", std::string("selective_op"),
          mode ? file + ": " + why : "torchtitan's default (" + why + ")");
    out.read.push_back(why + " -> training.recompute = \"selective_op\"");
  } else {
    const bool digits =
        !option.empty() && std::all_of(option.begin(), option.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits || option.size() > 6)
      c.fail("activation_checkpoint.selective_ac_option",
             "activation_checkpoint.selective_ac_option: \"" + option +
                 "\" (expected \"op\", or a whole number N: every N-th block checkpointed)");
    // torchtitan wraps block i (from 1) when ptd_checkpoint_wrapper._count % N == 0: blocks N, 2N,
    // ...; 0 and 1 every block. That is full recompute on those blocks (training.checkpoint_every).
    const int every = std::max(1, std::stoi(option));
    const std::string why = ac_from + " = \"selective\", selective_ac_option = \"" + option + "\"";
    const std::string where = mode ? file + ": " + why : "torchtitan's default (" + why + ")";
    w.set("training", "recompute", std::string("full"), where);
    out.read.push_back(why + " -> training.recompute = \"full\"");
    if (every > 1) {
      w.set("training", "checkpoint_every", static_cast<long long>(every),
            where + ": one block in " + std::to_string(every) + " checkpointed");
      out.read.push_back(why + " -> training.checkpoint_every = " + std::to_string(every));
    }
  }

  // Optimizer: torchtitan builds torch.optim.Adam / AdamW; its default implementation is fused.
  if (const auto opt_name = c.string("optimizer.name")) {
    if (*opt_name != "AdamW" && *opt_name != "Adam")
      c.fail("optimizer.name", "optimizer.name: \"" + *opt_name +
                                   "\": commsim models Adam's optimizer step and state only (expected \"AdamW\" or "
                                   "\"Adam\")");
    out.read.push_back("optimizer.name = \"" + *opt_name + "\" -> training.optimizer = \"adamw\"");
  }
  if (const auto impl = c.one_of("optimizer.implementation", {"for-loop", "foreach", "fused"}))
    from_file("training", "optimizer_impl", *impl == "for-loop" ? std::string("for_loop") : *impl,
              "optimizer.implementation");
  else
    titan_default("training", "optimizer_impl", std::string("fused"), "optimizer.implementation");
  // The model's code of the TOML era: torchtitan's models applied their complex rotary embedding
  // (the fsdp default, models/workload/model_code.hpp) and copied the key/value heads to every query
  // head (repeat_kv) until late January 2026, weeks before the configs moved to Python.
  w.set("training", "repeat_kv", true,
        "torchtitan's models copied the key/value heads before attention until late January 2026");

  // Low-precision GEMMs: a converter named in model.converters (older: training.enable_float8_linear).
  std::string precision;
  for (const std::string& conv : c.strings("model.converters")) {
    if (conv == "float8" || conv == "quantize.linear.float8")
      precision = "fp8";
    else if (conv == "mx" || conv == "quantize.linear.mx")
      precision = "mxfp8";
    else
      note("model.converters \"" + conv + "\" is not modelled (the GEMMs it converts are priced in training.dtype)");
  }
  if (c.boolean("training.enable_float8_linear").value_or(false)) precision = "fp8";
  if (!precision.empty()) {
    w.set("training", "precision", precision, file + ": model.converters (" + precision + " linear layers)");
    out.read.push_back("model.converters -> training.precision = \"" + precision + "\"");
    for (const char* key :
         {"quantize.linear.float8.enable_fsdp_float8_all_gather", "float8.enable_fsdp_float8_all_gather"})
      if (c.boolean(key).value_or(false))
        note(std::string(key) +
             " = true: the float8 all-gather of FSDP2 is not modelled; parameters are gathered in training.dtype "
             "(twice float8's bytes)");
  }
  if (c.boolean("compile.enable").value_or(false) || c.boolean("training.compile").value_or(false))
    note(
        "torch.compile is on (compile.enable): not modelled; kernels are priced as eager PyTorch runs them (no "
        "fusion)");

  // --- the strategy --------------------------------------------------------------------------------
  const std::string reshard =
      c.one_of("parallelism.fsdp_reshard_after_forward", {"default", "always", "never"}).value_or("default");
  // Read whatever the strategy: a wrong type is an error even where the value is not used (DDP).
  const auto reduce = c.one_of("training.mixed_precision_reduce", {"float32", "bfloat16"});
  const std::string shard_text =
      shard_given < 0 ? "-1 (the " + std::to_string(shard) + " ranks left over)" : std::to_string(shard);
  std::string strategy;
  std::string why;
  if (shard > 1 && replicate > 1) {
    strategy = "hsdp";
    why = "data_parallel_replicate_degree " + std::to_string(replicate) + " x data_parallel_shard_degree " +
          shard_text + ": FSDP2 on a (replicate, shard) mesh";
  } else if (shard > 1) {
    strategy = "fsdp";
    why = "data_parallel_shard_degree " + shard_text + ": FSDP2 over every rank";
  } else {
    strategy = "ddp";
    why = world > 1 ? "data_parallel_replicate_degree " + std::to_string(replicate) + ", no sharding: DDP"
                    : "one rank: no data parallelism";
  }
  out.strategy = strategy;
  w.set("parallel", "strategy", strategy, file + ": " + why);
  out.read.push_back("parallelism.data_parallel_replicate_degree = " + std::to_string(replicate) +
                     ", data_parallel_shard_degree = " + std::to_string(shard_given) +
                     (shard_given < 0 ? " (" + std::to_string(shard) + ")" : std::string()) +
                     " -> parallel.strategy = \"" + strategy + "\"");
  if (strategy == "hsdp" && shard_given > 0) {
    from_file("parallel", "dp_shard", shard, "parallelism.data_parallel_shard_degree");
  } else if (strategy == "hsdp") {
    const std::string how = "data_parallel_shard_degree -1: the " + std::to_string(world) + " ranks over " +
                            std::to_string(replicate) + " replicas";
    w.set("parallel", "dp_shard", shard, file + ": " + how);
    out.read.push_back(how + " -> parallel.dp_shard = " + std::to_string(shard));
  }
  if (strategy != "ddp") {
    // FSDP2 reduces in mixed_precision_reduce (fp32 is torchtitan's only value and default).
    if (reduce)
      from_file("training", "reduce_dtype", titan_dtype(*reduce), "training.mixed_precision_reduce");
    else
      titan_default("training", "reduce_dtype", std::string("fp32"), "training.mixed_precision_reduce");
    if (reshard == "never")
      c.fail("parallelism.fsdp_reshard_after_forward",
             "parallelism.fsdp_reshard_after_forward = \"never\": parameters kept gathered from the forward to the "
             "backward (no backward all-gather) is not modelled; commsim's fsdp and hsdp reshard every block after "
             "its forward (expected \"default\" or \"always\")");
    if (reshard == "always")
      note(
          "parallelism.fsdp_reshard_after_forward = \"always\": the root module (embedding, final norm, head) is "
          "resharded after forward too; commsim keeps it gathered (FSDP2's default), so its backward all-gather is "
          "not simulated");
  }
  out.toml = w.str();
  return out;
}

TorchtitanImport read_torchtitan_config(const std::string& path, const TorchtitanOptions& options) {
  return import_torchtitan(
      read_input_file(path, {path, 1, 1}, "the torchtitan config", "a torchtitan job config (TOML)"), path, options);
}

}  // namespace scenarios
