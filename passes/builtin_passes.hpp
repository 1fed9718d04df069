// The built-in passes, registered in the fixed order `fxlens passes list` shows. Each pass lives
// in its own passes/<name>.cpp with its factory in passes/<name>.hpp.
#pragma once

#include "passes/pass.hpp"

namespace fxl {

void registerBuiltinPasses(PassRegistry& reg);

}  // namespace fxl
