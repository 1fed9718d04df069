// The content hash of core/util/content_hash: FNV-1a 64's published test vectors, the same value
// however the bytes are fed, and the fingerprint of a file and of a directory, which changes
// when a byte, a name or a file changes.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/util/content_hash.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_content_hash {

using namespace fxl;
namespace fs = std::filesystem;

namespace {
void writeFile(const fs::path& p, const std::string& bytes)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
}
}  // namespace

class TestContentHash : public QObject
{
    Q_OBJECT

private slots:
    void vectors_data()
    {
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<std::string>("hex");
        // the FNV-1a 64 vectors of the reference test suite (draft-eastlake-fnv)
        QTest::newRow("empty") << std::string() << std::string("cbf29ce484222325");
        QTest::newRow("a") << std::string("a") << std::string("af63dc4c8601ec8c");
        QTest::newRow("foobar") << std::string("foobar") << std::string("85944171f73967e8");
    }
    void vectors()
    {
        QFETCH(std::string, bytes);
        QFETCH(std::string, hex);
        QCOMPARE(formatHash(hashBytes(bytes)), hex);
    }

    void piecesGiveTheSameValue()
    {
        std::string bytes;
        for (int i = 0; i < 1000; ++i) bytes += char(i * 7);
        ContentHash pieces;
        for (size_t at = 0; at < bytes.size(); at += 13) pieces.update(std::string_view(bytes).substr(at, 13));
        QCOMPARE(pieces.value(), hashBytes(bytes));
        QVERIFY(hashBytes(bytes) != hashBytes(bytes.substr(1)));
    }

    void fileFingerprint()
    {
        QTemporaryDir dir;
        const fs::path file = fs::path(dir.path().toStdString()) / "g.py";
        writeFile(file, "def forward(self):\n");
        const PathFingerprint a = fingerprintPath(file);
        QCOMPARE(a.hash, hashBytes("def forward(self):\n"));
        QCOMPARE(a.size, int64_t(19));
        QVERIFY(a.mtimeNs > 0);
        writeFile(file, "def forward(self):\r");  // same size, one byte differs
        const PathFingerprint b = fingerprintPath(file);
        QCOMPARE(b.size, a.size);
        QVERIFY(b.hash != a.hash);
    }

    void directoryFingerprint()
    {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "logs";
        writeFile(root / "rank0.log", "zero");
        writeFile(root / "sub" / "rank1.log", "one");
        const PathFingerprint a = fingerprintPath(root);
        QCOMPARE(a.size, int64_t(7));
        QCOMPARE(fingerprintPath(root).hash, a.hash);  // stable
        // a renamed file changes the hash even though every byte is the same
        fs::rename(root / "sub" / "rank1.log", root / "sub" / "rank2.log");
        const PathFingerprint b = fingerprintPath(root);
        QCOMPARE(b.size, a.size);
        QVERIFY(b.hash != a.hash);
        // a new empty file too
        writeFile(root / "empty.log", "");
        QVERIFY(fingerprintPath(root).hash != b.hash);
    }

    void missingPathThrows()
    {
        QTemporaryDir dir;
        const fs::path missing = fs::path(dir.path().toStdString()) / "nope.py";
        try {
            (void)fingerprintPath(missing);
            QFAIL("no exception");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("nope.py") != std::string::npos, e.what());
        }
    }
};

FXL_TEST_GUILESS_MAIN(TestContentHash)
}  // namespace test_content_hash
#include "test_content_hash.moc"
