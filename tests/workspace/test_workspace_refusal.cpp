// Files that are not a usable workspace are refused with a message that says what they are, and
// are left as they were: a real workspace cut at several lengths (truncated), one with a page
// overwritten (damaged), and foreign files (empty, text, PNG, an fxlens JSON graph, SQLite
// databases of other applications, a directory, a missing path).
#include <sqlite3.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_registry.hpp"
#include "test_util.hpp"
#include "workspace/workspace.hpp"

namespace test_workspace_refusal {

using namespace fxl;
namespace fs = std::filesystem;

}  // namespace test_workspace_refusal
Q_DECLARE_METATYPE(fxl::WorkspaceError::Kind)
namespace test_workspace_refusal {

namespace {

void writeFile(const fs::path& p, const std::string& bytes)
{
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

std::string readBytes(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void rawExec(const fs::path& file, const std::string& sql)
{
    sqlite3* db = nullptr;
    sqlite3_open(file.c_str(), &db);
    char* err = nullptr;
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    if (err) qWarning("%s", err);
    sqlite3_free(err);
    sqlite3_close(db);
}

// The kind and message of open()'s refusal ("" and Io when it opened).
std::pair<WorkspaceError::Kind, std::string> openRefusal(const fs::path& file)
{
    try {
        Workspace::open(file);
    } catch (const WorkspaceError& e) {
        return {e.kind(), e.what()};
    }
    return {WorkspaceError::Kind::Io, ""};
}

}  // namespace

class TestWorkspaceRefusal : public QObject
{
    Q_OBJECT

    QTemporaryDir dir_;
    fs::path root_;
    std::string workspaceBytes_;  // a real workspace of several pages
    int64_t pageSize_ = 4096;

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        root_ = dir_.path().toStdString();
        writeFile(root_ / "g.py", "graph");
        const fs::path file = root_ / "real.fxlens";
        {
            Workspace ws = Workspace::create(file);
            const int64_t s = ws.addSource(root_ / "g.py");
            for (int i = 0; i < 40; ++i) ws.addBookmark(s, "", "node_" + std::to_string(i), std::string(100, 'b'));
            ws.putLayout("big", std::string(3 * pageSize_ + 17, 'x'));
            ws.setNote(s, "", "node_1", "a note");
        }
        workspaceBytes_ = readBytes(file);
        QVERIFY(workspaceBytes_.size() >= size_t(6 * pageSize_));
        QCOMPARE(workspaceBytes_.size() % size_t(pageSize_), size_t(0));
        Workspace::open(file);  // the uncut file opens
    }

    void truncated_data()
    {
        QTest::addColumn<int64_t>("length");  // < 0: from the end
        QTest::newRow("SQLite's magic alone") << int64_t(16);
        QTest::newRow("8 bytes of the magic") << int64_t(8);
        QTest::newRow("99 bytes") << int64_t(99);
        QTest::newRow("the 100-byte header") << int64_t(100);
        QTest::newRow("one page") << pageSize_;
        QTest::newRow("one page and a byte") << pageSize_ + 1;
        QTest::newRow("three pages") << 3 * pageSize_;
        QTest::newRow("all but one page") << -pageSize_;
        QTest::newRow("all but one byte") << int64_t(-1);
    }
    void truncated()
    {
        QFETCH(int64_t, length);
        const size_t n = length < 0 ? workspaceBytes_.size() - size_t(-length) : size_t(length);
        const fs::path file = root_ / ("cut" + std::to_string(n) + ".fxlens");
        const std::string cut = workspaceBytes_.substr(0, n);
        writeFile(file, cut);
        const auto [kind, message] = openRefusal(file);
        QVERIFY2(kind == WorkspaceError::Kind::Truncated, message.c_str());
        QVERIFY2(message.find("truncated workspace") != std::string::npos, message.c_str());
        QVERIFY2(message.find(file.string()) != std::string::npos, message.c_str());
        QCOMPARE(readBytes(file), cut);
    }

    void damaged()
    {
        // a b-tree page of the bookmarks overwritten: SQLite's check finds it
        std::string bytes = workspaceBytes_;
        for (int64_t i = 2 * pageSize_; i < 3 * pageSize_; ++i) bytes[size_t(i)] = char(0x5a);
        const fs::path file = root_ / "damaged.fxlens";
        writeFile(file, bytes);
        const auto [kind, message] = openRefusal(file);
        QVERIFY2(kind == WorkspaceError::Kind::Damaged, message.c_str());
        QCOMPARE(readBytes(file), bytes);
    }

    void foreign_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::string>("bytes");  // written as the file ("" with sql: made by SQLite)
        QTest::addColumn<std::string>("sql");
        QTest::addColumn<fxl::WorkspaceError::Kind>("kind");
        QTest::addColumn<std::string>("says");
        using K = WorkspaceError::Kind;
        QTest::newRow("empty file") << std::string("empty.fxlens") << std::string() << std::string() << K::NotWorkspace
                                    << std::string("an empty file");
        QTest::newRow("text file") << std::string("notes.fxlens") << std::string("my notes\nline two\n")
                                   << std::string() << K::NotWorkspace << std::string("a text file");
        QTest::newRow("PNG header") << std::string("image.fxlens")
                                    << std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10", 20) << std::string()
                                    << K::NotWorkspace << std::string("a PNG image");
        QTest::newRow("fxlens JSON graph")
            << std::string("graph.json") << std::string(R"({"format": "fxlens-graph", "version": 1})") << std::string()
            << K::NotWorkspace << std::string("a text file");
        QTest::newRow("binary") << std::string("bin.fxlens") << std::string("\0\1\2\3\4\5\6\7\x08\x09", 10)
                                << std::string() << K::NotWorkspace << std::string("00 01 02 03 04 05 06 07");
        QTest::newRow("SQLite of another application")
            << std::string("app.db") << std::string()
            << std::string("CREATE TABLE users(name TEXT); CREATE TABLE orders(id INTEGER);") << K::NotWorkspace
            << std::string("another application (tables orders, users)");
        QTest::newRow("SQLite without tables")
            << std::string("blank.db") << std::string() << std::string("PRAGMA user_version = 3;") << K::NotWorkspace
            << std::string("no tables");
        QTest::newRow("another meta table")
            << std::string("meta.db") << std::string() << std::string("CREATE TABLE meta(id INTEGER, blob BLOB);")
            << K::NotWorkspace << std::string("another kind of meta table");
        QTest::newRow("another format in meta")
            << std::string("format.db") << std::string()
            << std::string("CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES ('format', 'qtcreator');")
            << K::NotWorkspace << std::string("names format 'qtcreator'");
        QTest::newRow("format version not a number")
            << std::string("version.fxlens") << std::string()
            << std::string("CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES ('format', "
                           "'fxlens-workspace'), ('format_version', '2b');")
            << K::Damaged << std::string("format_version '2b'");
    }
    void foreign()
    {
        QFETCH(std::string, name);
        QFETCH(std::string, bytes);
        QFETCH(std::string, sql);
        QFETCH(fxl::WorkspaceError::Kind, kind);
        QFETCH(std::string, says);
        const fs::path file = root_ / name;
        if (sql.empty())
            writeFile(file, bytes);
        else
            rawExec(file, sql);
        const std::string before = readBytes(file);
        const auto [got, message] = openRefusal(file);
        QVERIFY2(got == kind, message.c_str());
        QVERIFY2(message.find(says) != std::string::npos, message.c_str());
        QVERIFY2(message.find(file.string()) != std::string::npos, message.c_str());
        QCOMPARE(readBytes(file), before);
        QVERIFY(!fs::exists(file.string() + "-journal"));
    }

    void notAFile()
    {
        fs::create_directories(root_ / "folder.fxlens");
        auto [kind, message] = openRefusal(root_ / "folder.fxlens");
        QVERIFY2(kind == WorkspaceError::Kind::NotWorkspace, message.c_str());
        QVERIFY2(message.find("directory") != std::string::npos, message.c_str());
        std::tie(kind, message) = openRefusal(root_ / "missing.fxlens");
        QVERIFY2(kind == WorkspaceError::Kind::NotFound, message.c_str());
        QVERIFY(!fs::exists(root_ / "missing.fxlens"));
    }
};

FXL_TEST_GUILESS_MAIN(TestWorkspaceRefusal)
}  // namespace test_workspace_refusal
#include "test_workspace_refusal.moc"
