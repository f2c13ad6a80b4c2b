// Fuzzes the scenario loader (toml++ underneath, units, closed schema, --set overrides): any text
// must load or throw scenarios::UserError with FILE:LINE:COL; nothing else may escape. Paths the
// text names (profile, deepspeed_config, topo_file) resolve under an empty folder, so a fuzzed
// input never reads a real file.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/error.hpp"
#include "scenarios/load/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;  // the loader is linear; bigger inputs only slow the search
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto loaded = scenarios::load_scenario_text(text, "fuzz.toml", {}, "/nonexistent-fuzz-dir");
    // A loaded scenario must say where each of its keys came from.
    const auto pos = loaded.position_of("cluster.instance");
    if (pos.line < 1 || pos.col < 1) std::abort();
  } catch (const scenarios::UserError& e) {
    if (e.pos().line < 1 || e.pos().col < 1 || e.message().empty()) {
      std::fprintf(stderr, "fuzz_scenario_loader: error without a place: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
