// remove_detach: drops detach / alias nodes and identity views, rewiring their users.
#pragma once

#include <memory>

#include "passes/pass.hpp"

namespace fxl {

std::unique_ptr<Pass> makeRemoveDetachPass();

}  // namespace fxl
