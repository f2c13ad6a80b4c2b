// DeepSpeed JSON and [zero] settings -> models::ZeroSpec (and the trainer keys -> [training]).
#include "scenarios/load/deepspeed_config.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "models/error.hpp"
#include "models/model/model_shape.hpp"
#include "models/readers/json_place.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/lenient_json.hpp"

namespace scenarios {
namespace {

using Json = nlohmann::json;

// zero_optimization keys whose value changes the simulated timing, then the rest of DeepSpeed's
// DeepSpeedZeroConfig fields (deepspeed/runtime/zero/config.py), accepted verbatim.
const std::vector<std::string> kZeroKeys = {
    "stage",
    "overlap_comm",
    "contiguous_gradients",
    "offload_optimizer",
    "offload_param",
    "stage3_prefetch_bucket_size",
    "reduce_bucket_size",
    "stage3_max_live_parameters",
    "stage3_param_persistence_threshold",
    "stage3_max_reuse_distance",
    "sub_group_size",
    // DeepSpeedZeroConfig's field names for the four stage3_* aliases above (both are accepted):
    "prefetch_bucket_size",
    "param_persistence_threshold",
    "max_live_parameters",
    "max_reuse_distance",
    // legacy spellings of offload_optimizer / offload_param (true = "cpu"):
    "cpu_offload",
    "cpu_offload_param",
    // change the timing but are not modelled: named in the run's notes when set (kUnmodelledTiming)
    "reduce_scatter",
    "zero_hpz_partition_size",
    "zero_quantized_weights",
    "zero_quantized_nontrainable_weights",
    "zero_quantized_gradients",
    "mics_shard_size",
    "mics_hierarchical_params_gather",
    "stage3_module_granularity_threshold",
    "module_granularity_threshold",
    "stage3_model_persistence_threshold",
    "model_persistence_threshold",
    "stage3_use_all_reduce_for_fetch_params",
    "use_all_reduce_for_fetch_params",
    "stage3_allgather_sequential",
    "allgather_sequential",
    "zenflow",
    // accepted, no effect on a stage-3 step's timing (stage 1/2 only, or only beside a key above):
    "round_robin_gradients",
    "zeropp_loco_param",
    "allgather_partitions",
    "allgather_bucket_size",
    "use_multi_rank_bucket_allreduce",
    "stage3_gather_16bit_weights_on_model_save",
    "stage3_gather_fp16_weights_on_model_save",
    "gather_16bit_weights_on_model_save",
    "elastic_checkpoint",
    "ignore_unused_parameters",
    "legacy_stage1",
    "load_from_fp32_weights",
    "cpu_offload_use_pin_memory",
    "memory_efficient_linear",
    "pipeline_loading_checkpoint",
    "override_module_apply",
    "log_trace_cache_warnings",
    "enable_sanity_checks",
    "save_muon_momentum_buffer_in_memory",
    "leaf_module",
    "stage3_partition_stream_chunk_size",
    "partition_stream_chunk_size",
};

// Keys that change a ZeRO-3 step's timing in DeepSpeed but not in commsim, with DeepSpeed's
// default: set to anything else, they are named in the run's notes (ZeroSpec::unmodelled).
struct UnmodelledDefault {
  const char* key;
  double number;  // the default, for numbers and flags (1 = true)
};
const UnmodelledDefault kUnmodelledTiming[] = {
    {"reduce_scatter", 1},
    {"zero_hpz_partition_size", 1},
    {"zero_quantized_weights", 0},
    {"zero_quantized_gradients", 0},
    {"zero_quantized_nontrainable_weights", 0},
    {"mics_shard_size", -1},
    {"mics_hierarchical_params_gather", 0},
    {"stage3_module_granularity_threshold", 0},
    {"stage3_use_all_reduce_for_fetch_params", 0},
    {"stage3_allgather_sequential", 0},
    {"stage3_model_persistence_threshold", 9223372036854775807.0},  // sys.maxsize
};

const std::vector<std::string> kOffloadKeys = {
    "device",        "nvme_path",      "buffer_count", "buffer_size", "max_in_cpu", "pin_memory",
    "pipeline_read", "pipeline_write", "fast_init",    "ratio",       "pipeline",
};

// Where `"key"` (followed by ':') is written in `text`, searching from `from`: the loader keeps
// positions only for keys; nlohmann's DOM does not remember them, and keys are unique enough
// within zero_optimization for this to point at the right line.
size_t find_key(const std::string& text, const std::string& key, size_t from) {
  const std::string quoted = "\"" + key + "\"";
  for (size_t at = text.find(quoted, from); at != std::string::npos; at = text.find(quoted, at + 1)) {
    size_t after = at + quoted.size();
    while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) ++after;
    if (after < text.size() && text[after] == ':') return at;
  }
  return std::string::npos;
}

SourcePos pos_at(const std::string& file, const std::string& text, size_t offset) {
  SourcePos p{file, 1, 1};
  if (offset == std::string::npos) return p;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++p.line, p.col = 1;
    else
      ++p.col;
  }
  return p;
}

