// The table of Dynamo-level lowerings: by key ("method:view", "torch.mul", "operator.add";
// see torchLevelKey), the Python signature the node's arguments bind to and the lowering.
#pragma once

#include <map>
#include <string>

#include "runtime/torch_level/torch_level_call.hpp"

namespace fxl::torch_level {

using Table = std::map<std::string, Entry>;

// Built once, on first use.
const Table& table();

}  // namespace fxl::torch_level
