// fxlens check A B --localize end to end: the built binary, on each fixture of
// tests/data/localize against its original, names the changed node as the first divergence
// (text and --json) and exits 1; a graph against itself has none and exits 0; --localize with
// a B that is not one graph is a usage error.
#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_localize {

using namespace clitest;

namespace {

QString data(const char* relative) { return QString::fromStdString(fxltest::testDataPath(relative).string()); }

using clitest::describe;

}  // namespace

class TestCliLocalize : public QObject
{
    Q_OBJECT

private slots:
    void namesTheChangedNode_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("inputs");
        QTest::newRow("constant plus one ulp")
            << data("pytorch/moe_tiny.joint.code.py") << data("localize/moe_tiny.joint.add_1_plus_one_ulp.code.py")
            << QStringLiteral("add_1") << QStringLiteral("all equal");
        if (fxltest::kSanitizedBuild) return;  // the same code on other fixtures: the release build runs them
        QTest::newRow("sum reassociated")
            << data("pytorch/moe_tiny.joint.code.py") << data("localize/moe_tiny.joint.add_3_reassociated.code.py")
            << QStringLiteral("add_3") << QStringLiteral("some not compared");
        QTest::newRow("gelu tanh") << data("pytorch/mlp_gelu.joint.code.py")
                                   << data("localize/mlp_gelu.joint.gelu_tanh.code.py") << QStringLiteral("gelu")
                                   << QStringLiteral("all equal");
    }
    void namesTheChangedNode()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(QString, node);
        QFETCH(QString, inputs);
        const Run text = fxlens({QStringLiteral("check"), a, b, QStringLiteral("--localize")});
        QVERIFY2(!text.crashed && text.exitCode == 1, qPrintable(describe(text)));
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("\nresult: not bitwise equal (no --tolerance given)\n")), qPrintable(out));
        const qsizetype at = out.indexOf(QStringLiteral("\nlocalize:\n"));
        QVERIFY2(at > 0, qPrintable(out));
        QVERIFY2(out.indexOf(QStringLiteral("  first divergence: ") + node + QStringLiteral(" (B #"), at) > at,
                 qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("in A: ") + node + QStringLiteral(" (matched by name)")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("  inputs: ") + inputs), qPrintable(out));

        const Run js = fxlens({QStringLiteral("check"), a, b, QStringLiteral("--localize"), QStringLiteral("--json")});
        QVERIFY2(!js.crashed && js.exitCode == 1, qPrintable(describe(js)));
        const QJsonObject doc = parseJsonDoc(js.out);
        QCOMPARE(doc.value(QStringLiteral("result")).toString(), QStringLiteral("different"));
        const QJsonObject loc = doc.value(QStringLiteral("localize")).toObject();
        const QJsonObject first = loc.value(QStringLiteral("first_divergence")).toObject();
        QCOMPARE(first.value(QStringLiteral("b")).toString(), node);
        QCOMPARE(first.value(QStringLiteral("a")).toString(), node);
        QCOMPARE(first.value(QStringLiteral("inputs")).toString(), inputs);
        QVERIFY(first.value(QStringLiteral("max_ulp")).toDouble() > 0);
        QVERIFY(first.value(QStringLiteral("differing")).toDouble() > 0);
        const QJsonObject counts = loc.value(QStringLiteral("counts")).toObject();
        QVERIFY(counts.value(QStringLiteral("equal")).toInt() > 3);
        QVERIFY(counts.value(QStringLiteral("differing")).toInt() >= 1);
        // the nodes before it in B's order are all equal
        const int firstIndex = first.value(QStringLiteral("b_index")).toInt();
        for (const auto& v : loc.value(QStringLiteral("nodes")).toArray()) {
            const QJsonObject n = v.toObject();
            if (n.value(QStringLiteral("b_index")).toInt() < firstIndex)
                QVERIFY2(n.value(QStringLiteral("bitwise_equal")).toBool(),
                         qPrintable(n.value(QStringLiteral("b")).toString()));
        }
    }

    void identicalHasNoDivergence()
    {
        const QString g = data("pytorch/mlp_gelu.joint.code.py");
        const Run r = fxlens({QStringLiteral("check"), g, g, QStringLiteral("--localize")});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("localize:\n") && r.out.contains("first divergence: none"), qPrintable(describe(r)));
        QVERIFY2(r.out.contains(" bitwise equal, 0 differ\n"), qPrintable(describe(r)));
    }

    // --localize needs B to be one graph.
    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString joint = data("pytorch/mlp_gelu.joint.code.py");
        QTest::newRow("outputs file") << QStringList{QStringLiteral("check"), joint,
                                                     data("pytorch/mlp_gelu.inputs.safetensors"),
                                                     QStringLiteral("--localize")}
                                      << QStringLiteral("--localize needs B to be a graph");
        QTest::newRow("partition") << QStringList{QStringLiteral("check"),
                                                  joint,
                                                  data("pytorch/mlp_gelu.fw.default.code.py"),
                                                  QStringLiteral("--backward"),
                                                  data("pytorch/mlp_gelu.bw.default.code.py"),
                                                  QStringLiteral("--localize")}
                                   << QStringLiteral("--localize compares two single graphs");
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = fxlens(args);
        QVERIFY2(!r.crashed && r.exitCode == 2, qPrintable(describe(r)));
        QVERIFY2(QString::fromUtf8(r.err).contains(message), qPrintable(describe(r)));
        QVERIFY(r.out.isEmpty());
    }
};

FXL_TEST_GUILESS_MAIN(TestCliLocalize)
}  // namespace test_cli_localize
#include "test_cli_localize.moc"
