// The workspace file (workspace/workspace.hpp): everything written comes back after close and
// reopen (sources, pipelines, steps, runs, layouts, bookmarks, notes, the view: step, selection,
// viewport), transactions group and roll back, changed and deleted sources are reported, create()
// never overwrites a user's file, a file of format 1 built with raw SQL is migrated, and a file of
// a newer format is refused untouched, naming both versions.
#include <sqlite3.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/util/content_hash.hpp"
#include "test_registry.hpp"
#include "workspace/workspace.hpp"
#include "workspace/workspace_schema.hpp"

namespace test_workspace {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& p, const std::string& bytes)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

std::string readBytes(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs SQL on a file with SQLite itself, as another program would.
void rawExec(const fs::path& file, const std::string& sql)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    const std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    QVERIFY2(rc == SQLITE_OK, msg.c_str());
}

std::string rawQuery(const fs::path& file, const std::string& sql)
{
    sqlite3* db = nullptr;
    sqlite3_open(file.c_str(), &db);
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

template<typename F>
WorkspaceError::Kind refusal(F&& f, std::string& message)
{
    try {
        f();
    } catch (const WorkspaceError& e) {
        message = e.what();
        return e.kind();
    }
    message = "no error";
    return WorkspaceError::Kind::Io;
}

}  // namespace

