// A workspace: one `*.fxlens` file (an SQLite database, its tables in
// workspace/workspace_schema.hpp) holding what a user had open: the sources with their content
// fingerprints, pipelines saved by name, each source's current pipeline and its step summaries,
// run results, the layout cache, bookmarks and notes on nodes, and the view state that reopening
// restores (current source, step, selection, viewport).
//
// Durability. Every write is one SQLite transaction (workspace/transaction.hpp) in rollback
// journal mode with synchronous=FULL: when a call returns, its change is on disk, and a process
// killed at any moment (kill -9, a crash, a power cut) leaves a file that opens with everything
// committed before it. The rollback journal rather than WAL because a workspace is a document that
// users copy and keep in home directories that may be on network file systems, where WAL's shared
// memory does not work; commits are small and rare (user actions, autosave), so WAL's speed is not
// needed.
//
// Autosave: the GUI calls saveViewState() on a timer (a few seconds after the view last moved) and
// on every change of source, step or selection; it costs one small transaction. Everything else is
// written when it happens (a source added, a pipeline run), so nothing but the view is ever
// pending.
//
// Safety. create() never overwrites a file that is not a workspace, and overwrites a workspace
// only when asked. open() reads and checks the file before it writes anything: a file that is
// empty, not SQLite, SQLite of another application, truncated or damaged is refused with a
// message saying which, and so is a file of a newer format ("written by fxlens workspace format 3,
// this fxlens reads up to 2: update fxlens"); an older one is migrated in one transaction.
//
// Errors: WorkspaceError (workspace/workspace_error.hpp), an InputError whose file is the
// workspace's path. One Workspace is used from one thread at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workspace/sqlite_db.hpp"
#include "workspace/transaction.hpp"
#include "workspace/view_state.hpp"
#include "workspace/workspace_error.hpp"
#include "workspace/workspace_records.hpp"

namespace fxl {

class Workspace
{
public:
    enum class CreateMode
    {
        NewFileOnly,  // refuse any existing file
        ReplaceWorkspace,  // an existing workspace is replaced; any other existing file is refused
    };

    // A new, empty workspace at `path`. Throws WorkspaceError(Exists) when the path exists
    // (unless mode is ReplaceWorkspace and it is a workspace that open() accepts), Io when it
    // cannot be written. Never leaves a half-made file behind.
    static Workspace create(const std::filesystem::path& path, CreateMode mode = CreateMode::NewFileOnly);
    // An existing workspace, checked and (an older format) migrated; see above.
    static Workspace open(const std::filesystem::path& path);

    Workspace(Workspace&&) noexcept = default;
    Workspace& operator=(Workspace&&) noexcept = default;
    ~Workspace() = default;

    const std::string& path() const { return db_.path(); }
    int openedFormatVersion() const { return openedVersion_; }  // before migration
    bool migrated() const { return openedVersion_ != currentFormatVersion(); }
    static int currentFormatVersion();
    std::string createdBy() const;  // the fxlens version that created the file
    std::string writtenBy() const;  // the fxlens version that created or last migrated it

    // Groups several writes into one commit: the calls below made while it is open join it.
    Transaction transaction() { return Transaction(db_); }

    // ---- sources
    // Records a file (or directory) with its fingerprint read now; returns its id. The path is
    // stored relative to the workspace's folder when the file is in it (or below), else absolute;
    // sources() gives it back absolute. Throws WorkspaceError(Io) when it cannot be read.
    int64_t addSource(const std::filesystem::path& file, std::string_view role = "main", std::string_view graph = "");
    void setSourceGraph(int64_t source, std::string_view graph);
    void setSourcePipeline(int64_t source, std::string_view spec);
    // After a reload: the fingerprint of the file as it is now.
    void refreshSource(int64_t source);
    void removeSource(int64_t source);  // with its steps, runs, bookmarks and notes
    std::vector<SourceRecord> sources() const;  // in id order
    std::optional<SourceRecord> source(int64_t id) const;
    // The sources whose file is missing, unreadable or holds other bytes than when it was added
    // or last refreshed (it reads and hashes every file: call it on reopen and when the window
    // regains focus, not in a loop).
    std::vector<SourceChange> changedSources() const;

    // ---- pipelines saved by name
    void savePipeline(std::string_view name, std::string_view spec);  // replaces one of that name
    void removePipeline(std::string_view name);
    std::vector<PipelineRecord> pipelines() const;  // by name

    // ---- step summaries of a source's current pipeline
    void saveSteps(int64_t source, const std::vector<StepRecord>& steps);  // replaces the source's steps
    std::vector<StepRecord> steps(int64_t source) const;  // by index

    // ---- run results
    int64_t addRun(const RunRecord& run);  // returns its id
    std::vector<RunRecord> runs(int64_t source) const;  // oldest first

    // ---- the layout cache
    void putLayout(std::string_view key, std::string_view bytes);
    std::optional<std::string> layout(std::string_view key) const;
    std::vector<std::pair<std::string, std::string>> layouts() const;  // (key, bytes), oldest first
    void clearLayouts();

    // ---- bookmarks and notes on nodes
    int64_t addBookmark(int64_t source, std::string_view graph, std::string_view node, std::string_view label);
    void removeBookmark(int64_t id);
    std::vector<BookmarkRecord> bookmarks(int64_t source) const;  // in the order they were added
    void setNote(int64_t source, std::string_view graph, std::string_view node, std::string_view text);  // "" removes
    std::optional<NoteRecord> note(int64_t source, std::string_view graph, std::string_view node) const;
    std::vector<NoteRecord> notes(int64_t source) const;  // by graph, node

    // ---- the view (autosave)
    void saveViewState(const ViewState& state);  // one transaction
    ViewState viewState() const;

    // SQLite's integrity_check: "ok", or the problems found, one per line.
    std::string integrityCheck() const;

private:
    Workspace(SqliteDb db, int openedVersion)
        : db_(std::move(db))
        , openedVersion_(openedVersion)
    { }
    static SqliteDb openChecked(const std::string& path, int& version);
    static void configure(SqliteDb& db);
    void requireSource(int64_t source) const;
    // A source path as stored: relative to the workspace's folder when the source is in it (or
    // below), else absolute; and back to absolute.
    std::string storedPath(const std::string& abs) const;
    std::string resolvedPath(const std::string& stored) const;

    SqliteDb db_;
    int openedVersion_ = 0;
};

}  // namespace fxl
