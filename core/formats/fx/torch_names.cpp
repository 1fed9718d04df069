#include "core/formats/fx/torch_names.hpp"

#include <string>

namespace fxl {

std::optional<Arg> torchValueFromName(std::string_view name)
{
    if (!name.starts_with("torch.")) return std::nullopt;
    std::string_view rest = name.substr(6);
    if (rest.starts_with("ops.") && rest.size() > 4) return Arg::ofOp(std::string(rest.substr(4)));
    if (auto dtype = dtypeFromTorchName(rest)) return Arg::ofDType(*dtype);
    if (isLayoutName(rest)) return Arg::ofLayout(std::string(rest));
    if (isMemoryFormatName(rest)) return Arg::ofMemoryFormat(std::string(rest));
    return std::nullopt;
}

}  // namespace fxl
