#pragma once
// models::SpecError: the user asked for something the models cannot do (an unknown instance, an
// impossible layout, a bad NCCL variable value). It names the scenario key at fault as a dotted
// path ("placement.gpus_per_pod", "nccl.env.NCCL_P2P_LEVEL"); the scenario layer, which knows
// where each key was written, turns it into "FILE:LINE:COL: message" and exit code 2. The message
// is kept on one line (one_line.hpp), whatever value it quotes.
#include <stdexcept>
#include <string>
#include <vector>

#include "models/one_line.hpp"

namespace models {

class SpecError : public std::runtime_error {
 public:
  SpecError(std::string key, const std::string& message)
      : std::runtime_error(one_line(message)), key_(std::move(key)) {}
  // An error of several keys together (tp x cp x pp against the GPUs): `key` is the one to name
  // by default, `also` the others; the scenario layer points at one the user changed with --set
  // when there is one, since that change is what broke the combination.
  SpecError(std::string key, const std::string& message, std::vector<std::string> also)
      : std::runtime_error(one_line(message)), key_(std::move(key)), also_(std::move(also)) {}
  const std::string& key() const { return key_; }
  const std::vector<std::string>& also() const { return also_; }

 private:
  std::string key_;
  std::vector<std::string> also_;
};

}  // namespace models
