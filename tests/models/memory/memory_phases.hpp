#pragma once
// Reading a rank's memory estimate (models/memory/memory_peak.hpp) in the memory tests: a phase by
// name, a term's bytes in it, and the model the tests size (Llama 3 8B at 8,192 tokens).
#include <string>

#include <catch2/catch.hpp>

#include "models/memory/memory_peak.hpp"
#include "models/model/model_shape.hpp"

namespace memory_test {

inline models::model::ModelShape llama3_8b_memory_peak() {
  models::ModelSpec s;
  s.preset = "llama-3-8b";
  s.seq = 8192;
  return models::model::resolve_model(s);
}

inline double term_memory_peak(const models::memory::Phase& p, const std::string& name) {
  for (const models::memory::Term& t : p.terms)
    if (name == t.name) return t.bytes;
  return 0;
}

inline const models::memory::Phase& phase(const models::memory::RankEstimate& e, const std::string& name) {
  for (const models::memory::Phase& p : e.phases)
    if (name == p.name) return p;
  FAIL("no phase " << name);
  return e.phases.front();
}

}  // namespace memory_test
