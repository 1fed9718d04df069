// The rows of a workspace as the Workspace class (workspace/workspace.hpp) reads and writes
// them; the columns are described in workspace/workspace_schema.hpp.
#pragma once

#include <cstdint>
#include <string>

namespace fxl {

struct SourceRecord
{
    int64_t id = 0;
    std::string path;  // absolute (stored relative to the workspace's folder when the file is in it)
    std::string role = "main";  // "main", "diff-a", "diff-b"
    std::string graph;  // artifact id within the source ("" = its first graph)
    uint64_t hash = 0;  // of the content when it was loaded (core/util/content_hash.hpp)
    int64_t size = 0;
    int64_t mtimeNs = 0;  // 0 = unknown (a file migrated from format 1)
    std::string pipeline;  // the current pipeline spec ("" = none)
    int64_t added = 0;  // unix seconds
    bool operator==(const SourceRecord&) const = default;
};

// A source whose file on disk is no longer what was loaded: the GUI offers to reload it.
struct SourceChange
{
    enum class Kind
    {
        Modified,  // other bytes (or another size)
        Missing,  // no longer there
        Unreadable,  // there, but cannot be read
    };
    SourceRecord source;
    Kind kind = Kind::Modified;
    std::string detail;  // "size 1200 -> 1350 bytes", "no such file or directory", ...
};

struct PipelineRecord
{
    std::string name;
    std::string spec;
    int64_t saved = 0;  // unix seconds
    bool operator==(const PipelineRecord&) const = default;
};

// The summary of one step of a pipeline run (passes/pass.hpp's Step without its graphs).
struct StepRecord
{
    int index = 0;  // 0 = the input
    std::string pass;  // "" for the input
    std::string spec;  // the stage as written, "sac(policy=alternate_mm)"
    // The step's changes as the diff of its graphs against the step before counts them (nodes
    // added, removed and `changed` below, edges rewired; core/analysis/graph_diff.hpp), the
    // numbers the window's Steps table and `fxlens passes` show; the tags the pass logged
    // setting. A step saved by a workspace of format 2 holds the counts the pass logged, and
    // changed -1.
    int64_t added = 0, removed = 0, rewired = 0, tags = 0;
    bool verifierOk = true;
    double seconds = 0.0;
    std::string error;  // the pass' error when the run stopped at this step ("" when none)
    int64_t changed = 0;  // nodes changed (above); -1: not known (format 2)
    bool operator==(const StepRecord&) const = default;
};

struct RunRecord
{
    int64_t id = 0;  // set by addRun
    int64_t source = 0;
    int step = 0;
    std::string against;  // "" for a plain run, else what it was compared with ("step 0", a path)
    std::string backend = "cpu";
    std::string reportJson;  // the report as `fxlens run/check --json` writes it
    int64_t time = 0;  // unix seconds (addRun sets it when 0)
    bool operator==(const RunRecord&) const = default;
};

struct BookmarkRecord
{
    int64_t id = 0;
    int64_t source = 0;
    std::string graph;  // graph role ("" = the step's first graph)
    std::string node;
    std::string label;
    bool operator==(const BookmarkRecord&) const = default;
};

struct NoteRecord
{
    int64_t source = 0;
    std::string graph;
    std::string node;
    std::string text;
    int64_t time = 0;  // unix seconds of the last edit
    bool operator==(const NoteRecord&) const = default;
};

}  // namespace fxl
