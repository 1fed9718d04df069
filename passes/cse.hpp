// cse: merges call nodes that compute the same value.
#pragma once

#include <memory>

#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeCsePass();

}  // namespace fxl
