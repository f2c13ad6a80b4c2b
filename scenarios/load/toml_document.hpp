#pragma once
// Another program's TOML file (a torchtitan job config) as plain values with their places, for the
// importers: they read it without toml++, which only this folder includes. The text is parsed as
// a scenario is (toml_parse.cpp): syntax errors at their place, a key written twice named with both
// places, nesting bounded before toml++ sees it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/load/loader.hpp"

namespace scenarios {

struct TomlValue {
  enum class Kind { String, Integer, Float, Boolean, Array, Other };  // Other: a date or a time
  Kind kind = Kind::Other;
  std::string type;                  // "a string", "an integer", ... (for messages)
  std::string text;                  // a string's value; any other value as TOML writes it
  long long integer = 0;             // Integer
  double number = 0;                 // Integer and Float
  bool boolean = false;              // Boolean
  std::vector<std::string> strings;  // Array: its elements that are strings, in order
  bool all_strings = false;          // Array: every element is a string
  SourcePos key_at, value_at;
};

// Every value that is not a table, by its dotted key with each part unquoted
// ("quantize.linear.float8.filter_fqns"). Arrays are leaves (an array of tables too). Throws
// UserError at FILE:LINE:COL.
std::map<std::string, TomlValue> toml_values(std::string_view text, const std::string& file_name);

}  // namespace scenarios