class TestWorkspace : public QObject
{
    Q_OBJECT

private slots:
    // A source in the workspace's folder is stored relative to it: the folder copied elsewhere
    // with its workspace opens on its own copy; a source outside keeps its absolute path.
    void movedFolder()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        const fs::path inside = root / "project" / "graphs" / "g.py", outside = root / "elsewhere.py";
        writeFile(inside, "graph inside\n");
        writeFile(outside, "graph outside\n");
        {
            Workspace ws = Workspace::create(root / "project" / "w.fxlens");
            ws.addSource(inside);
            ws.addSource(outside, "diff-b");
        }
        QCOMPARE(rawQuery(root / "project" / "w.fxlens", "SELECT path FROM sources WHERE id = 1"),
                 std::string("graphs/g.py"));
        fs::copy(root / "project", root / "moved", fs::copy_options::recursive);
        fs::remove_all(root / "project");
        Workspace ws = Workspace::open(root / "moved" / "w.fxlens");
        const auto sources = ws.sources();
        QCOMPARE(int(sources.size()), 2);
        QCOMPARE(sources[0].path, (root / "moved" / "graphs" / "g.py").lexically_normal().string());
        QCOMPARE(sources[1].path, outside.lexically_normal().string());
        QVERIFY(ws.changedSources().empty());  // both found, unchanged
        QCOMPARE(ws.source(1)->path, sources[0].path);
    }

    void roundTrip()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeFile(root / "a.py", "graph a");
        writeFile(root / "b.graph.txt", "graph b");
        const fs::path file = root / "session.fxlens";

        const std::vector<StepRecord> steps = {
            {0, "", "", 0, 0, 0, 0, true, 0.0, ""},
            {1, "remove_detach", "remove_detach", 0, 12, 12, 0, true, 0.0125, ""},
            {2, "sac", "sac(policy=alternate_mm)", 0, 0, 0, 37, true, 0.5, ""},
            {3, "remat", "remat", 40, 3, 61, 0, false, 1.25, "stage 3 (remat): no backward"},
        };
        ViewState view;
        view.stepIndex = 2;
        view.selectedGraph = "forward";
        view.selectedNode = "mm_3";
        view.viewport = {12.5, -40.25, 0.75};
        view.expandedGroups = {"forward", "forward/blocks.0"};
        view.openTabs = {"graph", "diff 1..2"};
        view.extra["future_key"] = R"({"x":1})";
        const std::string blob("\0\1\2layout\xff", 10);
        int64_t a = 0, b = 0, runId = 0, bookmark = 0;
        {
            Workspace ws = Workspace::create(file);
            QCOMPARE(ws.openedFormatVersion(), Workspace::currentFormatVersion());
            QVERIFY(!ws.migrated());
            QCOMPARE(ws.createdBy(), std::string(fxlensVersion()));
            a = ws.addSource(root / "a.py", "diff-a", "rank0/3");
            b = ws.addSource(root / "b.graph.txt", "diff-b");
            view.currentSource = a;
            ws.setSourcePipeline(a, "remove_detach,sac(policy=alternate_mm),remat");
            ws.savePipeline("tidy", "remove_detach,dce");
            ws.savePipeline("ac", "sac(policy=alternate_mm),remat");
            ws.savePipeline("tidy", "dce");  // replaces
            ws.saveSteps(a, {steps[0]});
            ws.saveSteps(a, steps);  // replaces
            runId = ws.addRun({0, a, 2, "step 0", "cpu", R"({"bitwise":true})", 1700000000});
            ws.putLayout("rank0/3|forward", blob);
            ws.putLayout("empty", "");
            bookmark = ws.addBookmark(a, "", "mm_3", "the big matmul");
            ws.addBookmark(b, "backward", "mm_7", "its gradient");
            ws.setNote(a, "", "mm_3", "why is this saved?");
            ws.setNote(a, "", "relu", "gone soon");
            ws.setNote(a, "", "relu", "");  // removes
            ws.saveViewState(view);
        }
        QVERIFY(!fs::exists(root / "session.fxlens-journal"));

        Workspace ws = Workspace::open(file);
        QVERIFY(!ws.migrated());
        const std::vector<SourceRecord> sources = ws.sources();
        QCOMPARE(sources.size(), size_t(2));
        QCOMPARE(sources[0].id, a);
        QCOMPARE(sources[0].path, (root / "a.py").string());
        QCOMPARE(sources[0].role, std::string("diff-a"));
        QCOMPARE(sources[0].graph, std::string("rank0/3"));
        QCOMPARE(sources[0].hash, hashBytes("graph a"));
        QCOMPARE(sources[0].size, int64_t(7));
        QVERIFY(sources[0].mtimeNs > 0);
        QCOMPARE(sources[0].pipeline, std::string("remove_detach,sac(policy=alternate_mm),remat"));
        QCOMPARE(sources[1].role, std::string("diff-b"));
        QCOMPARE(sources[1].graph, std::string());
        QCOMPARE(ws.source(b)->path, (root / "b.graph.txt").string());
        QVERIFY(!ws.source(b + 100));

        const std::vector<PipelineRecord> pipelines = ws.pipelines();
        QCOMPARE(pipelines.size(), size_t(2));
        QCOMPARE(pipelines[0].name, std::string("ac"));
        QCOMPARE(pipelines[1].name, std::string("tidy"));
        QCOMPARE(pipelines[1].spec, std::string("dce"));

        QCOMPARE(ws.steps(a), steps);
        QVERIFY(ws.steps(b).empty());

        const std::vector<RunRecord> runs = ws.runs(a);
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0], (RunRecord{runId, a, 2, "step 0", "cpu", R"({"bitwise":true})", 1700000000}));

        QCOMPARE(ws.layout("rank0/3|forward"), std::optional<std::string>(blob));
        QCOMPARE(ws.layout("empty"), std::optional<std::string>(std::string()));
        QVERIFY(!ws.layout("absent"));

        QCOMPARE(ws.bookmarks(a), (std::vector<BookmarkRecord>{{bookmark, a, "", "mm_3", "the big matmul"}}));
        QCOMPARE(ws.bookmarks(b).size(), size_t(1));
        QCOMPARE(ws.bookmarks(b)[0].graph, std::string("backward"));
        const std::vector<NoteRecord> notes = ws.notes(a);
        QCOMPARE(notes.size(), size_t(1));
        QCOMPARE(notes[0].node, std::string("mm_3"));
        QCOMPARE(notes[0].text, std::string("why is this saved?"));
        QVERIFY(notes[0].time > 0);
        QCOMPARE(ws.note(a, "", "mm_3")->text, std::string("why is this saved?"));
        QVERIFY(!ws.note(a, "", "relu"));

        // the same step, selection and viewport
        const ViewState back = ws.viewState();
        QCOMPARE(back.stepIndex, 2);
        QCOMPARE(back.selectedNode, std::string("mm_3"));
        QCOMPARE(back.viewport, (Viewport{12.5, -40.25, 0.75}));
        QCOMPARE(back, view);
        QCOMPARE(ws.integrityCheck(), std::string("ok"));
        QVERIFY(ws.changedSources().empty());

        // removing a source removes what belongs to it
        ws.removeSource(a);
        QCOMPARE(ws.sources().size(), size_t(1));
        QVERIFY(ws.steps(a).empty() && ws.runs(a).empty() && ws.bookmarks(a).empty() && ws.notes(a).empty());
        QCOMPARE(ws.bookmarks(b).size(), size_t(1));
    }

    void autosaveReplacesTheView()
    {
        QTemporaryDir dir;
        const fs::path file = fs::path(dir.path().toStdString()) / "w.fxlens";
        Workspace ws = Workspace::create(file);
        QCOMPARE(ws.viewState(), ViewState{});  // a new workspace: the defaults
        ViewState v;
        v.expandedGroups = {"forward"};
        v.viewport.zoom = 2.0;
        ws.saveViewState(v);
        v.expandedGroups.clear();
        v.viewport.zoom = 0.5;
        ws.saveViewState(v);
        QCOMPARE(Workspace::open(file).viewState(), v);
    }

    void damagedViewRowsKeepDefaults()
    {
        ViewState s = ViewState::fromRows(
            {{"step", "\"two\""}, {"viewport", "{\"x\": 3, \"zoom\": \"big\"}"}, {"selection", "not json"}});
        QCOMPARE(s.stepIndex, 0);
        QCOMPARE(s.viewport, Viewport{});
        QCOMPARE(s.selectedNode, std::string());
    }

    void transactionsGroupAndRollBack()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeFile(root / "g.py", "g");
        const fs::path file = root / "w.fxlens";
        Workspace ws = Workspace::create(file);
        const int64_t s = ws.addSource(root / "g.py");
        {
            Transaction t = ws.transaction();
            ws.addBookmark(s, "", "a", "kept");
            ws.setNote(s, "", "a", "kept too");
            t.commit();
        }
        {
            Transaction t = ws.transaction();
            ws.addBookmark(s, "", "b", "dropped");
            ws.savePipeline("dropped", "dce");
        }  // no commit: rolled back
        try {
            Transaction t = ws.transaction();
            ws.addBookmark(s, "", "c", "dropped");
            ws.addBookmark(s + 7, "", "d", "no such source");  // throws: the whole group is undone
            t.commit();
            QFAIL("no exception");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find("no source with id") != std::string::npos, e.what());
        }
        Workspace back = Workspace::open(file);
        QCOMPARE(back.bookmarks(s).size(), size_t(1));
        QCOMPARE(back.bookmarks(s)[0].label, std::string("kept"));
        QCOMPARE(back.notes(s).size(), size_t(1));
        QVERIFY(back.pipelines().empty());
    }

    void changedSources()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeFile(root / "same.py", "unchanged");
        writeFile(root / "edited.py", "abcdef");
        writeFile(root / "grown.py", "abc");
        writeFile(root / "deleted.py", "bye");
        writeFile(root / "logs" / "rank0.log", "log 0");
        const fs::path file = root / "w.fxlens";
        int64_t edited = 0;
        {
            Workspace ws = Workspace::create(file);
            ws.addSource(root / "same.py");
            edited = ws.addSource(root / "edited.py");
            ws.addSource(root / "grown.py");
            ws.addSource(root / "deleted.py");
            ws.addSource(root / "logs");
            QVERIFY(ws.changedSources().empty());
        }
        writeFile(root / "edited.py", "abcdeF");  // same size
        writeFile(root / "grown.py", "abcd");
        fs::remove(root / "deleted.py");
        writeFile(root / "logs" / "rank1.log", "log 1");
        Workspace ws = Workspace::open(file);
        const std::vector<SourceChange> changes = ws.changedSources();
        QCOMPARE(changes.size(), size_t(4));
        QCOMPARE(changes[0].source.path, (root / "edited.py").string());
        QVERIFY(changes[0].kind == SourceChange::Kind::Modified);
        QVERIFY2(changes[0].detail.find("content changed") != std::string::npos, changes[0].detail.c_str());
        QVERIFY(changes[1].kind == SourceChange::Kind::Modified);
        QCOMPARE(changes[1].detail, std::string("size 3 -> 4 bytes"));
        QVERIFY(changes[2].kind == SourceChange::Kind::Missing);
        QCOMPARE(changes[2].source.path, (root / "deleted.py").string());
        QCOMPARE(changes[3].source.path, (root / "logs").string());
        // reloaded: no longer reported
        ws.refreshSource(edited);
        QCOMPARE(ws.changedSources().size(), size_t(3));
        QCOMPARE(ws.source(edited)->hash, hashBytes("abcdeF"));
        // a source that cannot be read is refused with its path
        std::string msg;
        QVERIFY(refusal([&] { ws.addSource(root / "nope.py"); }, msg) == WorkspaceError::Kind::Io);
        QVERIFY2(msg.find("nope.py") != std::string::npos, msg.c_str());
    }

    void createNeverOverwritesAUsersFile()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path user = root / "thesis.fxlens";
        writeFile(user, "my thesis, not a workspace");
        std::string msg;
        for (auto mode : {Workspace::CreateMode::NewFileOnly, Workspace::CreateMode::ReplaceWorkspace}) {
            QVERIFY(refusal([&] { Workspace::create(user, mode); }, msg) == WorkspaceError::Kind::Exists);
            QVERIFY2(msg.find("does not overwrite") != std::string::npos, msg.c_str());
            QVERIFY2(msg.find(user.string()) != std::string::npos, msg.c_str());
            QCOMPARE(readBytes(user), std::string("my thesis, not a workspace"));
        }
        // an SQLite database of another program, asked to replace a workspace: refused, untouched
        const fs::path other = root / "other.db";
        rawExec(other, "CREATE TABLE users(name TEXT); INSERT INTO users VALUES ('ada');");
        const std::string otherBytes = readBytes(other);
        QVERIFY(refusal([&] { Workspace::create(other, Workspace::CreateMode::ReplaceWorkspace); }, msg)
                == WorkspaceError::Kind::Exists);
        QVERIFY2(msg.find("another application") != std::string::npos, msg.c_str());
        QCOMPARE(readBytes(other), otherBytes);
        // a workspace: refused unless asked to replace it
        const fs::path ws = root / "w.fxlens";
        Workspace::create(ws).savePipeline("mine", "dce");
        QVERIFY(refusal([&] { Workspace::create(ws); }, msg) == WorkspaceError::Kind::Exists);
        QCOMPARE(Workspace::open(ws).pipelines().size(), size_t(1));
        QVERIFY(Workspace::create(ws, Workspace::CreateMode::ReplaceWorkspace).pipelines().empty());
        QVERIFY(Workspace::open(ws).pipelines().empty());
        // a folder that does not exist: nothing is left behind
        QVERIFY(refusal([&] { Workspace::create(root / "no" / "w.fxlens"); }, msg) == WorkspaceError::Kind::Io);
        QVERIFY(!fs::exists(root / "no"));
    }

    void version1IsMigrated()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeFile(root / "g.py", "graph v1");
        const fs::path file = root / "old.fxlens";
        // format 1 as fxlens wrote it (workspace/workspace_migration.hpp): no mtime_ns, a note per bookmark
        rawExec(file, R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
INSERT INTO meta VALUES ('format', 'fxlens-workspace'), ('format_version', '1'), ('created_by', '0.0.9'),
                        ('written_by', '0.0.9'), ('created', '1600000000');
CREATE TABLE pipelines(name TEXT PRIMARY KEY NOT NULL, spec TEXT NOT NULL, saved INTEGER NOT NULL);
CREATE TABLE sources(id INTEGER PRIMARY KEY, path TEXT NOT NULL, role TEXT NOT NULL, graph TEXT NOT NULL DEFAULT '',
  hash TEXT NOT NULL, size INTEGER NOT NULL, pipeline TEXT NOT NULL DEFAULT '', added INTEGER NOT NULL);
CREATE TABLE steps(source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE, idx INTEGER NOT NULL,
  pass TEXT NOT NULL, spec TEXT NOT NULL, added INTEGER NOT NULL, removed INTEGER NOT NULL, rewired INTEGER NOT NULL,
  tags INTEGER NOT NULL, verifier_ok INTEGER NOT NULL, seconds REAL NOT NULL, error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(source, idx));
CREATE TABLE runs(id INTEGER PRIMARY KEY, source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, against TEXT NOT NULL, backend TEXT NOT NULL, report TEXT NOT NULL, time INTEGER NOT NULL);
CREATE TABLE layouts(key TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, time INTEGER NOT NULL);
CREATE TABLE bookmarks(id INTEGER PRIMARY KEY, source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  graph TEXT NOT NULL, node TEXT NOT NULL, label TEXT NOT NULL, note TEXT NOT NULL DEFAULT '');
CREATE TABLE view_state(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
INSERT INTO pipelines VALUES ('tidy', 'dce', 1600000000);
INSERT INTO steps VALUES (1, 0, '', '', 0, 0, 0, 0, 1, 0.0, ''), (1, 1, 'dce', 'dce', 0, 4, 0, 0, 1, 0.25, '');
INSERT INTO bookmarks VALUES (1, 1, '', 'mm_3', 'matmul', 'first'), (2, 1, '', 'relu', 'act', ''),
                             (3, 1, '', 'mm_3', 'again', 'second');
INSERT INTO view_state VALUES ('step', '1'), ('selection', '{"graph":"","node":"relu"}');
)sql");
        rawExec(file,
                "INSERT INTO sources VALUES (1, '" + (root / "g.py").string() + "', 'main', '', '"
                    + formatHash(hashBytes("graph v1")) + "', 8, 'dce', 1600000000)");
        {
            Workspace ws = Workspace::open(file);
            QCOMPARE(ws.openedFormatVersion(), 1);
            QVERIFY(ws.migrated());
            QCOMPARE(ws.createdBy(), std::string("0.0.9"));
            QCOMPARE(ws.writtenBy(), std::string(fxlensVersion()));
            const std::vector<SourceRecord> sources = ws.sources();
            QCOMPARE(sources.size(), size_t(1));
            QCOMPARE(sources[0].mtimeNs, int64_t(0));
            QCOMPARE(sources[0].pipeline, std::string("dce"));
            QVERIFY(ws.changedSources().empty());  // found by the hash without a modification time
            const std::vector<BookmarkRecord> bookmarks = ws.bookmarks(1);
            QCOMPARE(bookmarks.size(), size_t(3));
            QCOMPARE(bookmarks[2], (BookmarkRecord{3, 1, "", "mm_3", "again"}));
            const std::vector<NoteRecord> notes = ws.notes(1);
            QCOMPARE(notes.size(), size_t(1));
            QCOMPARE(notes[0].node, std::string("mm_3"));
            QCOMPARE(notes[0].text, std::string("first\n\nsecond"));
            QCOMPARE(ws.steps(1).size(), size_t(2));
            // version 3's changed column: not known for a step saved before it
            QCOMPARE(ws.steps(1)[1].removed, int64_t(4));
            QCOMPARE(ws.steps(1)[1].changed, int64_t(-1));
            QCOMPARE(ws.viewState().stepIndex, 1);
            QCOMPARE(ws.viewState().selectedNode, std::string("relu"));
            // what version 2 adds works on the migrated file
            ws.setNote(1, "", "relu", "new");
            ws.removeSource(1);  // the cascade holds on the rebuilt bookmarks table
            QVERIFY(ws.bookmarks(1).empty());
            QCOMPARE(ws.integrityCheck(), std::string("ok"));
        }
        QCOMPARE(rawQuery(file, "SELECT value FROM meta WHERE key = 'format_version'"),
                 std::to_string(Workspace::currentFormatVersion()));
        QCOMPARE(Workspace::open(file).openedFormatVersion(), Workspace::currentFormatVersion());
    }

    void newerVersionIsRefusedUntouched()
    {
        QTemporaryDir dir;
        const fs::path file = fs::path(dir.path().toStdString()) / "new.fxlens";
        Workspace::create(file).savePipeline("p", "dce");
        const int newer = Workspace::currentFormatVersion() + 1;
        rawExec(file,
                "UPDATE meta SET value = '" + std::to_string(newer)
                    + "' WHERE key = 'format_version'; UPDATE meta SET value = '9.0.0' WHERE key = 'written_by';");
        const std::string before = readBytes(file);
        std::string msg;
        QVERIFY(refusal([&] { Workspace::open(file); }, msg) == WorkspaceError::Kind::NewerVersion);
        const std::string expected = "written by fxlens workspace format " + std::to_string(newer)
            + " (fxlens 9.0.0), this fxlens reads up to " + std::to_string(Workspace::currentFormatVersion())
            + ": update fxlens";
        QVERIFY2(msg.find(expected) != std::string::npos, msg.c_str());
        QVERIFY2(msg.find(file.string()) != std::string::npos, msg.c_str());
        QCOMPARE(readBytes(file), before);
        // nor may create() replace it
        QVERIFY(refusal([&] { Workspace::create(file, Workspace::CreateMode::ReplaceWorkspace); }, msg)
                == WorkspaceError::Kind::Exists);
        QCOMPARE(readBytes(file), before);
    }
};

FXL_TEST_GUILESS_MAIN(TestWorkspace)
}  // namespace test_workspace
#include "test_workspace.moc"
