// Fuzzes the DeepSpeed JSON reader (nlohmann-json underneath) and its application to a scenario:
// read_deepspeed_json only takes a path (it is the user's real file), so each input is written
// to a per-process scratch file first. Outcome: settings applied, or scenarios::UserError (or
// models::SpecError from validation) with a place; nothing else.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "models/error.hpp"
#include "scenarios/load/deepspeed_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  static const std::string path = "/tmp/fuzz_deepspeed_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const scenarios::SourcePos named{"fuzz.toml", 3, 20};
    const auto settings = scenarios::read_deepspeed_json(path, "ds.json", named);
    models::ScenarioSpec spec;
    std::map<std::string, scenarios::SourcePos> positions;
    scenarios::apply_deepspeed(settings, spec, positions);
  } catch (const scenarios::UserError& e) {
    if (e.pos().line < 1 || e.pos().col < 1) {
      std::fprintf(stderr, "fuzz_deepspeed_json: error without a place: %s\n", e.what());
      std::abort();
    }
  } catch (const models::SpecError&) {
    // validation of the values (the loader positions it at the key)
  }
  return 0;
}
