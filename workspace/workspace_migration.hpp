// Migration of older workspace files to the current format (workspace/workspace_schema.hpp),
// one step per version, all of them in the caller's transaction: a file is migrated whole or
// left as it was.
//
// Version 1 (fxlens 0.1.0 before notes on nodes) differs from version 2 in two places:
//   sources had no mtime_ns column (added, 0 = unknown: a changed file is still found by its hash);
//   bookmarks(id, source, graph, node, label, note) carried a note per bookmark: version 2 keeps
//       notes on nodes in their own table, so every non-empty bookmark note becomes the note of
//       its node (the notes of several bookmarks on one node joined by a blank line) and the
//       column is dropped.
// Version 2 differs from version 3 in one place: steps had no changed column (added, -1 = not
//       known), and their added / removed / rewired were the counts the pass logged, which a
//       version 3 file replaces with those of the diff against the step before.
#pragma once

#include <cstdint>

#include "workspace/sqlite_db.hpp"

namespace fxl {

// Brings a file of version `from` (1 <= from < kWorkspaceFormatVersion) to the current version,
// format_version in meta included. Foreign keys must be off (they are until the file is open).
void migrateWorkspace(SqliteDb& db, int from, int64_t now);

}  // namespace fxl
