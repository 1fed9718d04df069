// Internal to core/formats/fx: the torch values FX text spells as dotted names, shared by the
// FX text reader and the graph listing reader.
#pragma once

#include <optional>
#include <string_view>

#include "core/ir/argument.hpp"

namespace fxl {

// "torch.float32" (a dtype), "torch.strided" (a layout), "torch.channels_last" (a memory
// format), "torch.ops.aten.mm.default" (an operator); nullopt for any other name.
std::optional<Arg> torchValueFromName(std::string_view name);

}  // namespace fxl