std::string json_type(const Json& j) {
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  return "null";
}

// A zero_optimization (or trainer) value into a ZeroEntry; offload_* objects keep their device.
ZeroEntry entry_from_json(const std::string& key, const Json& v, const SourcePos& pos, const std::string& text,
                          size_t key_offset, const std::string& file) {
  ZeroEntry e;
  e.pos = pos;
  if (v.is_string() && v.get<std::string>() == "auto")
    e.is_auto = true;
  else if (v.is_boolean())
    e.flag = v.get<bool>();
  else if (v.is_number())
    e.number = v.get<double>();
  else if (v.is_string())
    e.text = v.get<std::string>();
  else if (v.is_object() && (key == "offload_optimizer" || key == "offload_param")) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      bool known = false;
      for (const auto& k : kOffloadKeys) known = known || k == it.key();
      if (!known) {
        const std::string near = closest_match(it.key(), kOffloadKeys);
        throw UserError(
            pos_at(file, text, find_key(text, it.key(), key_offset)),
            "unknown key '" + it.key() + "' in zero_optimization." + key +
                (near.empty() ? " (expected device, pin_memory, nvme_path, ...)" : " (did you mean '" + near + "'?)"));
      }
    }
    const auto dev = v.find("device");
    e.text = (dev != v.end() && dev->is_string()) ? dev->get<std::string>() : "none";
    if (dev != v.end() && !dev->is_string())
      throw UserError(
          pos_at(file, text, find_key(text, "device", key_offset)),
          "zero_optimization." + key + ".device: got " + json_type(*dev) + " (expected \"cpu\" or \"none\")");
  } else if (v.is_null() && (key == "offload_optimizer" || key == "offload_param")) {
    e.text = "none";
  } else if ((v.is_object() || v.is_null()) &&
             (key == "zenflow" || key == "zeropp_loco_param" || key == "leaf_module")) {
    e.text = v.is_null() ? "null" : "object";  // sub-configurations: only whether they are set matters
  } else {
    throw UserError(
        pos, "zero_optimization." + key + ": got " + json_type(v) + " (expected a number, a boolean or \"auto\")");
  }
  return e;
}

// The model's hidden size for DeepSpeed's hidden-size "auto" values, from the preset catalog and
// the explicit shape; 0 when the model is unknown or inconsistent (`error` then holds why).
int model_hidden(const models::ScenarioSpec& spec, std::optional<models::SpecError>& error) {
  if (!spec.model) return 0;
  try {
    return models::model::resolve_model(*spec.model).hidden;
  } catch (const models::SpecError& e) {
    error = e;
    return spec.model->hidden;
  }
}

// Where `dotted` (or its closest parent) was written, else `fallback` (LoadedScenario::position_of).
SourcePos written_at(const std::map<std::string, SourcePos>& positions, std::string key, const SourcePos& fallback) {
  while (!key.empty()) {
    if (auto it = positions.find(key); it != positions.end()) return it->second;
    const size_t dot = key.rfind('.');
    if (dot == std::string::npos) break;
    key.resize(dot);
  }
  return fallback;
}

double require_count(const std::string& key, const ZeroEntry& e) {
  if (!e.number)
    throw UserError(e.pos, "zero." + key + ": not a number (expected a number of elements such as 5e7, or \"auto\")");
  const double v = *e.number;
  if (!std::isfinite(v) || v < 0)
    throw UserError(e.pos,
                    "zero." + key + ": must be a finite number >= 0 (expected a number of elements such as 5e7)");
  // Elements become bytes (at most 8 per element): at most 2^60 elements keeps
  // every byte count inside a 64-bit integer, where memory tables print it (no "inf PB").
  constexpr double kMaxElements = 1152921504606846976.0;  // 2^60
  if (v > kMaxElements) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%g", v);
    throw UserError(e.pos, "zero." + key + ": " + shown +
                               " elements overflow a 64-bit byte count (expected at most 2^60 = "
                               "1152921504606846976 elements)");
  }
  return v;
}

bool require_flag(const std::string& key, const ZeroEntry& e) {
  if (!e.flag) throw UserError(e.pos, "zero." + key + ": not a boolean (expected true or false)");
  return *e.flag;
}

}  // namespace

