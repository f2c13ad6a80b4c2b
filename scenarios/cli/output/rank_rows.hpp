#pragma once
// The `ranks` array of `run --json` written as text, byte for byte what dump_json prints for the
// same rows built as JSON objects (result_schema.hpp: numbers rounded to kSignificantDigits,
// 2-space indent), in a fraction of the time: a 131,072-GPU run has 131,072 rows, and building
// them as JSON objects (17 keys each) and rounding every number through printf cost seconds. Rows
// of one class of ranks repeat their numbers (rank classes, replicas simulated once), so each
// distinct set of numbers is rounded and printed once.
#include <string>

#include "models/result.hpp"

namespace scenarios {

// The array as dump_json prints it as the value of a key at `indent` spaces ("[]" if empty).
std::string rank_rows_json(const models::RunResult& r, int indent);

// The same array built as JSON objects and printed by dump_json's rules (the reference the
// text above must equal; tests compare the two).
std::string rank_rows_json_reference(const models::RunResult& r, int indent);

}  // namespace scenarios
