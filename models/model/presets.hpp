#pragma once
// models::model presets: the published decoders model.preset can name, each with the file its shape
// comes from (presets.cpp; `commsim presets` lists them with their parameter counts).
#include <string>
#include <vector>

#include "models/model/attention.hpp"
#include "models/model/moe.hpp"

namespace models::model {

enum class Norm : unsigned char { RmsNorm, LayerNorm };    // RMSNorm: weight h; LayerNorm: weight and bias, 2h
// learned: a max_positions x h table beside the embedding; none: no position encoding at all (the
// calibration decoder; the Megatron papers' GPT runs, whose learned table is left out, below 0.1 %)
enum class Positions : unsigned char { Rotary, Learned, None };

struct Preset {
  const char* name = "";
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0;
  int head_dim = 0;  // 0: hidden / heads
  bool tied = false;
  bool gated = true;  // SwiGLU (gate, up, down); false: GELU (fc1, fc2)
  Norm norm = Norm::RmsNorm;
  bool biases = false;  // every linear layer carries a bias (GPT-2, gpt-oss)
  Positions positions = Positions::Rotary;
  int max_positions = 0;  // rows of the learned position table
  MoeSpec moe{};
  MlaSpec mla{};
  LocalAttention local{};   // windowed layers (attention.hpp)
  const char* source = "";  // the config file (or paper) the numbers are read from
};

const std::vector<Preset>& presets();
const Preset* find_preset(const std::string& name);  // nullptr when unknown

}  // namespace models::model
