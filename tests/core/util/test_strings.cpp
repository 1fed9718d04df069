// core/util/strings: trimming, and the edit distance and nearest spelling behind every "did you
// mean" hint (pass options, operator names).
#include <QtTest>

#include <string>
#include <vector>

#include "core/util/strings.hpp"
#include "test_registry.hpp"

namespace test_strings {

using namespace fxl;

class TestStrings : public QObject
{
    Q_OBJECT

private slots:
    void trimming()
    {
        QCOMPARE(std::string(trim(" \t mm \r\n")), std::string("mm"));
        QCOMPARE(std::string(trim("")), std::string());
        QCOMPARE(std::string(trimLeft("  a b ")), std::string("a b "));
        QCOMPARE(std::string(trimRight("  a b ")), std::string("  a b"));
    }

    void editDistance_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("distance");
        QTest::newRow("equal") << "aten.mm.default"
                               << "aten.mm.default" << 0;
        QTest::newRow("empty") << ""
                               << "addmm" << 5;
        QTest::newRow("both empty") << ""
                                    << "" << 0;
        QTest::newRow("swap = 2 substitutions") << "aten.mm.defualt"
                                                << "aten.mm.default" << 2;
        QTest::newRow("one insertion") << "addmmm"
                                       << "addmm" << 1;
        QTest::newRow("one deletion") << "adm"
                                      << "addm" << 1;
        QTest::newRow("one substitution") << "bmm"
                                          << "mmm" << 1;
        QTest::newRow("kitten/sitting") << "kitten"
                                        << "sitting" << 3;
        QTest::newRow("disjoint") << "abc"
                                  << "xyz" << 3;
    }
    void editDistance()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, distance);
        QCOMPARE(fxl::editDistance(a.toStdString(), b.toStdString()), static_cast<size_t>(distance));
        QCOMPARE(fxl::editDistance(b.toStdString(), a.toStdString()), static_cast<size_t>(distance));  // symmetric
    }

    void nearestSpelling_data()
    {
        QTest::addColumn<QString>("word");
        QTest::addColumn<QStringList>("candidates");
        QTest::addColumn<QString>("nearest");
        const QStringList ops{"aten.mm.default", "aten.addmm.default", "aten.bmm.default", "aten.mm.out"};
        QTest::newRow("transposed letters") << "aten.mm.defualt" << ops << "aten.mm.default";
        QTest::newRow("exact") << "aten.bmm.default" << ops << "aten.bmm.default";
        QTest::newRow("first of equals") << "aten.cmm.default" << ops << "aten.mm.default";
        QTest::newRow("too far: no hint") << "softmax" << ops << "";
        QTest::newRow("short word, 2 edits allowed") << "adm" << QStringList{"addmm", "mm"} << "addmm";
        QTest::newRow("no candidates") << "mm" << QStringList{} << "";
    }
    void nearestSpelling()
    {
        QFETCH(QString, word);
        QFETCH(QStringList, candidates);
        QFETCH(QString, nearest);
        std::vector<std::string> c;
        for (const QString& s : candidates) c.push_back(s.toStdString());
        QCOMPARE(QString::fromStdString(fxl::nearestSpelling(word.toStdString(), c)), nearest);
    }
};

FXL_TEST_GUILESS_MAIN(TestStrings)
}  // namespace test_strings
#include "test_strings.moc"
