#pragma once
// What a sweep row was computed from, as one short text: a 64-bit FNV-1a hash (Fowler, Noll, Vo)
// of every file the point's scenario read (the scenario, its profile, DeepSpeed config, ...), each
// named and followed by its bytes, in name order. `sweep --resume` compares it, so a row made
// before the scenario or a file it reads was edited is refused instead of kept beside new ones.
// A change detector, not a signature: FNV is not collision resistant against a chosen edit.
#include <string>
#include <vector>

namespace scenarios {

// 16 lowercase hex digits. A file that cannot be read hashes as its name alone.
std::string inputs_digest(std::vector<std::string> files);

}  // namespace scenarios
