#pragma once
// One walk over a user's YAML that sees each alias once (yaml-cpp's parser events, before any
// node is built), refusing what would make any later walk of the nodes wrong, endless or huge.
// Internal to scenarios/import/ (the only yaml-cpp user).
//   - A mapping key written twice: yaml-cpp keeps both entries of `nvidia.com/gpu: 1` written
//     twice (a lookup sees the first, iteration both: the importer summed them), while Kubernetes
//     refuses the file (kubectl's YAML decoder: "mapping key ... already defined at line N").
//     Refused at the second, naming the first.
//   - An alias inside the node its anchor names (`a: &x [*x]`): yaml-cpp builds a node that
//     contains itself, and every walk of it recursed until the stack overflowed. Refused at the
//     alias.
//   - Aliases that expand to more than kMaxAliasNodes nodes in all (a "billion laughs" file:
//     each level an anchor listing the one before several times): the nodes are shared, but a
//     walk of them visits every copy. The walk here counts each anchor's expanded size once, so
//     it takes time linear in the text; refused at the alias that passes the bound.
#include <cstdint>
#include <string>

namespace scenarios {

// Nodes that aliases may add to a file once expanded; a Kubernetes job has a few hundred nodes.
inline constexpr std::uint64_t kMaxAliasNodes = 100000;

// Throws UserError at FILE:LINE:COL (see above); returns on YAML syntax errors, which the real
// load reports with its own message. Call after check_yaml_terminates and before YAML::LoadAll.
void check_yaml_structure(const std::string& text, const std::string& file_name);

}  // namespace scenarios
