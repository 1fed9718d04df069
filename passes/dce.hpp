// dce: dead code elimination as a pass (the walk itself is eliminateDeadCode in
// passes/graph_edit.hpp, which partition uses too).
#pragma once

#include <memory>

#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeDcePass();

}  // namespace fxl
