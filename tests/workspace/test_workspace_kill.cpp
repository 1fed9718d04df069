// A writer killed with SIGKILL in the middle of writing loses nothing it committed: this test
// runs itself as a child process (`test_workspace_kill --writer FILE FIRST [STALL]`) that commits
// numbered rows in a tight loop (a bookmark and a 1 MiB layout per transaction) and prints each
// number once its commit returned. The parent kills it after several commits, then opens the
// file: every reported row is there, at most one more (the commit that returned just before the
// kill, unprinted), each row's layout is whole, the file passes SQLite's integrity_check, and it
// takes further writes.
//
// A kill at a random moment mostly lands in an fsync, after the commit's pages were handed to the
// kernel, which keeps them. So one row also stops the writer for certain halfway through writing
// the database file: with STALL, a VFS shim in the child (stallingOpen) holds commit STALL's
// 100th page write to the main file, says "stalled", and waits there for the kill. Without a
// rollback journal that leaves half a commit in the file, which the checks below find.
#include <sqlite3.h>

#include <unistd.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_registry.hpp"
#include "workspace/workspace.hpp"

namespace test_workspace_kill {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

// ---- the child's stalling VFS: SQLite's default VFS, with writes to the main database file counted

sqlite3_vfs* g_realVfs = nullptr;
sqlite3_vfs g_stallingVfs;
const sqlite3_io_methods* g_realMethods = nullptr;
sqlite3_io_methods g_stallingMethods;
int g_row = 0;  // the row being committed
int g_stallRow = -1;
int g_writesInStallRow = 0;

int stallingWrite(sqlite3_file* f, const void* data, int size, sqlite3_int64 offset)
{
    if (g_row == g_stallRow && ++g_writesInStallRow == 100) {
        std::printf("stalled\n");
        std::fflush(stdout);
        for (;;) ::pause();  // until the parent's SIGKILL
    }
    return g_realMethods->xWrite(f, data, size, offset);
}

// Opens as the default VFS does, then routes the main database file's writes through
// stallingWrite (the file object is the default VFS's own, only its method table is swapped).
int stallingOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* outFlags)
{
    const int rc = g_realVfs->xOpen(g_realVfs, name, file, flags, outFlags);
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_MAIN_DB) && file->pMethods) {
        g_realMethods = file->pMethods;
        g_stallingMethods = *file->pMethods;
        g_stallingMethods.xWrite = stallingWrite;
        file->pMethods = &g_stallingMethods;
    }
    return rc;
}

void installStallingVfs()
{
    g_realVfs = sqlite3_vfs_find(nullptr);
    g_stallingVfs = *g_realVfs;
    g_stallingVfs.zName = "fxlens-stalling";
    g_stallingVfs.pNext = nullptr;
    g_stallingVfs.xOpen = stallingOpen;
    sqlite3_vfs_register(&g_stallingVfs, 1);
}

std::string layoutBytes(int row) { return std::string(1024 * 1024, char('a' + row % 26)) + std::to_string(row); }

// The child: commits rows first, first+1, ... until it is killed (or 100000 rows).
int runWriter(const char* file, int first, int stallRow)
{
    if (stallRow > 0) {
        g_stallRow = stallRow;
        installStallingVfs();
    }
    try {
        Workspace ws = Workspace::open(file);
        const int64_t source = ws.sources().at(0).id;
        for (int row = first; row < first + 100000; ++row) {
            g_row = row;
            Transaction t = ws.transaction();
            ws.addBookmark(source, "", "node_" + std::to_string(row), std::to_string(row));
            ws.putLayout("last", layoutBytes(row));
            t.commit();
            std::printf("%d\n", row);
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "writer: %s\n", e.what());
        return 1;
    }
    return 0;
}

std::string rawIntegrityCheck(const fs::path& file)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW) out += reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

}  // namespace

class TestWorkspaceKill : public QObject
{
    Q_OBJECT

