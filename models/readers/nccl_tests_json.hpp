#pragma once
// Reader of nccl-tests' JSON output (`-J FILE.json`, nccl-tests 2.17 and later; format "version" 3
// as src/util.cu writes it): the same NcclTestsRun rows as the text table (nccl_tests_output.hpp),
// so `commsim calibrate`, `--compare` and `report` take either. The collective comes from args[0]
// ("./build/all_reduce_perf" -> "all_reduce"), the ranks from config.devices (one entry per rank),
// GPU names from their device_info. parse_nccl_tests() sends a text whose first character is '{'
// here. Malformed input throws models::ParseError at FILE:LINE:COL naming the JSON path
// ("results[3].out_of_place.time: expected a number").
#include <string>
#include <string_view>
#include <vector>

#include "models/readers/nccl_tests_output.hpp"

namespace models::readers {

std::vector<NcclTestsRun> parse_nccl_tests_json(std::string_view text, const std::string& source);

}  // namespace models::readers
