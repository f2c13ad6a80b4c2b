#pragma once
// "Did you mean": the known names closest to what the user typed, by edit distance, so an unknown
// instance, GPU, parameter or NCCL variable comes back with the few names it was probably meant
// to be. Part of the error contract (models/error.hpp), so it sits with it at the lowest layer.
#include <string>
#include <string_view>
#include <vector>

namespace models {

// Case-insensitive Levenshtein distance; `swaps`: a swap of two neighbouring letters counts as one
// edit, not two (optimal string alignment: "fdsp" is 1 from "fsdp").
std::size_t edit_distance(std::string_view a, std::string_view b, bool swaps = false);

// Up to `count` candidates, those the way people type names first: the same name without
// separators ("llama3-70b" -> llama-3-70b), the same family ("p5" -> p5.48xlarge, "p4d" ->
// p4d.24xlarge), a name `word` starts ("p5" -> p5e.48xlarge), a name holding one of its numbered
// words ("gb200-nvl72" -> any gb200 instance); then by edit distance (a shared prefix discounted),
// then by name.
std::vector<std::string> closest_names(std::string_view word, const std::vector<std::string>& candidates,
                                       std::size_t count = 3);

// Of closest_names' order, only the candidates within a typo of `word`: an optimal-string-alignment
// distance (a swapped pair of letters is one edit) of at most 1 up to 4 characters, 2 up to 8 and
// 3 beyond, or the same name without separators, or a name holding `word` (3 characters or more),
// or one sharing its first two thirds (4 characters or more): "zero4" -> zero1, zero2, zero3;
// "offload" -> zero3+offload; "fdsp" -> fsdp; "price" -> pricing; "xyz" -> none. For a
// short closed list (a command-line option's values), where the nearest of all is no hint.
std::vector<std::string> near_names(std::string_view word, const std::vector<std::string>& candidates,
                                    std::size_t count = 3);

// "unknown instance 'p4d.24xl' (did you mean p4d.24xlarge, p4de.24xlarge, p5.48xlarge?)"
std::string unknown_name_message(std::string_view what, std::string_view word,
                                 const std::vector<std::string>& candidates);

}  // namespace models
