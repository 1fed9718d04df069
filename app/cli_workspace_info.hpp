// fxlens info on a workspace (*.fxlens, workspace/workspace.hpp): what it holds, as text or in
// the --json document of fxlens info, without a window.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace fxl::cli {

// Prints (or, with json, returns in `out`) the workspace's sources with their pipelines, steps,
// runs, bookmarks and notes, the sources changed on disk since, the saved pipelines and the view
// to restore. Throws WorkspaceError (an InputError) when the file is not a workspace fxlens reads.
void workspaceInfo(const std::string& path, std::ostream& text, nlohmann::json* out);

}  // namespace fxl::cli
