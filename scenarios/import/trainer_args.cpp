// Hugging Face TrainingArguments text -> TrainerArgs (see trainer_args.hpp).
#include <algorithm>
#include <regex>
#include <vector>

#include "scenarios/import/trainer_args.hpp"

#include "models/utf8.hpp"
#include "scenarios/load/input_file.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {
namespace {

SourcePos pos_of(const std::string& file, const std::string& text, size_t offset) {
  SourcePos p{file, 1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++p.line, p.col = 1;
    else
      ++p.col;
  }
  return p;
}

}  // namespace

TrainerArgs parse_trainer_args(const std::string& bytes, const std::string& file_name) {
  const std::string text = models::utf8_text(bytes);  // not-UTF-8 bytes read as Latin-1 (models/utf8.hpp)
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t'))
      throw UserError(pos_of(file_name, text, i), "binary data in a trainer arguments file (expected text)");
  }
  // key=value (Python call) or --key value / --key=value (command line), or a bare --flag (before
  // another --flag or at the end of the line), which the Trainer's parser reads as true.
  static const std::regex kArg(
      R"((--)?\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|(?=\s)\s+(?=[^-\s]))\s*("[^"\n]*"|'[^'\n]*'|[^\s,()]+)|--([A-Za-z_][A-Za-z0-9_]*)(?=\s+--|\s*$))");
  TrainerArgs out;
  bool any = false;
  // Line by line, each bounded: std::regex recurses per character, so a huge token must not reach it.
  constexpr size_t kMaxLine = 4096;
  size_t line_start = 0;
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    if (line_end - line_start > kMaxLine)
      throw UserError(pos_of(file_name, text, line_start),
                      "line longer than 4096 characters (expected key=value Trainer arguments)");
    const std::string line = text.substr(line_start, line_end - line_start);
    const size_t base = line_start;
    line_start = line_end + 1;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), kArg); it != std::sregex_iterator(); ++it) {
      const auto& m = *it;
      const bool bare = m[4].matched;
      const bool dashed = bare || m[1].matched;
      const std::string key = bare ? m[4] : m[2];
      std::string value = bare ? std::string() : std::string(m[3]);
      // "word word" without "=" is prose, not an argument, unless written --key value.
      const std::string whole = m[0];
      if (!dashed && whole.find('=') == std::string::npos) continue;
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
        value = value.substr(1, value.size() - 2);
      const SourcePos at = pos_of(file_name, text, base + static_cast<size_t>(m.position(bare ? 0 : 3)));
      // A bare flag gives a boolean; an argument that takes a value cannot be bare (the Trainer's
      // parser stops with "expected one argument").
      // Beside the Trainer's own: a script's sequence length and model (HfArgumentParser's
      // ModelArguments / DataTrainingArguments, trl's SFTConfig), named as the job's command is read.
      static const std::vector<std::string> kSeq = {"max_seq_length", "max_seq_len", "model_max_length",
                                                    "block_size",     "seq_length",  "max_length"};
      static const std::vector<std::string> kModel = {"model_name_or_path", "model_id", "model_name", "model_path"};
      const bool is_seq = std::find(kSeq.begin(), kSeq.end(), key) != kSeq.end();
      const bool is_model = std::find(kModel.begin(), kModel.end(), key) != kModel.end();
      const bool takes_value = key == "per_device_train_batch_size" || key == "gradient_accumulation_steps" ||
                               key == "max_steps" || key == "deepspeed" || key == "fsdp" || is_seq || is_model;
      if (bare && takes_value)
        throw UserError(at, key + ": --" + key + " without a value (expected --" + key + " " +
                                (key == "fsdp"        ? std::string("\"full_shard auto_wrap\"")
                                 : key == "deepspeed" ? std::string("ds_config.json")
                                 : is_model           ? std::string("meta-llama/Meta-Llama-3-8B")
                                                      : std::string("N")) +
                                ")");
      auto integer = [&](std::optional<int>& field) {
        try {
          size_t used = 0;
          long v = std::stol(value, &used);
          if (used != value.size() || v < 1 || v > 100000000) throw std::invalid_argument("range");
          field = static_cast<int>(v);
        } catch (const std::exception&) {
          throw UserError(
              at, key + ": '" + value + "' is not a positive integer (expected a whole number from 1 to 100000000)");
        }
        any = true;
      };
      auto boolean = [&](std::optional<bool>& field) {
        if (bare || value == "True" || value == "true" || value == "1")
          field = true;
        else if (value == "False" || value == "false" || value == "0")
          field = false;
        else
          throw UserError(at, key + ": '" + value + "' is not a boolean (expected True or False)");
        any = true;
      };
      if (key == "per_device_train_batch_size")
        integer(out.micro_batch);
      else if (key == "gradient_accumulation_steps")
        integer(out.grad_accum);
      else if (is_seq) {
        integer(out.seq);
        out.seq_key = key;
      } else if (is_model) {
        out.model_id = value;
        any = true;
      } else if (key == "max_steps") {
        if (value != "-1") integer(out.steps);  // -1: the Trainer's "not set"
      } else if (key == "bf16")
        boolean(out.bf16);
      else if (key == "fp16")
        boolean(out.fp16);
      else if (key == "gradient_checkpointing")
        boolean(out.grad_checkpointing);
      else if (key == "deepspeed") {
        out.deepspeed = value;
        any = true;
      } else if (key == "fsdp") {
        FsdpChoice choice = fsdp_choice(value);
        if (!choice.error.empty()) throw UserError(at, "fsdp: " + choice.error);
        out.fsdp = value;
        out.fsdp_choice = std::move(choice);
        any = true;
      }
    }
  }
  if (!any)
    throw UserError(
        {file_name, 1, 1},
        "no Trainer argument found (expected per_device_train_batch_size=..., gradient_accumulation_steps=..., "
        "max_steps=..., bf16=..., gradient_checkpointing=..., fsdp=..., max_seq_length=..., model_name_or_path=...)");
  return out;
}

TrainerArgs read_trainer_args(const std::string& path) {
  return parse_trainer_args(read_input_file(path, {path, 1, 1}, "the trainer arguments",
                                            "a text file of Trainer arguments (key=value or --key value)"),
                            path);
}

}  // namespace scenarios
