// The byte formatter every verb prints sizes with (core/util/format.hpp): the unit switch and
// rounding boundaries, exact multiples, the int64 extremes and negative deltas.
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/util/format.hpp"
#include "test_registry.hpp"

namespace test_formatting {

using namespace fxl;

namespace {
constexpr int64_t kKiB = int64_t{1} << 10;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kTiB = int64_t{1} << 40;
constexpr int64_t kPiB = int64_t{1} << 50;
constexpr int64_t kEiB = int64_t{1} << 60;
}  // namespace

class TestFormatting : public QObject
{
    Q_OBJECT

private slots:
    void byteSize_data()
    {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, int64_t bytes, const char* expected) {
            QTest::newRow(name) << qint64(bytes) << QString::fromLatin1(expected);
        };
        // bytes: exact below 1 KiB
        row("zero", 0, "0 B");
        row("one", 1, "1 B");
        row("999", 999, "999 B");
        row("1000", 1000, "1000 B");
        row("1023", 1023, "1023 B");
        // KiB: exact multiples without decimals, others with three significant digits
        row("1 KiB", kKiB, "1 KiB");
        row("1025", 1025, "1.00 KiB");
        row("1.5 KiB", 1536, "1.50 KiB");
        row("1.23 KiB", 1260, "1.23 KiB");
        row("10239 rounds to 10.0", 10239, "10.0 KiB");
        row("10 KiB", 10 * kKiB, "10 KiB");
        row("10.5 KiB", 10752, "10.5 KiB");
        row("102399 rounds to 100", 102399, "100 KiB");
        row("100 KiB", 100 * kKiB, "100 KiB");
        row("456 KiB", 456 * kKiB, "456 KiB");
        row("459.4 KiB", 470426, "459 KiB");
        row("999 KiB", 999 * kKiB, "999 KiB");
        // the unit switch: four integer digits never appear
        row("999.51 KiB rounds up: MiB", 1023500, "0.98 MiB");
        row("1023999", 1023999, "0.98 MiB");
        row("1000 KiB exactly", 1000 * kKiB, "0.98 MiB");
        row("1048575", kMiB - 1, "1.00 MiB");
        row("1 MiB", kMiB, "1 MiB");
        row("1 MiB + 1", kMiB + 1, "1.00 MiB");
        row("1.20 MiB", 1258291, "1.20 MiB");
        row("1.23 MiB", 1289748, "1.23 MiB");
        row("2.63 MiB", 2757754, "2.63 MiB");
        row("1 GiB - 1", kGiB - 1, "1.00 GiB");
        row("1 GiB", kGiB, "1 GiB");
        row("12.3 GiB", int64_t(12.3 * double(kGiB)), "12.3 GiB");
        row("1 TiB", kTiB, "1 TiB");
        row("1000 PiB", 1000 * kPiB, "0.98 EiB");
        row("1 EiB", kEiB, "1 EiB");
        row("INT64_MAX", std::numeric_limits<int64_t>::max(), "8.00 EiB");
        // negative values are deltas
        row("-1", -1, "-1 B");
        row("-1023", -1023, "-1023 B");
        row("-2 KiB", -2 * kKiB, "-2 KiB");
        row("-1536", -1536, "-1.50 KiB");
        row("-1023999", -1023999, "-0.98 MiB");
        row("-133 KiB", -136192, "-133 KiB");
        row("INT64_MIN", std::numeric_limits<int64_t>::min(), "-8 EiB");
        row("-INT64_MAX", -std::numeric_limits<int64_t>::max(), "-8.00 EiB");
    }

    void byteSize()
    {
        QFETCH(qint64, bytes);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(formatByteSize(bytes)), expected);
    }

    // Exact under 1 KiB; above, at most three significant digits and within about 0.5 % of the
    // count, over a sweep of every magnitude.
    void byteSizeSweep()
    {
        int checked = 0;
        for (int64_t base = 1024; base > 0 && base < std::numeric_limits<int64_t>::max() / 3; base = base * 3 / 2 + 7) {
            for (int64_t bytes : {base - 1, base, base + 1}) {
                const std::string text = formatByteSize(bytes);
                const size_t space = text.find(' ');
                QVERIFY2(space != std::string::npos, text.c_str());
                const std::string number = text.substr(0, space);
                if (text.substr(space + 1) == "B") {  // under 1 KiB: exact
                    QCOMPARE(number, std::to_string(bytes));
                    continue;
                }
                size_t digits = 0;
                for (char c : number) digits += (c >= '0' && c <= '9') ? 1 : 0;
                const bool leadingZero = number.rfind("0.", 0) == 0;
                QVERIFY2(digits - (leadingZero ? 1 : 0) <= 3, text.c_str());
                const std::string unit = text.substr(space + 1);
                static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
                double scale = 0;
                for (int u = 0; u < 6; ++u)
                    if (unit == units[u]) scale = double(int64_t{1} << (10 * (u + 1)));
                QVERIFY2(scale > 0, text.c_str());
                const double shown = std::stod(number) * scale;
                QVERIFY2(std::abs(shown - double(bytes)) <= 0.006 * double(bytes) + 1, text.c_str());
                ++checked;
            }
        }
        QVERIFY(checked > 100);
    }
    void duration_data()
    {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << 0.0 << "0 s";
        QTest::newRow("negative") << -1.0 << "0 s";
        QTest::newRow("ns") << 850e-9 << "850 ns";
        QTest::newRow("us") << 12.3e-6 << QString::fromUtf8("12.3 \u00b5s");
        QTest::newRow("ms") << 4.56e-3 << "4.56 ms";
        QTest::newRow("ms rounding up to 1 s") << 0.9996 << "1.00 s";
        QTest::newRow("s") << 1.2 << "1.20 s";
        QTest::newRow("tens of s") << 75.0 << "75.0 s";
        QTest::newRow("minutes") << 150.0 << "2.5 min";
    }

    void duration()
    {
        QFETCH(double, seconds);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(formatDuration(seconds)), expected);
    }

    void byteChange_data()
    {
        QTest::addColumn<qint64>("before");
        QTest::addColumn<qint64>("after");
        QTest::addColumn<QString>("expected");
        QTest::newRow("growth") << qint64(12288) << qint64(13824) << "+1.50 KiB (+12.5%)";
        QTest::newRow("shrink") << qint64(1 << 20) << qint64(1 << 19) << "-512 KiB (-50.0%)";
        QTest::newRow("same") << qint64(100) << qint64(100) << "0 B (0%)";
        QTest::newRow("from nothing") << qint64(0) << qint64(1024) << "+1 KiB (new)";
    }

    void byteChange()
    {
        QFETCH(qint64, before);
        QFETCH(qint64, after);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(formatByteChange(before, after)), expected);
    }
};

FXL_TEST_APPLESS_MAIN(TestFormatting)
}  // namespace test_formatting
#include "test_formatting.moc"
