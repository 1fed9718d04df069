// remat: realises recompute tags inside one forward+loss+backward graph.
#pragma once

#include <memory>

#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeRematPass();

}  // namespace fxl
