// toml_values (toml_document.hpp): another program's TOML as plain values with their places, and
// its errors as the scenario loader gives them.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/load/toml_document.hpp"

using scenarios::TomlValue;

TEST_CASE("toml_values: every leaf by its dotted key, with its kind, value and place", "[scenarios]") {
  const auto v = scenarios::toml_values(
      "[model]\nname = \"llama3\"\nconverters = [\"float8\"]\n\n[quantize.linear.float8]\nenable = true\n"
      "[training]\nsteps = 10\nlr = 3e-4\nmixed = [1, \"a\"]\n",
      "job.toml");
  REQUIRE(v.size() == 6);
  const TomlValue& name = v.at("model.name");
  CHECK(name.kind == TomlValue::Kind::String);
  CHECK(name.text == "llama3");
  CHECK(name.type == "a string");
  CHECK(name.key_at.str() == "job.toml:2:1");
  CHECK(name.value_at.str() == "job.toml:2:8");
  const TomlValue& conv = v.at("model.converters");
  CHECK(conv.kind == TomlValue::Kind::Array);
  CHECK(conv.all_strings);
  CHECK(conv.strings == std::vector<std::string>{"float8"});
  CHECK(v.at("quantize.linear.float8.enable").kind == TomlValue::Kind::Boolean);
  CHECK(v.at("quantize.linear.float8.enable").boolean);
  CHECK(v.at("training.steps").integer == 10);
  CHECK(v.at("training.steps").type == "an integer");
  CHECK(v.at("training.lr").kind == TomlValue::Kind::Float);
  CHECK(v.at("training.lr").number == Approx(3e-4));
  CHECK_FALSE(v.at("training.mixed").all_strings);
  CHECK(v.at("training.mixed").strings == std::vector<std::string>{"a"});
}

TEST_CASE("toml_values: syntax errors and a key written twice are placed as the loader places them", "[scenarios]") {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      scenarios::toml_values(text, "job.toml");
    } catch (const scenarios::UserError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(
      error_of("[training]\nsteps = 1\nsteps = 2\n") ==
      "job.toml:3:9: invalid TOML: 'steps' is defined twice, first at job.toml:2:1 (expected each key and table once)");
  CHECK(error_of("[training\n").rfind("job.toml:1:", 0) == 0);
}
