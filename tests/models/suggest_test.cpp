// "Did you mean" by the names people type (models/suggest.hpp): a family ("p5", "p4d"), the start
// of a name, a numbered word ("gb200"), the name without separators ("llama3-70b"), before plain
// edit distance, which pointed `p5`, `p4d` and `gb200-nvl72` at `h200x4` (3 edits from "p5" but
// unrelated) and gave a preset typo no suggestion at all.
#include "models/suggest.hpp"

#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"

TEST_CASE("suggest: an instance family names its own sizes first", "[models]") {
  const auto p5 = models::closest_names("p5", models::hw::instance_names());
  REQUIRE(p5.size() == 3);
  CHECK(p5[0] == "p5.48xlarge");  // the family itself
  CHECK(p5[1] == "p5e.48xlarge");  // names "p5" starts, by distance then name
  CHECK(p5[2] == "p5en.48xlarge");
  const auto p4d = models::closest_names("p4d", models::hw::instance_names());
  CHECK(p4d[0] == "p4d.24xlarge");
  CHECK(p4d[1] == "p4de.24xlarge");
  CHECK(models::closest_names("p4d.24xl", models::hw::instance_names())[0] == "p4d.24xlarge");
}

TEST_CASE("suggest: a numbered word of the typed name finds the names holding it", "[models]") {
  // A synthetic catalog: the closest by edit distance alone would be "h200x4" (6 edits from
  // "gb200-nvl72" against 8 for the GB200 machine), which shares no word with it.
  const std::vector<std::string> names = {"h200x4", "p5.48xlarge", "p6e-gb200.36xlarge", "dgx-b200"};
  const auto close = models::closest_names("gb200-nvl72", names);
  CHECK(close[0] == "p6e-gb200.36xlarge");
}

TEST_CASE("suggest: a preset typed without its separators is the preset", "[models]") {
  const auto close = models::closest_names("llama3-70b", models::model::preset_names());
  CHECK(close[0] == "llama-3-70b");
  models::ModelSpec spec;
  spec.preset = "llama3-70b";
  try {
    models::model::resolve_model(spec);
    FAIL("no error");
  } catch (const models::SpecError& e) {
    CHECK(std::string(e.what()).find("did you mean llama-3-70b") != std::string::npos);
  }
}

TEST_CASE("suggest: near_names keeps only the names within a typo, nearest first", "[models]") {
  const std::vector<std::string> strategies = {"megatron",      "zero1", "zero2", "zero3",
                                               "zero3+offload", "fsdp",  "hsdp",  "ddp"};
  CHECK(models::near_names("zero4", strategies) == std::vector<std::string>{"zero1", "zero2", "zero3"});
  CHECK(models::near_names("fdsp", strategies) == std::vector<std::string>{"fsdp"});  // a swap is one edit
  CHECK(models::near_names("offload", strategies) == std::vector<std::string>{"zero3+offload"});
  CHECK(models::near_names("Megatron", strategies) == std::vector<std::string>{"megatron"});
  CHECK(models::near_names("price", {"usd_per_hour", "pricing", "source"}) == std::vector<std::string>{"pricing"});
  CHECK(models::near_names("pipeline", strategies).empty());  // closest_names would still give three
  CHECK(models::closest_names("pipeline", strategies).size() == 3);
  CHECK(models::near_names("zero4", strategies, 1) == std::vector<std::string>{"zero1"});
}

TEST_CASE("suggest: edit distance, case-insensitive, a swap of neighbours one edit only when asked", "[suggest]") {
  CHECK(models::edit_distance("kitten", "SITTING") == 3);
  CHECK(models::edit_distance("kitten", "sitting", true) == 3);
  CHECK(models::edit_distance("fdsp", "fsdp") == 2);
  CHECK(models::edit_distance("fdsp", "fsdp", true) == 1);
  CHECK(models::edit_distance("", "abc", true) == 3);
  CHECK(models::edit_distance("ca", "abc", true) == 3);  // optimal string alignment, not Damerau's 2
}
