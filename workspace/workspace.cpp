#include "workspace/workspace.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <stdexcept>

#include "core/util/content_hash.hpp"
#include "workspace/workspace_file_check.hpp"
#include "workspace/workspace_migration.hpp"
#include "workspace/workspace_schema.hpp"

namespace fxl {

namespace {
namespace fs = std::filesystem;
using Kind = WorkspaceError::Kind;

// 'FXLS' in SQLite's application_id header field, so that `file` and other tools can tell a
// workspace apart without reading its tables.
constexpr int kApplicationId = 0x46584c53;

int64_t nowSeconds()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void removeWithJournal(const std::string& path)
{
    std::error_code ec;
    fs::remove(path, ec);
    fs::remove(path + "-journal", ec);
}

SourceRecord readSource(const SqliteStatement& st)
{
    SourceRecord s;
    s.id = st.int64(0);
    s.path = st.text(1);
    s.role = st.text(2);
    s.graph = st.text(3);
    s.hash = std::strtoull(st.text(4).c_str(), nullptr, 16);
    s.size = st.int64(5);
    s.mtimeNs = st.int64(6);
    s.pipeline = st.text(7);
    s.added = st.int64(8);
    return s;
}
constexpr const char* kSourceColumns = "id, path, role, graph, hash, size, mtime_ns, pipeline, added";

}  // namespace

int Workspace::currentFormatVersion() { return kWorkspaceFormatVersion; }

void Workspace::configure(SqliteDb& db)
{
    // DELETE journal and FULL sync: see the header. Set on every open, as SQLite does not store them.
    db.exec("PRAGMA journal_mode=DELETE");
    db.exec("PRAGMA synchronous=FULL");
}

Workspace Workspace::create(const fs::path& path, CreateMode mode)
{
    const std::string p = path.string();
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p, ec))) {
        if (mode == CreateMode::NewFileOnly)
            throw WorkspaceError(Kind::Exists, p, "already exists: fxlens does not overwrite it");
        try {
            Workspace old = open(p);
        } catch (const WorkspaceError& e) {
            throw WorkspaceError(Kind::Exists, p,
                                 "already exists and is not a workspace fxlens can open (" + e.reason()
                                     + "): fxlens does not overwrite it");
        }
        removeWithJournal(p);
    }
    // O_EXCL: the file is ours from the first byte, even should another program make one at the
    // same path in between
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int err = errno;
        throw WorkspaceError(err == EEXIST ? Kind::Exists : Kind::Io, p,
                             std::string("cannot be created: ") + std::strerror(err));
    }
    ::close(fd);
    try {
        SqliteDb db(p, SQLITE_OPEN_READWRITE);
        configure(db);
        db.exec("PRAGMA application_id=" + std::to_string(kApplicationId));
        {
            Transaction t(db);
            createWorkspaceSchema(db, nowSeconds());
            t.commit();
        }
        db.exec("PRAGMA foreign_keys=ON");
        return Workspace(std::move(db), kWorkspaceFormatVersion);
    } catch (...) {
        removeWithJournal(p);
        throw;
    }
}

