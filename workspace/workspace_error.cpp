#include "workspace/workspace_error.hpp"

namespace fxl {

WorkspaceError::WorkspaceError(Kind kind, const std::string& path, const std::string& message)
    : InputError(path, 0, 0, message)
    , kind_(kind)
{ }

}  // namespace fxl
