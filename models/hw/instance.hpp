#pragma once
// Instance catalog: the machines users run on (AWS EC2 GPU instances and the 4 x H200
// calibration host), each as a NodeSpec with the source of its numbers.
#include <string>
#include <string_view>
#include <vector>

#include "models/hw/node.hpp"

namespace models::hw {

const std::vector<NodeSpec>& instance_catalog();
std::vector<std::string> instance_names();
// Throws SpecError("cluster.instance", "unknown instance 'x' (did you mean a, b, c?)").
const NodeSpec& find_instance(std::string_view name);

}  // namespace models::hw
