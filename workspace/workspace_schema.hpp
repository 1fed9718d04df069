// The tables of a workspace file (`*.fxlens`, an SQLite database), format version 3.
//
//   meta(key TEXT PRIMARY KEY, value TEXT)
//       format = "fxlens-workspace", format_version = "3", created_by / written_by = the fxlens
//       version ("0.1.0") that created the file / created or last migrated it, created = unix seconds
//   pipelines(name TEXT PRIMARY KEY, spec TEXT, saved INTEGER)
//       pipelines saved by name ("remove_detach,sac(policy=alternate_mm),remat,dce")
//   sources(id INTEGER PRIMARY KEY, path TEXT, role TEXT, graph TEXT, hash TEXT, size INTEGER,
//           mtime_ns INTEGER, pipeline TEXT, added INTEGER)
//       the loaded files: path (relative to the workspace's folder when the file is in it, else absolute), role
//       ("main", "diff-a", "diff-b"), the graph shown (an artifact id of the source, "" for the first), the content
//       fingerprint when it was loaded (FNV-1a 64 as 16 hex digits, bytes, modification time;
//       core/util/content_hash.hpp) and the source's current pipeline spec ("" for none)
//   steps(source, idx, pass, spec, added, removed, rewired, tags, changed, verifier_ok, seconds,
//         error; PRIMARY KEY(source, idx))
//       summaries of the current pipeline's steps (index 0 = the input); the graphs themselves
//       are recomputed from the source and the spec on reopen. added, removed, changed (nodes) and
//       rewired (edges) are the diff's counts against the step before (version 3; a migrated
//       version 2 row keeps the counts its pass logged, with changed -1); tags as the pass logged
//   runs(id INTEGER PRIMARY KEY, source, step, against, backend, report TEXT, time INTEGER)
//       run and check results: the step run, what it was compared with ("" for a plain run,
//       "step 0", a file), the backend ("cpu"), the report as JSON text
//   layouts(key TEXT PRIMARY KEY, data BLOB, time INTEGER)
//       the layout cache: a key naming graph, group and layout options, the layout's bytes
//   bookmarks(id INTEGER PRIMARY KEY, source, graph, node, label)
//   notes(source, graph, node, text, time; PRIMARY KEY(source, graph, node))
//       one note per node
//   view_state(key TEXT PRIMARY KEY, value TEXT)
//       what reopening restores (workspace/view_state.hpp): current source, step, selection,
//       viewport, expanded groups, open tabs, as JSON text per key
//
// Every `source` column references sources(id) ON DELETE CASCADE. Times are unix seconds.
// Versions 1 (before the notes table) and 2 (before the steps' changed column) are migrated on
// open: workspace/workspace_migration.hpp.
#pragma once

#include <string_view>

#include "workspace/sqlite_db.hpp"

namespace fxl {

inline constexpr std::string_view kWorkspaceFormatName = "fxlens-workspace";
inline constexpr int kWorkspaceFormatVersion = 3;

// The fxlens version written into meta (the project's version, CMakeLists.txt).
std::string_view fxlensVersion();

// Creates the tables and the meta rows of the current version in an empty database, inside
// the caller's transaction.
void createWorkspaceSchema(SqliteDb& db, int64_t now);

}  // namespace fxl
