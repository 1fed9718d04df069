// Why a workspace file could not be created, opened or written: an InputError (the project's
// error with a location, core/ir/diagnostics.hpp) whose file is the workspace's path, with a
// kind for callers that react differently (the GUI offers "update fxlens" for NewerVersion).
#pragma once

#include <string>

#include "core/ir/diagnostics.hpp"

namespace fxl {

class WorkspaceError : public InputError
{
public:
    enum class Kind
    {
        NotFound,  // no such file
        Exists,  // create() over a file it must not overwrite
        NotWorkspace,  // empty, not SQLite, or an SQLite database of another application
        Truncated,  // shorter than its header says
        Damaged,  // SQLite reports corruption, or the meta table is unreadable
        NewerVersion,  // written by a newer fxlens
        Io,  // the file system refused (permissions, disk full, locked by another program)
    };

    WorkspaceError(Kind kind, const std::string& path, const std::string& message);
    Kind kind() const { return kind_; }
    // The message without the path ("written by fxlens workspace format 3, ...").
    const std::string& reason() const { return diagnostic().message; }

private:
    Kind kind_;
};

}  // namespace fxl
