// annotate_regions: activation-checkpoint region ids from module paths, source lines or names.
#pragma once

#include <memory>

#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeAnnotateRegionsPass();

}  // namespace fxl