SqliteDb Workspace::openChecked(const std::string& path, int& version)
{
    checkWorkspaceHeader(path);
    SqliteDb db(path, SQLITE_OPEN_READWRITE);
    std::vector<std::string> tables;
    try {
        // the first read: SQLite rolls back a hot journal (a writer killed midway) here
        db.exec("BEGIN");
        SqliteStatement st = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
        while (st.step()) tables.push_back(st.text(0));
    } catch (const WorkspaceError&) {
        checkWorkspaceLength(path);  // a cut file is Truncated rather than Damaged
        throw;
    }
    checkWorkspaceLength(path);
    if (std::find(tables.begin(), tables.end(), "meta") == tables.end()) {
        std::string list;
        for (size_t i = 0; i < tables.size() && i < 5; ++i) list += (i ? ", " : "") + tables[i];
        if (tables.size() > 5) list += ", ...";
        throw WorkspaceError(Kind::NotWorkspace, path,
                             "not an fxlens workspace: an SQLite database of another application ("
                                 + (tables.empty() ? std::string("no tables") : "tables " + list) + ")");
    }
    std::map<std::string, std::string> meta;
    try {
        SqliteStatement st = db.prepare("SELECT key, value FROM meta");
        while (st.step()) meta[st.text(0)] = st.text(1);
    } catch (const WorkspaceError& e) {
        throw WorkspaceError(Kind::NotWorkspace, path,
                             "not an fxlens workspace: an SQLite database with another kind of meta table ("
                                 + e.reason() + ")");
    }
    if (meta["format"] != kWorkspaceFormatName)
        throw WorkspaceError(Kind::NotWorkspace, path,
                             "not an fxlens workspace: an SQLite database whose meta table names format '"
                                 + meta["format"] + "', not '" + std::string(kWorkspaceFormatName) + "'");
    const std::string& v = meta["format_version"];
    size_t used = 0;
    try {
        version = std::stoi(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v.size() || version < 1)
        throw WorkspaceError(Kind::Damaged, path, "damaged workspace: format_version '" + v + "' is not a version");
    if (version > kWorkspaceFormatVersion)
        throw WorkspaceError(Kind::NewerVersion, path,
                             "written by fxlens workspace format " + std::to_string(version)
                                 + (meta["written_by"].empty() ? "" : " (fxlens " + meta["written_by"] + ")")
                                 + ", this fxlens reads up to " + std::to_string(kWorkspaceFormatVersion)
                                 + ": update fxlens");
    const std::string check = db.queryText("PRAGMA quick_check").value_or("");
    if (check != "ok") throw WorkspaceError(Kind::Damaged, path, "damaged workspace: " + check);
    db.exec("COMMIT");
    return db;
}

Workspace Workspace::open(const fs::path& path)
{
    int version = 0;
    SqliteDb db = openChecked(path.string(), version);
    configure(db);
    // nothing is written on open but a migration, so a read-only workspace of the current format
    // (an example shipped with fxlens) opens for reading
    if (version < kWorkspaceFormatVersion) {
        Transaction t(db);
        migrateWorkspace(db, version, nowSeconds());
        SqliteStatement st = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('written_by', ?)");
        st.bind(1, fxlensVersion()).run();
        t.commit();
    }
    db.exec("PRAGMA foreign_keys=ON");
    return Workspace(std::move(db), version);
}

std::string Workspace::createdBy() const
{
    return db_.queryText("SELECT value FROM meta WHERE key = 'created_by'").value_or("");
}

std::string Workspace::writtenBy() const
{
    return db_.queryText("SELECT value FROM meta WHERE key = 'written_by'").value_or("");
}

// ---------------------------------------------------------------- sources

void Workspace::requireSource(int64_t source) const
{
    SqliteStatement st = db_.prepare("SELECT 1 FROM sources WHERE id = ?");
    st.bind(1, source);
    if (!st.step())
        throw std::invalid_argument("workspace " + path() + " has no source with id " + std::to_string(source));
}

namespace {
PathFingerprint fingerprintSource(const std::string& file)
{
    try {
        return fingerprintPath(file);
    } catch (const std::runtime_error& e) {
        throw WorkspaceError(Kind::Io, file, std::string("cannot be added to the workspace: ") + e.what());
    }
}
}  // namespace

std::string Workspace::storedPath(const std::string& abs) const
{
    // a source in the workspace's folder (or below) is stored relative to it, so that a folder
    // moved or copied with its workspace still opens; any other source keeps its absolute path
    const fs::path dir = fs::absolute(fs::path(path())).lexically_normal().parent_path();
    const fs::path rel = fs::path(abs).lexically_relative(dir);
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") return abs;
    return rel.string();
}

std::string Workspace::resolvedPath(const std::string& stored) const
{
    const fs::path p(stored);
    if (p.is_absolute()) return stored;
    return (fs::absolute(fs::path(path())).lexically_normal().parent_path() / p).lexically_normal().string();
}

int64_t Workspace::addSource(const fs::path& file, std::string_view role, std::string_view graph)
{
    const std::string abs = fs::absolute(file).lexically_normal().string();
    const PathFingerprint fp = fingerprintSource(abs);
    Transaction t(db_);
    SqliteStatement st = db_.prepare("INSERT INTO sources(path, role, graph, hash, size, mtime_ns, pipeline, added) "
                                     "VALUES (?, ?, ?, ?, ?, ?, '', ?)");
    st.bindAll(storedPath(abs), role, graph, formatHash(fp.hash), fp.size, fp.mtimeNs, nowSeconds()).run();
    const int64_t id = db_.lastInsertRowId();
    t.commit();
    return id;
}

void Workspace::setSourceGraph(int64_t source, std::string_view graph)
{
    Transaction t(db_);
    requireSource(source);
    db_.prepare("UPDATE sources SET graph = ? WHERE id = ?").bindAll(graph, source).run();
    t.commit();
}

void Workspace::setSourcePipeline(int64_t source, std::string_view spec)
{
    Transaction t(db_);
    requireSource(source);
    db_.prepare("UPDATE sources SET pipeline = ? WHERE id = ?").bindAll(spec, source).run();
    t.commit();
}

void Workspace::refreshSource(int64_t source)
{
    const std::optional<SourceRecord> s = this->source(source);
    if (!s) throw std::invalid_argument("workspace " + path() + " has no source with id " + std::to_string(source));
    const PathFingerprint fp = fingerprintSource(s->path);
    Transaction t(db_);
    db_.prepare("UPDATE sources SET hash = ?, size = ?, mtime_ns = ? WHERE id = ?")
        .bindAll(formatHash(fp.hash), fp.size, fp.mtimeNs, source)
        .run();
    t.commit();
}

void Workspace::removeSource(int64_t source)
{
    Transaction t(db_);
    db_.prepare("DELETE FROM sources WHERE id = ?").bind(1, source).run();
    t.commit();
}

std::vector<SourceRecord> Workspace::sources() const
{
    std::vector<SourceRecord> out;
    SqliteStatement st = db_.prepare(std::string("SELECT ") + kSourceColumns + " FROM sources ORDER BY id");
    while (st.step()) {
        out.push_back(readSource(st));
        out.back().path = resolvedPath(out.back().path);
    }
    return out;
}

std::optional<SourceRecord> Workspace::source(int64_t id) const
{
    SqliteStatement st = db_.prepare(std::string("SELECT ") + kSourceColumns + " FROM sources WHERE id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    SourceRecord r = readSource(st);
    r.path = resolvedPath(r.path);
    return r;
}

std::vector<SourceChange> Workspace::changedSources() const
{
    std::vector<SourceChange> out;
    for (SourceRecord& s : sources()) {
        SourceChange c;
        std::error_code ec;
        if (!fs::exists(s.path, ec)) {
            c.kind = SourceChange::Kind::Missing;
            c.detail = "no such file or directory";
        } else {
            PathFingerprint fp;
            try {
                fp = fingerprintPath(s.path);
            } catch (const std::runtime_error& e) {
                c.kind = SourceChange::Kind::Unreadable;
                c.detail = e.what();
                c.source = std::move(s);
                out.push_back(std::move(c));
                continue;
            }
            if (fp.size == s.size && fp.hash == s.hash) continue;
            c.kind = SourceChange::Kind::Modified;
            c.detail = fp.size != s.size
                ? "size " + std::to_string(s.size) + " -> " + std::to_string(fp.size) + " bytes"
                : "content changed (hash " + formatHash(s.hash) + " -> " + formatHash(fp.hash) + ")";
        }
        c.source = std::move(s);
        out.push_back(std::move(c));
    }
    return out;
}

// ---------------------------------------------------------------- pipelines

void Workspace::savePipeline(std::string_view name, std::string_view spec)
{
    Transaction t(db_);
    db_.prepare("INSERT OR REPLACE INTO pipelines(name, spec, saved) VALUES (?, ?, ?)")
        .bindAll(name, spec, nowSeconds())
        .run();
    t.commit();
}

void Workspace::removePipeline(std::string_view name)
{
    Transaction t(db_);
    db_.prepare("DELETE FROM pipelines WHERE name = ?").bind(1, name).run();
    t.commit();
}

std::vector<PipelineRecord> Workspace::pipelines() const
{
    std::vector<PipelineRecord> out;
    SqliteStatement st = db_.prepare("SELECT name, spec, saved FROM pipelines ORDER BY name");
    while (st.step()) out.push_back({st.text(0), st.text(1), st.int64(2)});
    return out;
}

// ---------------------------------------------------------------- steps

void Workspace::saveSteps(int64_t source, const std::vector<StepRecord>& steps)
{
    Transaction t(db_);
    requireSource(source);
    db_.prepare("DELETE FROM steps WHERE source = ?").bind(1, source).run();
    for (const StepRecord& s : steps)
        db_.prepare("INSERT INTO steps(source, idx, pass, spec, added, removed, changed, rewired, tags, verifier_ok, "
                    "seconds, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .bindAll(source, s.index, s.pass, s.spec, s.added, s.removed, s.changed, s.rewired, s.tags,
                     int(s.verifierOk), s.seconds, s.error)
            .run();
    t.commit();
}

std::vector<StepRecord> Workspace::steps(int64_t source) const
{
    std::vector<StepRecord> out;
    SqliteStatement st = db_.prepare("SELECT idx, pass, spec, added, removed, rewired, tags, verifier_ok, seconds, "
                                     "error, changed FROM steps WHERE source = ? ORDER BY idx");
    st.bind(1, source);
    while (st.step()) {
        StepRecord s;
        s.index = static_cast<int>(st.int64(0));
        s.pass = st.text(1);
        s.spec = st.text(2);
        s.added = st.int64(3);
        s.removed = st.int64(4);
        s.rewired = st.int64(5);
        s.tags = st.int64(6);
        s.verifierOk = st.int64(7) != 0;
        s.seconds = st.real(8);
        s.error = st.text(9);
        s.changed = st.int64(10);
        out.push_back(std::move(s));
    }
    return out;
}

// ---------------------------------------------------------------- runs

int64_t Workspace::addRun(const RunRecord& run)
{
    Transaction t(db_);
    requireSource(run.source);
    db_.prepare("INSERT INTO runs(source, step, against, backend, report, time) VALUES (?, ?, ?, ?, ?, ?)")
        .bindAll(run.source, run.step, run.against, run.backend, run.reportJson, run.time ? run.time : nowSeconds())
        .run();
    const int64_t id = db_.lastInsertRowId();
    t.commit();
    return id;
}

std::vector<RunRecord> Workspace::runs(int64_t source) const
{
    std::vector<RunRecord> out;
    SqliteStatement st =
        db_.prepare("SELECT id, source, step, against, backend, report, time FROM runs WHERE source = ? ORDER BY id");
    st.bind(1, source);
    while (st.step())
        out.push_back(
            {st.int64(0), st.int64(1), static_cast<int>(st.int64(2)), st.text(3), st.text(4), st.text(5), st.int64(6)});
    return out;
}

// ---------------------------------------------------------------- layouts

void Workspace::putLayout(std::string_view key, std::string_view bytes)
{
    Transaction t(db_);
    SqliteStatement st = db_.prepare("INSERT OR REPLACE INTO layouts(key, data, time) VALUES (?, ?, ?)");
    st.bind(1, key).bindBlob(2, bytes).bind(3, nowSeconds()).run();
    t.commit();
}

std::optional<std::string> Workspace::layout(std::string_view key) const
{
    SqliteStatement st = db_.prepare("SELECT data FROM layouts WHERE key = ?");
    st.bind(1, key);
    if (!st.step()) return std::nullopt;
    return st.blob(0);
}

std::vector<std::pair<std::string, std::string>> Workspace::layouts() const
{
    std::vector<std::pair<std::string, std::string>> out;
    SqliteStatement st = db_.prepare("SELECT key, data FROM layouts ORDER BY time, key");
    while (st.step()) out.emplace_back(st.text(0), st.blob(1));
    return out;
}

void Workspace::clearLayouts()
{
    Transaction t(db_);
    db_.exec("DELETE FROM layouts");
    t.commit();
}

// ---------------------------------------------------------------- bookmarks and notes

int64_t Workspace::addBookmark(int64_t source, std::string_view graph, std::string_view node, std::string_view label)
{
    Transaction t(db_);
    requireSource(source);
    db_.prepare("INSERT INTO bookmarks(source, graph, node, label) VALUES (?, ?, ?, ?)")
        .bindAll(source, graph, node, label)
        .run();
    const int64_t id = db_.lastInsertRowId();
    t.commit();
    return id;
}

void Workspace::removeBookmark(int64_t id)
{
    Transaction t(db_);
    db_.prepare("DELETE FROM bookmarks WHERE id = ?").bind(1, id).run();
    t.commit();
}

std::vector<BookmarkRecord> Workspace::bookmarks(int64_t source) const
{
    std::vector<BookmarkRecord> out;
    SqliteStatement st =
        db_.prepare("SELECT id, source, graph, node, label FROM bookmarks WHERE source = ? ORDER BY id");
    st.bind(1, source);
    while (st.step()) out.push_back({st.int64(0), st.int64(1), st.text(2), st.text(3), st.text(4)});
    return out;
}

void Workspace::setNote(int64_t source, std::string_view graph, std::string_view node, std::string_view text)
{
    Transaction t(db_);
    requireSource(source);
    if (text.empty())
        db_.prepare("DELETE FROM notes WHERE source = ? AND graph = ? AND node = ?").bindAll(source, graph, node).run();
    else
        db_.prepare("INSERT OR REPLACE INTO notes(source, graph, node, text, time) VALUES (?, ?, ?, ?, ?)")
            .bindAll(source, graph, node, text, nowSeconds())
            .run();
    t.commit();
}

std::optional<NoteRecord> Workspace::note(int64_t source, std::string_view graph, std::string_view node) const
{
    SqliteStatement st =
        db_.prepare("SELECT source, graph, node, text, time FROM notes WHERE source = ? AND graph = ? AND node = ?");
    st.bindAll(source, graph, node);
    if (!st.step()) return std::nullopt;
    return NoteRecord{st.int64(0), st.text(1), st.text(2), st.text(3), st.int64(4)};
}

std::vector<NoteRecord> Workspace::notes(int64_t source) const
{
    std::vector<NoteRecord> out;
    SqliteStatement st =
        db_.prepare("SELECT source, graph, node, text, time FROM notes WHERE source = ? ORDER BY graph, node");
    st.bind(1, source);
    while (st.step()) out.push_back({st.int64(0), st.text(1), st.text(2), st.text(3), st.int64(4)});
    return out;
}

// ---------------------------------------------------------------- view state

void Workspace::saveViewState(const ViewState& state)
{
    Transaction t(db_);
    db_.exec("DELETE FROM view_state");
    for (const auto& [k, v] : state.toRows())
        db_.prepare("INSERT INTO view_state(key, value) VALUES (?, ?)").bindAll(k, v).run();
    t.commit();
}

ViewState Workspace::viewState() const
{
    std::map<std::string, std::string> rows;
    SqliteStatement st = db_.prepare("SELECT key, value FROM view_state");
    while (st.step()) rows[st.text(0)] = st.text(1);
    return ViewState::fromRows(rows);
}

std::string Workspace::integrityCheck() const
{
    std::string out;
    SqliteStatement st = db_.prepare("PRAGMA integrity_check");
    while (st.step()) out += (out.empty() ? "" : "\n") + st.text(0);
    return out;
}

}  // namespace fxl
