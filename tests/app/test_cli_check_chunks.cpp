// fxlens check CHUNKED ORIGINAL --against eager-chunking --chunks SPEC through the built binary.
// gpt2_tiny checked against eager chunking of itself (regions=blocks.*): the unchunked graph
// computes the blocks' parameter gradients in one reduction, the reference sums two chunk
// values, so those outputs differ from the reference by reduction order (exit 1, labelled so);
// the loss and the embedding gradients are bitwise. --json carries the same rows and the peaks;
// a note the chunk pass left on an output's node (meta.chunk.formula) is shown for a differing
// output;
// a bad --chunks, --chunks without --against eager-chunking and an unknown --against exit 2.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_check_chunks {

using namespace clitest;

namespace {

QString gpt2() { return QString::fromStdString(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py").string()); }

// The text row of an output: "  out_K (node): how" and the line after it.
QString rowOf(const QString& out, const QString& name)
{
    const qsizetype at = out.indexOf(QStringLiteral("\n  ") + name + QStringLiteral(" ("));
    if (at < 0) return {};
    qsizetype end = out.indexOf(QLatin1Char('\n'), at + 1);
    end = out.indexOf(QLatin1Char('\n'), end + 1);
    return out.mid(at + 1, end - at - 1);
}

}  // namespace

class TestCliCheckChunks : public QObject
{
    Q_OBJECT

private slots:
    void selfAgainstEagerChunking()
    {
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py"));
        const QStringList args{QStringLiteral("check"),
                               gpt2(),
                               gpt2(),
                               QStringLiteral("--against"),
                               QStringLiteral("eager-chunking"),
                               QStringLiteral("--chunks"),
                               QStringLiteral("regions=blocks.*")};
        const Run text = fxlens(args);
        FXL_EXPECT_EXIT(text, 1);
        const QString out = QString::fromUtf8(text.out);
        // out_0: the loss (outside the blocks); out_1, out_2: wte, wpe grads; out_3: blocks.0.ln_1.weight
        const QString loss = rowOf(out, QStringLiteral("out_0"));
        QVERIFY2(loss.contains(QStringLiteral("outside every region")), qPrintable(out));
        QVERIFY2(loss.contains(QStringLiteral("vs eager chunking: bitwise; vs unchunked: bitwise")), qPrintable(loss));
        QVERIFY2(!loss.contains(QStringLiteral("reduction order")), qPrintable(loss));
        for (const char* emb : {"out_1", "out_2"}) {
            const QString r = rowOf(out, QString::fromLatin1(emb));
            QVERIFY2(r.contains(QStringLiteral("vs eager chunking: bitwise; vs unchunked: bitwise")), qPrintable(r));
        }
        int reductionOrder = 0;
        for (int k = 3; k < 27; ++k) {
            const QString r = rowOf(out, QStringLiteral("out_%1").arg(k));
            QVERIFY2(r.contains(QStringLiteral("sum of 2 chunk values in chunk order")), qPrintable(r));
            reductionOrder += r.contains(QStringLiteral("[reduction order, max ulp "));
        }
        QCOMPARE(reductionOrder, 24);  // every parameter gradient of the two blocks
        QVERIFY2(out.contains(QStringLiteral("region blocks.0\n")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("region blocks.1\n")), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("\npeak estimated: chunked [1-9][0-9]* bytes, original "
                                                                "[1-9][0-9]* bytes, ratio 1\\.000\n"))),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("\npeak measured: chunked [1-9][0-9]* bytes, original "
                                                                "[1-9][0-9]* bytes, ratio 1\\.000\n"))),
                 qPrintable(out));
        QVERIFY2(out.contains(
                     QStringLiteral("result: %1 output(s) not bitwise equal to eager chunking").arg(reductionOrder)),
                 qPrintable(out));

        if (fxltest::kSanitizedBuild) return;
        QStringList jargs = args;
        jargs << QStringLiteral("--json");
        const Run js = fxlens(jargs);
        FXL_EXPECT_EXIT(js, 1);
        const QJsonObject doc = parseJsonDoc(js.out);
        QCOMPARE(doc.value(QStringLiteral("against")).toString(), QStringLiteral("eager-chunking"));
        QCOMPARE(doc.value(QStringLiteral("chunks")).toString(),
                 QStringLiteral("regions=blocks.*,dim=batch,chunks=2,split=tensor_split"));
        QCOMPARE(doc.value(QStringLiteral("result")).toString(), QStringLiteral("different"));
        QCOMPARE(doc.value(QStringLiteral("differing_from_reference")).toInt(), reductionOrder);
        const QJsonArray rows = doc.value(QStringLiteral("outputs")).toArray();
        QCOMPARE(rows.size(), 29);
        QCOMPARE(rows[0].toObject().value(QStringLiteral("combine")).toString(), QStringLiteral("outside"));
        QVERIFY(rows[0]
                    .toObject()
                    .value(QStringLiteral("vs_reference"))
                    .toObject()
                    .value(QStringLiteral("bitwise_equal"))
                    .toBool());
        int labelled = 0;
        for (const auto& v : rows)
            labelled += v.toObject().value(QStringLiteral("label")).toString() == QStringLiteral("reduction order");
        QCOMPARE(labelled, reductionOrder);
        const QJsonObject peaks = doc.value(QStringLiteral("peaks")).toObject();
        QVERIFY(peaks.value(QStringLiteral("chunked")).toObject().value(QStringLiteral("measured")).toDouble() > 0);
        QCOMPARE(peaks.value(QStringLiteral("ratio_estimated")).toDouble(), 1.0);
        const QJsonObject ref = doc.value(QStringLiteral("reference")).toObject();
        QCOMPARE(ref.value(QStringLiteral("axis_length")).toInt(), 4);
        QCOMPARE(ref.value(QStringLiteral("regions")).toArray().size(), 2);
    }

    // An output that differs from the reference shows the chunk pass's note on its node
    // (meta.chunk.formula): gpt2_tiny as fxlens JSON with a note on getitem_36 (out_3).
    void formulaNote()
    {
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py"));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString plain = dir.filePath(QStringLiteral("g.json")),
                      noted = dir.filePath(QStringLiteral("noted.json"));
        FXL_EXPECT_EXIT(fxlens({QStringLiteral("convert"), gpt2(), QStringLiteral("--to"), QStringLiteral("json"),
                                QStringLiteral("-o"), plain}),
                        0);
        QFile in(plain);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject doc = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject graph = doc.value(QStringLiteral("graph")).toObject();
        QJsonArray nodes = graph.value(QStringLiteral("nodes")).toArray();
        const QString formula = QStringLiteral("summed after the cast: eager chunking sums before it");
        bool found = false;
        for (qsizetype i = 0; i < nodes.size(); ++i) {
            QJsonObject n = nodes[i].toObject();
            if (n.value(QStringLiteral("name")).toString() != QStringLiteral("getitem_36")) continue;
            QJsonObject meta = n.value(QStringLiteral("meta")).toObject();
            meta[QStringLiteral("chunk")] = QJsonObject{{QStringLiteral("pass"), QStringLiteral("chunk_region")},
                                                        {QStringLiteral("role"), QStringLiteral("materialization")},
                                                        {QStringLiteral("combine"), QStringLiteral("sum")},
                                                        {QStringLiteral("formula"), formula}};
            n[QStringLiteral("meta")] = meta;
            nodes[i] = n;
            found = true;
        }
        QVERIFY(found);
        graph[QStringLiteral("nodes")] = nodes;
        doc[QStringLiteral("graph")] = graph;
        QFile out(noted);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(doc).toJson());
        out.close();
        const Run r = fxlens({QStringLiteral("check"), noted, gpt2(), QStringLiteral("--against"),
                              QStringLiteral("eager-chunking"), QStringLiteral("--chunks"),
                              QStringLiteral("regions=blocks.*"), QStringLiteral("--json")});
        FXL_EXPECT_EXIT(r, 1);
        const QJsonArray rows = parseJsonDoc(r.out).value(QStringLiteral("outputs")).toArray();
        QCOMPARE(rows.size(), 29);
        QCOMPARE(rows[3].toObject().value(QStringLiteral("node")).toString(), QStringLiteral("getitem_36"));
        QCOMPARE(rows[3].toObject().value(QStringLiteral("why")).toString(), formula);
        QVERIFY(!rows[4].toObject().contains(QStringLiteral("why")));  // differs too, but carries no note
        QVERIFY(!rows[0].toObject().contains(QStringLiteral("why")));  // bitwise: no why
    }

    // --against original is the plain check (the default).
    void againstOriginal()
    {
        const QString g = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const Run r = fxlens({QStringLiteral("check"), g, g, QStringLiteral("--against"), QStringLiteral("original")});
        FXL_EXPECT_EXIT(r, 0);
        QVERIFY2(QString::fromUtf8(r.out).endsWith(QStringLiteral("result: bitwise equal\n")), qPrintable(describe(r)));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("message");
        QTest::newRow("bad --chunks item")
            << QStringList{QStringLiteral("--against"), QStringLiteral("eager-chunking"), QStringLiteral("--chunks"),
                           QStringLiteral("regions=blocks.*,dim=depth")}
            << QStringLiteral("column 18");
        QTest::newRow("--chunks alone") << QStringList{QStringLiteral("--chunks"), QStringLiteral("chunks=2")}
                                        << QStringLiteral("--chunks needs --against eager-chunking");
        QTest::newRow("unknown --against")
            << QStringList{QStringLiteral("--against"), QStringLiteral("pytorch")}
            << QStringLiteral("--against expects original or eager-chunking, got 'pytorch'");
        QTest::newRow("eager-chunking without --chunks")
            << QStringList{QStringLiteral("--against"), QStringLiteral("eager-chunking")}
            << QStringLiteral("--against eager-chunking needs --chunks SPEC");
    }
    void usageErrors()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, message);
        const QString g = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const Run r = fxlens(QStringList{QStringLiteral("check"), g, g} + extra);
        FXL_EXPECT_EXIT(r, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), qPrintable(describe(r)));
    }
};

FXL_TEST_GUILESS_MAIN(TestCliCheckChunks)
}  // namespace test_cli_check_chunks
#include "test_cli_check_chunks.moc"
