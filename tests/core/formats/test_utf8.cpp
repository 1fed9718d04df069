// The UTF-8 check the readers share (core/formats/utf8.hpp): the offset of the first broken
// sequence, with NUL allowed or not.
#include <QtTest>

#include <string>

#include "core/formats/utf8.hpp"
#include "test_registry.hpp"

namespace test_utf8 {

using namespace fxl;

namespace {

constexpr qint64 kValid = -1;

}  // namespace

class TestUtf8 : public QObject
{
    Q_OBJECT

private slots:
    void firstInvalid_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("nulInvalid");
        QTest::addColumn<qint64>("expected");  // kValid when all is valid
        QTest::newRow("empty") << QByteArray() << false << kValid;
        QTest::newRow("ascii") << QByteArray("def forward(self, x):") << false << kValid;
        QTest::newRow("long ascii (fast path)") << QByteArray(40, 'a') << true << kValid;
        QTest::newRow("two bytes") << QByteArray("caf\xC3\xA9") << false << kValid;
        QTest::newRow("three bytes") << QByteArray("\xE2\x82\xAC euro") << false << kValid;
        QTest::newRow("four bytes") << QByteArray("\xF0\x9F\x98\x80") << false << kValid;
        QTest::newRow("nul allowed") << QByteArray("ab\0cd", 5) << false << kValid;
        QTest::newRow("nul invalid") << QByteArray("ab\0cd", 5) << true << qint64(2);
        QTest::newRow("nul after 8 ascii") << QByteArray("abcdefgh\0", 9) << true << qint64(8);
        QTest::newRow("lone continuation") << QByteArray("ab\x80") << false << qint64(2);
        QTest::newRow("cut short") << QByteArray("abc\xE2\x82") << false << qint64(3);
        QTest::newRow("bad continuation") << QByteArray("a\xE2(\xAC") << false << qint64(1);
        QTest::newRow("overlong two") << QByteArray("a\xC0\xAF") << false << qint64(1);
        QTest::newRow("overlong three") << QByteArray("\xE0\x80\xAF") << false << qint64(0);
        QTest::newRow("surrogate") << QByteArray("xy\xED\xA0\x80") << false << qint64(2);
        QTest::newRow("beyond U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << false << qint64(0);
        QTest::newRow("invalid lead byte") << QByteArray("abcdefghij\xFF") << false << qint64(10);
    }
    void firstInvalid()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, nulInvalid);
        QFETCH(qint64, expected);
        const size_t bad = firstInvalidUtf8(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())),
                                            nulInvalid ? NulByte::Invalid : NulByte::Allowed);
        QCOMPARE(bad == std::string_view::npos ? kValid : static_cast<qint64>(bad), expected);
    }
};

FXL_TEST_APPLESS_MAIN(TestUtf8)
}  // namespace test_utf8
#include "test_utf8.moc"