const std::vector<std::string>& zero_keys() { return kZeroKeys; }

std::string canonical_zero_key(const std::string& key) {
  for (const char* field : {"prefetch_bucket_size", "param_persistence_threshold", "max_live_parameters",
                            "max_reuse_distance", "module_granularity_threshold", "model_persistence_threshold",
                            "use_all_reduce_for_fetch_params", "allgather_sequential"})
    if (key == field) return std::string("stage3_") + field;
  return key;
}
const std::vector<std::string>& offload_keys() { return kOffloadKeys; }

DeepSpeedSettings read_deepspeed_json(const std::string& path, const std::string& shown_path,
                                      const SourcePos& named_at) {
  // A path typed on the command line (--set, import's --deepspeed) is relative to the current
  // folder, one written in a scenario to the scenario's folder (loader.hpp).
  const bool typed = named_at.file.rfind("--", 0) == 0;
  const std::string text =
      read_input_file(path, named_at, "DeepSpeed config",
                      typed ? "a readable JSON file; a path given on the command line is relative to the current folder"
                            : "a readable JSON file; paths are relative to the scenario's folder");
  // DeepSpeed's own reading (lenient_json.hpp): comments and commas as Hjson allows, no duplicate key.
  const StrictJson strict = strict_json(text, shown_path);
  Json doc;
  try {
    doc = Json::parse(strict.text);
  } catch (const Json::parse_error& e) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: <what>"
    std::string what = e.what();
    if (const size_t colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    for (char& c : what)
      if (c == '\n' || c == '\r') c = ' ';
    const size_t offset = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, strict.origin.size() - 1);
    throw UserError(pos_at(shown_path, text, strict.origin[offset]),
                    "invalid JSON: " + what + " (expected JSON; comments and trailing commas are accepted)");
  } catch (const Json::out_of_range& e) {
    // A number beyond double (found by fuzzing: "5e7777...").
    const models::readers::OverflowNumber n = models::readers::overflow_number(text, e.what());
    throw UserError(pos_at(shown_path, text, n.offset == std::string_view::npos ? 0 : n.offset),
                    "invalid JSON: number " + (n.token.empty() ? std::string("out of range") : n.token) +
                        " is too large (expected a finite number)");
  }
  if (!doc.is_object())
    throw UserError({shown_path, 1, 1}, "DeepSpeed config is " + json_type(doc) + " (expected a JSON object)");

  DeepSpeedSettings out;
  if (auto z = doc.find("zero_optimization"); z != doc.end()) {
    const size_t zero_at = find_key(text, "zero_optimization", 0);
    if (!z->is_object())
      throw UserError(pos_at(shown_path, text, zero_at),
                      "zero_optimization: got " + json_type(*z) + " (expected an object)");
    for (auto it = z->begin(); it != z->end(); ++it) {
      const size_t key_at = find_key(text, it.key(), zero_at);
      const SourcePos pos = pos_at(shown_path, text, key_at);
      bool known = false;
      for (const auto& k : kZeroKeys) known = known || k == it.key();
      if (!known) {
        const std::string near = closest_match(it.key(), kZeroKeys);
        throw UserError(
            pos, "unknown key '" + it.key() + "' in zero_optimization" +
                     (near.empty() ? " (expected a DeepSpeed zero_optimization key such as stage or overlap_comm)"
                                   : " (did you mean '" + near + "'?)"));
      }
      out.zero[canonical_zero_key(it.key())] = entry_from_json(it.key(), it.value(), pos, text, key_at, shown_path);
    }
  }
  for (const char* key : {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size"}) {
    if (auto v = doc.find(key); v != doc.end())
      out.training[key] =
          entry_from_json(key, *v, pos_at(shown_path, text, find_key(text, key, 0)), text, 0, shown_path);
  }
  for (const char* key : {"bf16", "fp16"}) {
    auto v = doc.find(key);
    if (v == doc.end() || !v->is_object()) continue;
    auto enabled = v->find("enabled");
    if (enabled == v->end()) continue;
    const size_t at = find_key(text, "enabled", find_key(text, key, 0));
    out.training[key] = entry_from_json(key, *enabled, pos_at(shown_path, text, at), text, 0, shown_path);
  }
  return out;
}

