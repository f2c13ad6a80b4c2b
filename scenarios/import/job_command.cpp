// A job's command line -> JobCommand (see job_command.hpp).
#include "scenarios/import/job_command.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <utility>

#include "scenarios/import/fsdp_option.hpp"

namespace scenarios {
namespace {

// Whitespace-separated words, quotes removed, YAML's line-continuation backslashes dropped.
std::vector<std::string> words_of(const std::string& command) {
  std::vector<std::string> out;
  std::string w;
  char quote = 0;
  auto flush = [&] {
    if (!w.empty() && w != "\\") out.push_back(w);
    w.clear();
  };
  for (char c : command.substr(0, 65536)) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        w += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else {
      w += c;
    }
  }
  flush();
  return out;
}

std::optional<int> positive(const std::string& s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

std::optional<bool> truth(const std::string& s) {
  if (s == "True" || s == "true" || s == "1") return true;
  if (s == "False" || s == "false" || s == "0") return false;
  return std::nullopt;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

JobCommand parse_job_command(const std::string& command) {
  JobCommand out;
  static const std::regex kShellEnv(R"((?:^|[\s;&|'"])((?:NCCL|FI|OFI_NCCL)_[A-Z0-9_]+=[^\s;&|'"]*))");
  for (auto it = std::sregex_iterator(command.begin(), command.end(), kShellEnv); it != std::sregex_iterator(); ++it) {
    // mpirun's `-x VAR=VAL` / `-genv VAR=VAL` reach the ranks and are read (mpi_ranks), not said here.
    const std::string before = command.substr(0, static_cast<size_t>((*it).position(1)));
    const size_t end = before.find_last_not_of(" \t");
    const size_t start = end == std::string::npos ? 0 : before.find_last_of(" \t", end) + 1;
    const std::string flag = end == std::string::npos ? "" : before.substr(start, end + 1 - start);
    if (flag == "-x" || flag == "-genv" || flag == "-env") continue;
    out.shell_env.push_back((*it)[1].str());
  }
  const std::vector<std::string> words = words_of(command);
  // Flags spelled with '-' or '_' are the same flag (torchrun and HF accept both).
  auto norm = [](std::string f) {
    std::replace(f.begin(), f.end(), '_', '-');
    return f;
  };
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (out.launcher.empty()) {
      const std::string base = w.substr(w.find_last_of('/') + 1);
      if (base == "torchrun" || base == "accelerate" || base == "deepspeed" || base == "mpirun")
        out.launcher = base;
      else if (w == "torch.distributed.run" || w == "torch.distributed.launch")
        out.launcher = "torchrun";
    }
    if (w.size() < 3 || w[0] != '-' || w[1] != '-') continue;
    std::string flag = w.substr(2), value;
    bool has_value = false;
    if (const auto eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    } else if (i + 1 < words.size() && !(words[i + 1].size() > 1 && words[i + 1][0] == '-')) {
      value = words[i + 1];
      has_value = true;
    }
    const std::string f = norm(flag);
    const std::string from = " (from --" + flag + ")";
    auto integer = [&](std::optional<int>& field, const std::string& key) {
      if (!has_value) return;
      if (const auto v = positive(value)) {
        field = *v;
        out.taken.push_back(key + " = " + value + from);
      } else {
        out.taken.push_back(key + ": --" + flag + " " + value + " is not a positive number, skipped");
      }
    };
    // A boolean flag: bare (--bf16) is true; "--bf16 True" / "--bf16=false" as written.
    auto flag_bool = [&](std::optional<bool>& field, const std::string& key) {
      std::optional<bool> v = has_value ? truth(value) : std::optional<bool>(true);
      if (!v) v = true;  // "--bf16 train.py": bare flag followed by a word
      field = *v;
      out.taken.push_back(key + " = " + (*v ? "true" : "false") + from);
    };
    if (f == "nproc-per-node" || f == "num-gpus")
      integer(out.procs_per_node, "processes per node");
    else if (f == "nnodes" || f == "num-machines" || f == "num-nodes")
      integer(out.nodes, "nodes");
    else if (f == "model-name-or-path" || f == "model-id" || f == "model" || f == "model-name" || f == "model-path") {
      if (has_value) {
        out.model_id = value;
        out.taken.push_back("model = " + value + from);
      }
    } else if (f == "per-device-train-batch-size" || f == "micro-batch-size")
      integer(out.micro_batch, "training.micro_batch");
    else if (f == "gradient-accumulation-steps")
      integer(out.grad_accum, "training.grad_accum");
    else if (f == "global-batch-size")
      integer(out.global_batch, "training.global_batch");
    else if (f == "max-steps" || f == "train-iters")
      integer(out.steps, "training.steps");
    else if (f == "max-seq-length" || f == "max-seq-len" || f == "block-size" || f == "model-max-length" ||
             f == "seq-length" || f == "max-length")
      integer(out.seq, "model.seq");
    else if (f == "bf16")
      flag_bool(out.bf16, "training.dtype bf16");
    else if (f == "fp16")
      flag_bool(out.fp16, "training.dtype fp16");
    else if (f == "gradient-checkpointing")
      flag_bool(out.grad_checkpointing, "training.grad_checkpointing");
    else if (f == "recompute-granularity" && has_value) {
      out.recompute = value;
      out.megatron = true;
      out.taken.push_back("training.recompute = " + value + from);
    } else if (f == "fsdp" && has_value && lower(value) != "false" && !value.empty()) {
      out.fsdp = value;
      const FsdpChoice c = fsdp_choice(value);
      out.taken.push_back(c.error.empty() ? "parallel.strategy = " + c.strategy + " (from --" + flag + " " + value + ")"
                                          : "parallel.strategy = fsdp (from --" + flag + " " + value + ": " + c.error +
                                                "; read as full_shard)");
    } else if (f == "deepspeed" && has_value && value.ends_with(".json")) {
      out.deepspeed = value;
      out.taken.push_back("DeepSpeed config " + value + from);
    } else if (f == "tensor-model-parallel-size") {
      out.megatron = true;
      integer(out.tp, "parallel.tp");
    } else if (f == "pipeline-model-parallel-size") {
      out.megatron = true;
      integer(out.pp, "parallel.pp");
    } else if (f == "num-layers-per-virtual-pipeline-stage" || f == "virtual-pipeline-model-parallel-size") {
      out.megatron = true;
      if (f == "virtual-pipeline-model-parallel-size") integer(out.vp, "parallel.vp");
    } else if (f == "context-parallel-size") {
      out.megatron = true;
      integer(out.cp, "parallel.cp");
    } else if (f == "make-vocab-size-divisible-by") {
      out.megatron = true;
      integer(out.vocab_divisible_by, "parallel.make_vocab_size_divisible_by");
    } else if (f == "sequence-parallel") {
      out.megatron = true;
      out.sequence_parallel = true;
      out.taken.push_back("parallel.sequence_parallel = true" + from);
    } else if (f == "use-distributed-optimizer") {
      out.megatron = true;
      out.distributed_optimizer = true;
      out.taken.push_back("parallel.distributed_optimizer = true" + from);
    }
  }
  return out;
}

MpiRanks mpi_ranks(const std::string& command) {
  MpiRanks out;
  const std::vector<std::string> words = words_of(command);
  size_t i = 0;
  auto launcher = [](const std::string& w) {
    const std::string base = w.substr(w.find_last_of('/') + 1);
    return base == "mpirun" || base == "mpiexec" || base == "mpiexec.hydra" || base == "orterun" || base == "prterun";
  };
  while (i < words.size() && !launcher(words[i])) ++i;
  if (i == words.size()) return out;
  // Options that take no value, and those that take two (Open MPI's MCA pairs); any other option
  // takes the next word unless it is an option itself. The first other word is the program.
  static const std::vector<std::string> kBare = {"--allow-run-as-root",
                                                 "--oversubscribe",
                                                 "--nooversubscribe",
                                                 "--report-bindings",
                                                 "-report-bindings",
                                                 "--tag-output",
                                                 "-tag-output",
                                                 "--timestamp-output",
                                                 "--display-map",
                                                 "-display-map",
                                                 "--display-allocation",
                                                 "--merge-stderr-to-stdout",
                                                 "--use-hwthread-cpus",
                                                 "--noprefix",
                                                 "-v",
                                                 "--verbose",
                                                 "-q",
                                                 "--quiet",
                                                 "-l",
                                                 "-prepend-rank",
                                                 "--prepend-rank",
                                                 "-bind-to-core",
                                                 "--bind-to-core",
                                                 "-genvall",
                                                 "-genvnone"};
  // MCA pairs (Open MPI); Hydra's -genv/-env NAME VALUE and Open MPI's -x are read below.
  static const std::vector<std::string> kPair = {"-mca", "--mca", "-gmca", "--gmca"};
  auto has = [](const std::vector<std::string>& v, const std::string& w) {
    return std::find(v.begin(), v.end(), w) != v.end();
  };
  for (++i; i < words.size(); ++i) {
    std::string w = words[i];
    if (w.size() < 2 || w[0] != '-') break;  // the program
    std::string value;
    if (const auto eq = w.find('='); eq != std::string::npos) {
      value = w.substr(eq + 1);
      w = w.substr(0, eq);
    } else if (has(kBare, w)) {
      continue;
    } else if (w == "-genv" || w == "--genv" || w == "-env" || w == "--env") {
      // Hydra: NAME VALUE, as two words (or NAME=VALUE as one).
      if (i + 1 >= words.size()) break;
      const std::string& name = words[i + 1];
      if (const auto eq = name.find('='); eq != std::string::npos) {
        out.env.push_back({name.substr(0, eq), name.substr(eq + 1), w + " " + name});
        i += 1;
      } else if (i + 2 < words.size()) {
        out.env.push_back({name, words[i + 2], w + " " + name + " " + words[i + 2]});
        i += 2;
      } else {
        break;
      }
      continue;
    } else if (w == "-x" || w == "--x") {
      // Open MPI: VAR=VALUE, or VAR alone (exported with the launcher's value).
      if (i + 1 >= words.size()) break;
      const std::string& kv = words[++i];
      if (const auto eq = kv.find('='); eq != std::string::npos)
        out.env.push_back({kv.substr(0, eq), kv.substr(eq + 1), w + " " + kv});
      else
        out.env.push_back({kv, std::nullopt, w + " " + kv});
      continue;
    } else if (has(kPair, w)) {
      i += 2;
      continue;
    } else if (i + 1 < words.size() && !(words[i + 1].size() > 1 && words[i + 1][0] == '-')) {
      value = words[++i];
    }
    const std::string as_written = w + " " + value;
    const bool total = w == "-np" || w == "-n" || w == "--np" || w == "--n" || w == "-c";
    const bool per_node = w == "-N" || w == "-npernode" || w == "--npernode" || w == "-ppn" || w == "--ppn";
    if ((total || per_node) && !positive(value)) {
      out.unread += (out.unread.empty() ? "" : " ") + as_written;  // "$NP": set where the job runs
      continue;
    } else if (total) {
      out.total = positive(value);
    } else if (per_node) {
      out.per_node = positive(value);
    } else if ((w == "--map-by" || w == "-map-by") && value.starts_with("ppr:")) {
      // ppr:N:node[:PE=...]: N processes per node (per socket or core is not a per-node count).
      const auto colon = value.find(':', 4);
      if (colon != std::string::npos && value.compare(colon + 1, 4, "node") == 0)
        out.per_node = positive(value.substr(4, colon - 4));
    } else {
      continue;
    }
    out.flags += (out.flags.empty() ? "" : " ") + as_written;
  }
  return out;
}

std::string preset_for_model_id(const std::string& model_id) {
  // Hugging Face ids of the models whose shapes are presets (the config.json of each repository
  // gives the same layers, hidden, heads, KV heads, ffn and vocabulary as the preset).
  static const std::vector<std::pair<const char*, const char*>> kIds = {
      {"meta-llama/meta-llama-3-8b", "llama-3-8b"},
      {"meta-llama/meta-llama-3-70b", "llama-3-70b"},
      {"meta-llama/llama-3.1-8b", "llama-3.1-8b"},
      {"meta-llama/meta-llama-3.1-8b", "llama-3.1-8b"},
      {"meta-llama/llama-3.1-70b", "llama-3.1-70b"},
      {"meta-llama/meta-llama-3.1-70b", "llama-3.1-70b"},
      {"meta-llama/llama-3.1-405b", "llama-3.1-405b"},
      {"meta-llama/meta-llama-3.1-405b", "llama-3.1-405b"},
      {"meta-llama/llama-2-7b-hf", "llama-2-7b"},
      {"meta-llama/llama-2-7b", "llama-2-7b"},
      {"mistralai/mixtral-8x7b-v0.1", "mixtral-8x7b"},
      {"deepseek-ai/deepseek-v3", "deepseek-v3"},
      {"moonshotai/kimi-k2", "kimi-k2"},
      {"zai-org/glm-4.5", "glm-4.5"},
  };
  std::string id = lower(model_id);
  // An instruct/chat variant has its base model's shape.
  for (const char* tail : {"-instruct", "-chat-hf", "-chat", "-base"})
    if (id.ends_with(tail)) id = id.substr(0, id.size() - std::string(tail).size());
  for (const auto& [hf, preset] : kIds) {
    const std::string key = hf;
    const std::string name = key.substr(key.find('/') + 1);
    // The whole id, or a local path / cache folder ending in the repository's name.
    if (id == key || id.ends_with("/" + name) || id == name) return preset;
  }
  return "";
}

}  // namespace scenarios
