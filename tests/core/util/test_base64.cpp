// Base64 for binary data in JSON (core/util/base64): the RFC 4648 test vectors both ways, and
// every way a text can fail to be base64, with the offset of the bad character.
#include <QtTest>

#include <string>

#include "core/util/base64.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_base64 {

using namespace fxl;

class TestBase64 : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<std::string>("text");
        // RFC 4648, section 10
        QTest::newRow("empty") << std::string() << std::string();
        QTest::newRow("f") << std::string("f") << std::string("Zg==");
        QTest::newRow("fo") << std::string("fo") << std::string("Zm8=");
        QTest::newRow("foo") << std::string("foo") << std::string("Zm9v");
        QTest::newRow("foob") << std::string("foob") << std::string("Zm9vYg==");
        QTest::newRow("fooba") << std::string("fooba") << std::string("Zm9vYmE=");
        QTest::newRow("foobar") << std::string("foobar") << std::string("Zm9vYmFy");
        // every byte value, and the last two letters of the alphabet
        std::string all;
        for (int i = 0; i < 256; ++i) all += char(i);
        QTest::newRow("all bytes") << all << std::string();
        QTest::newRow("+ and /") << std::string("\xfb\xff\xbf", 3) << std::string("+/+/");
    }
    void roundTrip()
    {
        QFETCH(std::string, bytes);
        QFETCH(std::string, text);
        const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
        const std::string encoded = encodeBase64(data, bytes.size());
        if (!text.empty() || bytes.empty()) QCOMPARE(encoded, text);
        QCOMPARE(encoded.size(), (bytes.size() + 2) / 3 * 4);
        size_t bad = 12345;
        const auto decoded = decodeBase64(encoded, bad);
        QVERIFY(decoded.has_value());
        QCOMPARE(std::string(decoded->begin(), decoded->end()), bytes);
        QCOMPARE(bad, size_t(12345));  // untouched on success
    }

    void invalid_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<int>("offset");
        QTest::newRow("length not a multiple of 4") << std::string("Zm9vY") << 4;
        QTest::newRow("character outside the alphabet") << std::string("Zm9v*mFy") << 4;
        QTest::newRow("URL-safe alphabet") << std::string("Zm9v-_Fy") << 4;
        QTest::newRow("padding in the middle") << std::string("Zg==Zm9v") << 2;
        QTest::newRow("three padding characters") << std::string("Z===") << 1;
        QTest::newRow("spare bits set, one =") << std::string("Zm9=") << 2;
        QTest::newRow("spare bits set, two =") << std::string("Zh==") << 1;
        QTest::newRow("whitespace") << std::string("Zm9v YmF") << 4;
        QTest::newRow("NUL byte") << std::string("Zm\0v", 4) << 2;
    }
    void invalid()
    {
        QFETCH(std::string, text);
        QFETCH(int, offset);
        size_t bad = 0;
        QVERIFY(!decodeBase64(text, bad).has_value());
        QCOMPARE(bad, size_t(offset));
    }
};

FXL_TEST_APPLESS_MAIN(TestBase64)
}  // namespace test_base64
#include "test_base64.moc"