void apply_deepspeed(const DeepSpeedSettings& settings, models::ScenarioSpec& spec,
                     std::map<std::string, SourcePos>& positions) {
  // Trainer keys: "auto" means "what [training] says" (Hugging Face fills them from
  // TrainingArguments); a number must agree with [training] when both are written.
  auto trainer_int = [&](const char* key, const char* training_key, int& field) {
    auto it = settings.training.find(key);
    if (it == settings.training.end() || it->second.is_auto) return;
    const ZeroEntry& e = it->second;
    if (!e.number || *e.number < 1 || *e.number != std::floor(*e.number) || *e.number > 1e9)
      throw UserError(e.pos, std::string(key) + ": not a positive integer (expected an integer >= 1, or \"auto\")");
    const int v = static_cast<int>(*e.number);
    const std::string dotted = std::string("training.") + training_key;
    if (positions.count(dotted) && field != v)
      throw UserError(e.pos, std::string(key) + " is " + std::to_string(v) + " but " + dotted + " is " +
                                 std::to_string(field) + " (expected the same value, or \"auto\")");
    field = v;
    if (!positions.count(dotted)) positions[dotted] = e.pos;
  };
  trainer_int("train_micro_batch_size_per_gpu", "micro_batch", spec.training.micro_batch);
  trainer_int("gradient_accumulation_steps", "grad_accum", spec.training.grad_accum);
  // train_batch_size = micro x gradient_accumulation_steps x dp (deepspeed/runtime/config.py
  // _configure_train_batch_size): dp is the layout's, so the product is checked where the layout is
  // made (models/workload/layout.cpp), at this key. Without gradient_accumulation_steps DeepSpeed
  // derives it, as global_batch does; without the micro-batch DeepSpeed derives that instead,
  // which commsim does not. "auto": the Hugging Face Trainer writes the product, nothing to check.
  if (auto it = settings.training.find("train_batch_size"); it != settings.training.end() && !it->second.is_auto) {
    const ZeroEntry& e = it->second;
    // ("auto" is a micro-batch: [training]'s, as the Trainer fills it.)
    if (!settings.training.count("train_micro_batch_size_per_gpu") && !positions.count("training.micro_batch"))
      throw UserError(e.pos,
                      "train_batch_size without a micro-batch: DeepSpeed would derive train_micro_batch_size_per_gpu "
                      "= train_batch_size / (gradient_accumulation_steps x dp), which commsim does not (expected "
                      "train_micro_batch_size_per_gpu in the JSON, or training.micro_batch)");
    const bool scenario_global_batch = positions.count("training.global_batch") > 0;  // then equal, or refused
    trainer_int("train_batch_size", "global_batch", spec.training.global_batch);
    if (!scenario_global_batch) {
      spec.training.global_batch_from_deepspeed = true;
      spec.training.grad_accum_given = positions.count("training.grad_accum") > 0;
    }
  }
  if (!positions.count("training.dtype")) {
    for (const char* key : {"bf16", "fp16"}) {
      auto it = settings.training.find(key);
      if (it != settings.training.end() && it->second.flag && *it->second.flag) spec.training.dtype = key;
    }
  }

  models::ZeroSpec& z = spec.zero;
  std::optional<models::SpecError> model_error;
  const int hidden = model_hidden(spec, model_error);
  auto needs_hidden = [&](const std::string& key, const ZeroEntry& e) {
    // A model that does not resolve (model.heads not dividing model.hidden, an unknown preset) is
    // that model's error, at its key, not a DeepSpeed "auto" problem.
    if (hidden <= 0 && model_error)
      throw UserError(written_at(positions, model_error->key(), e.pos), model_error->what());
    if (hidden <= 0)
      throw UserError(
          e.pos,
          "zero." + key + " = \"auto\" needs the model's hidden size (expected model.hidden, or a known model.preset)");
    return static_cast<double>(hidden);
  };
  // The stage first: other defaults depend on it.
  if (auto it = settings.zero.find("stage"); it != settings.zero.end()) {
    const ZeroEntry& e = it->second;
    if (!e.number || *e.number != std::floor(*e.number) || *e.number < 0 || *e.number > 3)
      throw UserError(e.pos, "zero.stage: not a ZeRO stage (expected 0, 1, 2 or 3)");
    z.stage = static_cast<int>(*e.number);
  }
  // ZeRO's stage and the strategy agree (models/workload/layout.hpp): parallel.strategy = "zero1" or
  // "zero2" without a stage sets it; a stage 1 or 2 without a strategy picks it (the DeepSpeed JSON's
  // zero_optimization.stage selects the engine, as in DeepSpeed); both written and different is
  // make_layout's error at zero.stage.
  const std::string& strategy = spec.parallel.strategy;
  const bool strategy_written = positions.count("parallel.strategy") > 0;
  const bool stage_written = settings.zero.count("stage") > 0;
  if (strategy_written && !stage_written && (strategy == "zero1" || strategy == "zero2")) z.stage = strategy[4] - '0';
  if (!strategy_written && stage_written && (z.stage == 1 || z.stage == 2))
    spec.parallel.strategy = "zero" + std::to_string(z.stage);
  // DeepSpeedZeroConfig.overlap_comm_valid (deepspeed/runtime/zero/config.py): unset, overlap_comm is
  // on at stage 3 only.
  if (!settings.zero.count("overlap_comm") && (z.stage == 1 || z.stage == 2)) z.overlap_comm = false;
  for (const auto& [key, e] : settings.zero) {  // keys are canonical (read_deepspeed_json, loader)
    positions["zero." + key] = e.pos;
    if (key == "stage") {
      continue;
    } else if (key == "overlap_comm") {
      z.overlap_comm = e.is_auto ? (z.stage == 3) : require_flag(key, e);  // DeepSpeed: on by default at stage 3
    } else if (key == "contiguous_gradients") {
      z.contiguous_gradients = e.is_auto ? true : require_flag(key, e);
    } else if (key == "offload_optimizer" || key == "offload_param") {
      // A boolean or a number is no device: say what was written, not an empty device name.
      if (!e.is_auto && !e.text) {
        char shown[32] = "a value";
        if (e.number) std::snprintf(shown, sizeof shown, "%g", *e.number);
        throw UserError(e.pos, "zero." + key + ": got " +
                                   (e.flag ? std::string(*e.flag ? "true" : "false") : std::string(shown)) +
                                   ", not a device (expected \"cpu\" or \"none\", or { device = \"cpu\" })");
      }
      std::string device = e.is_auto ? "none" : *e.text;
      if (device != "cpu" && device != "none")
        throw UserError(e.pos,
                        "zero." + key + ": device \"" + device + "\" is not modelled (expected \"cpu\" or \"none\")");
      (key == "offload_optimizer" ? z.offload_optimizer : z.offload_param) = device;
    } else if (e.is_auto && !spec.model &&
               (key == "reduce_bucket_size" || key == "stage3_prefetch_bucket_size" ||
                key == "stage3_param_persistence_threshold")) {
      // A scenario with no [model] (a collective, e.g. an imported job whose model is unknown)
      // has no buckets to size: "auto" keeps DeepSpeed's default there.
    } else if (key == "reduce_bucket_size") {
      // Hugging Face: reduce_bucket_size = hidden^2 (transformers/integrations/deepspeed.py).
      z.reduce_bucket_size = e.is_auto ? needs_hidden(key, e) * needs_hidden(key, e) : require_count(key, e);
    } else if (key == "stage3_prefetch_bucket_size") {
      // Hugging Face: stage3_prefetch_bucket_size = 0.9 * hidden^2.
      z.stage3_prefetch_bucket_size =
          e.is_auto ? std::floor(0.9 * needs_hidden(key, e) * needs_hidden(key, e)) : require_count(key, e);
    } else if (key == "stage3_param_persistence_threshold") {
      // Hugging Face: stage3_param_persistence_threshold = 10 * hidden.
      z.stage3_param_persistence_threshold = e.is_auto ? 10 * needs_hidden(key, e) : require_count(key, e);
    } else if (key == "stage3_max_live_parameters") {
      z.stage3_max_live_parameters = e.is_auto ? 1e9 : require_count(key, e);  // DeepSpeed default
    } else if (key == "stage3_max_reuse_distance") {
      // Checkpointed backward: modules reused beyond it are released and gathered again.
      z.stage3_max_reuse_distance = e.is_auto ? 1e9 : require_count(key, e);  // DeepSpeed default
    } else if (key == "sub_group_size") {
      z.sub_group_size = e.is_auto ? 1e9 : require_count(key, e);  // DeepSpeed default
    } else if (key == "cpu_offload" || key == "cpu_offload_param") {
      // Deprecated flags (config.py new_param_fn: true -> device cpu); the new key wins if both are set.
      const std::string target = key == "cpu_offload" ? "offload_optimizer" : "offload_param";
      if (!e.is_auto && require_flag(key, e) && !settings.zero.count(target))
        (key == "cpu_offload" ? z.offload_optimizer : z.offload_param) = "cpu";
    } else if (key == "zenflow") {  // a sub-configuration: set unless null
      if (e.text != "null") z.unmodelled.push_back(key);
    } else {
      for (const auto& u : kUnmodelledTiming) {
        if (key != u.key || e.is_auto) continue;
        const double v = e.flag ? (*e.flag ? 1.0 : 0.0) : e.number.value_or(u.number);
        if (v != u.number) z.unmodelled.push_back(key);
      }
    }
    // Other keys are DeepSpeed settings that do not change the simulated timing.
  }
}

}  // namespace scenarios
