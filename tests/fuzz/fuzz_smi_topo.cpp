// Fuzzes the `nvidia-smi topo -m` importer: parse or models::ParseError (with a place); a parsed
// matrix must be square and consistent with its GPU and NIC counts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/parse_error.hpp"
#include "models/readers/smi_topo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto m = models::readers::parse_smi_topo(text, "fuzz.txt");
    bool ok = m.gpus >= 0 && m.nics >= 0 && static_cast<int>(m.gpu_gpu.size()) == m.gpus &&
              static_cast<int>(m.nv_links.size()) == m.gpus;
    for (int i = 0; ok && i < m.gpus; ++i)
      ok = static_cast<int>(m.gpu_gpu[i].size()) == m.gpus && static_cast<int>(m.nv_links[i].size()) == m.gpus;
    if (!ok) {
      std::fprintf(stderr, "fuzz_smi_topo: incoherent matrix (%d GPUs)\n", m.gpus);
      std::abort();
    }
  } catch (const models::ParseError& e) {
    if (e.line() < 1 || e.col() < 1) std::abort();
  }
  return 0;
}