    // Runs the writer from row `first` until it reported `commits` rows, kills it, and returns
    // the last row it reported (0 on failure, after QFAIL).
    // With stall, the writer stops halfway through writing commit first + commits.
    int writeAndKill(const fs::path& file, int first, int commits, bool stall)
    {
        QProcess child;
        child.setProcessChannelMode(QProcess::SeparateChannels);
        // this test's executable holds the other tests of its label too: the test's name first
        child.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("test_workspace_kill"), "--writer", QString::fromStdString(file.string()),
                     QString::number(first), QString::number(stall ? first + commits : 0)});
        if (!child.waitForStarted(10000)) return 0;
        QByteArray out;
        QElapsedTimer timer;
        timer.start();
        const auto done = [&] { return stall ? out.contains("stalled\n") : out.count('\n') >= commits; };
        while (!done() && child.state() == QProcess::Running && timer.elapsed() < 60000) {
            child.waitForReadyRead(1000);
            out += child.readAllStandardOutput();
        }
        child.kill();  // SIGKILL
        child.waitForFinished(10000);
        out += child.readAllStandardOutput();
        if (!done()) {
            qWarning("writer: %s", child.readAllStandardError().constData());
            return 0;
        }
        if (child.exitStatus() != QProcess::CrashExit) return 0;  // killed, not finished
        // the last complete line with a number is the last commit reported
        out.replace("stalled\n", "");
        const QList<QByteArray> lines = out.left(out.lastIndexOf('\n')).split('\n');
        return lines.last().toInt();
    }

private slots:
    void killedWriterLosesNothingCommitted_data()
    {
        QTest::addColumn<int>("commits");
        QTest::addColumn<bool>("stall");
        QTest::newRow("after 3 commits") << 3 << false;
        QTest::newRow("after 20 commits") << 20 << false;
        QTest::newRow("halfway through writing commit 6") << 5 << true;
    }
    void killedWriterLosesNothingCommitted()
    {
        QFETCH(int, commits);
        QFETCH(bool, stall);
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        std::ofstream(root / "g.py") << "graph";
        const fs::path file = root / "w.fxlens";
        int64_t source = 0;
        {
            Workspace ws = Workspace::create(file);
            source = ws.addSource(root / "g.py");
        }
        int next = 1;
        // killed twice: the file a kill left behind must take the next writer too
        for (int round = 0; round < 2; ++round) {
            const int reported = writeAndKill(file, next, commits, stall);
            QVERIFY2(reported >= next + commits - 1, "the writer did not report its commits");

            // open() rolls back the hot journal of the killed commit
            std::optional<Workspace> opened;
            try {
                opened.emplace(Workspace::open(file));
            } catch (const WorkspaceError& e) {
                QFAIL(e.what());
            }
            Workspace& ws = *opened;
            const std::vector<BookmarkRecord> rows = ws.bookmarks(source);
            // rows 1..n, n = the last reported or the one after (committed, killed before printing)
            const int n = int(rows.size());
            QVERIFY2(n == reported || (!stall && n == reported + 1),
                     qPrintable(QString("%1 rows, %2 reported").arg(n).arg(reported)));
            for (int i = 0; i < n; ++i) QCOMPARE(rows[size_t(i)].label, std::to_string(i + 1));
            QCOMPARE(ws.layout("last"), std::optional<std::string>(layoutBytes(n)));  // the transaction whole
            QCOMPARE(ws.integrityCheck(), std::string("ok"));
            next = n + 1;
        }
        QCOMPARE(rawIntegrityCheck(file), std::string("ok"));
        // a journal a kill left that was not yet hot (empty) stays until the next commit, which ends it
        Workspace::open(file).setNote(source, "", "node_1", "still writable");
        QVERIFY(!fs::exists(file.string() + "-journal"));
    }
};

static int runWorkspaceKill(int argc, char** argv)
{
    if (argc == 5 && std::string(argv[1]) == "--writer")
        return runWriter(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
    QCoreApplication app(argc, argv);
    TestWorkspaceKill test;
    return QTest::qExec(&test, argc, argv);
}
FXL_TEST_CUSTOM_MAIN(runWorkspaceKill)
}  // namespace test_workspace_kill

#include "test_workspace_kill.moc"
