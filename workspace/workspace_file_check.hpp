// Checks of a workspace file that SQLite does not make, so that a wrong file is refused with a
// message that says what it is instead of failing later, midway through a read:
// - before SQLite opens it: a file that does not start with SQLite's header is not a workspace,
//   and the message names what it looks like (empty, text, PNG, ZIP, ...);
// - after the first read (any hot journal rolled back): SQLite reads missing pages of a cut file
//   as zeros, so a truncated file is found by comparing its length with the page count its
//   header gives.
#pragma once

#include <cstdint>
#include <string>

namespace fxl {

// Throws WorkspaceError: NotFound (no such file), NotWorkspace (a directory, an empty file, not
// SQLite), Truncated (SQLite's header cut short), Io (unreadable).
void checkWorkspaceHeader(const std::string& path);

// Throws WorkspaceError(Truncated) when the file is shorter than its header's page size times
// its page count (when the header's count is valid: SQLite since 3.7.0 keeps it so). Call it
// once SQLite has read the file (a hot journal rolled back), or when that first read failed.
void checkWorkspaceLength(const std::string& path);

// What the first bytes of a file that is not an SQLite database look like: "an empty file",
// "a PNG image", "a text file", "a file starting with 00 01 ...".
std::string describeForeignBytes(const std::string& head);

}  // namespace fxl
