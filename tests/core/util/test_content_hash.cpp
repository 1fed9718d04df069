// The content hash of core/util/content_hash: FNV-1a 64's published test vectors, the same value
// however the bytes are fed, and the fingerprint of a file and of a directory, which changes
// when a byte, a name or a file changes; and SHA-256 (core/util/sha256) on FIPS 180-4's examples.
#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/util/content_hash.hpp"
#include "core/util/sha256.hpp"
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

    void sha256Vectors_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("digest");
        QTest::newRow("empty") << QByteArray() << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        QTest::newRow("abc") << QByteArray("abc") << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                                  << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
        QTest::newRow("896 bits") << QByteArray("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklm"
                                                "nopqklmnopqrlmnopqrsmnopqrstnopqrstu")
                                  << "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
        QTest::newRow("a million a") << QByteArray(1000000, 'a')
                                     << "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
        QTest::newRow("55 bytes") << QByteArray(55, 'x') << QString::fromStdString(fxl::sha256Hex(std::string(55, 'x')));
    }
    void sha256Vectors()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, digest);
        QCOMPARE(QString::fromStdString(sha256Hex(bytes.constData(), static_cast<size_t>(bytes.size()))), digest);
        // fed in pieces of every size from 1 to 130: the same digest
        for (size_t piece : {size_t(1), size_t(7), size_t(63), size_t(64), size_t(65), size_t(130)}) {
            Sha256 h;
            for (qsizetype at = 0; at < bytes.size(); at += static_cast<qsizetype>(piece))
                h.update(bytes.constData() + at, std::min<size_t>(piece, static_cast<size_t>(bytes.size() - at)));
            QString hex;
            for (uint8_t b : h.finish()) hex += QStringLiteral("%1").arg(b, 2, 16, QLatin1Char('0'));
            QCOMPARE(hex, digest);
        }
        // and Qt's SHA-256 agrees
        QCOMPARE(QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()), digest);
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
