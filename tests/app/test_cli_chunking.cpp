// Chunking as a user does it, through the binary (issue 13): run a chunk pass and write the
// steps (`passes run --out`), read the chunk spec the pass recorded in its step's changes file,
// then check the written step file against the original graph in eager-chunking mode
// (`check STEP ORIGINAL --against eager-chunking --chunks SPEC`: exit 0, every output bitwise
// equal to the reference), run it (`run`), and estimate its memory (`mem`): every file the pass
// wrote is usable on its own. Sequence chunking through attention is refused with the documented
// message and exit 1, and nothing is written for the failed step.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_util.hpp"

using namespace clitest;

class TestCliChunking : public QObject
{
    Q_OBJECT

private slots:
    void passThenCheck_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("pipeline");
        QTest::addColumn<QString>("stepFile");
        QTest::newRow("gpt2_tiny blocks batch") << "gpt2_tiny"
                                                << "chunk_region(regions=blocks.*,dim=batch)"
                                                << "01_chunk_region";
        QTest::newRow("llama_tiny feed_forward seq") << "llama_tiny"
                                                     << "chunk_region(regions=layers.*.feed_forward,dim=seq)"
                                                     << "01_chunk_region";
        QTest::newRow("moe_tiny moe batch") << "moe_tiny"
                                            << "chunk_region(regions=moe,dim=batch)"
                                            << "01_chunk_region";
    }
    void passThenCheck()
    {
        QFETCH(QString, name);
        QFETCH(QString, pipeline);
        QFETCH(QString, stepFile);
        const QString original =
            QString::fromStdString(fxltest::corpusPath(("pytorch/" + name + ".joint.code.py").toStdString()).string());
        FXL_REQUIRE_CORPUS(original);
        if (fxltest::kSanitizedBuild && name != QStringLiteral("moe_tiny"))
            QSKIP("one row under the sanitizers (time)");
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        FXL_EXPECT_EXIT(fxlens({QStringLiteral("passes"), QStringLiteral("run"), original, QStringLiteral("--pipeline"),
                                pipeline, QStringLiteral("--out"), out}),
                        0);
        const QJsonObject changes = parseJsonDoc(readFile(out + "/" + stepFile + ".changes.json"));
        const QString spec =
            changes.value(QStringLiteral("stats")).toObject().value(QStringLiteral("chunk_spec")).toString();
        QVERIFY2(!spec.isEmpty(), "the step's changes carry no chunk_spec");
        const QString step = out + "/" + stepFile + ".py";

        const Run check =
            fxlens({QStringLiteral("check"), step, original, QStringLiteral("--against"),
                    QStringLiteral("eager-chunking"), QStringLiteral("--chunks"), spec, QStringLiteral("--json")});
        FXL_EXPECT_EXIT(check, 0);
        const QJsonObject doc = parseJsonDoc(check.out);
        QCOMPARE(doc.value(QStringLiteral("differing_from_reference")).toInt(), 0);
        const QJsonArray rows = doc.value(QStringLiteral("outputs")).toArray();
        QVERIFY(rows.size() > 3);
        for (const auto& r : rows)
            QVERIFY(r.toObject()
                        .value(QStringLiteral("vs_reference"))
                        .toObject()
                        .value(QStringLiteral("bitwise_equal"))
                        .toBool());

        FXL_EXPECT_EXIT(fxlens({QStringLiteral("run"), step, QStringLiteral("--seed"), QStringLiteral("1")}), 0);
        const Run mem = fxlens({QStringLiteral("mem"), step, QStringLiteral("--json")});
        FXL_EXPECT_EXIT(mem, 0);
        QVERIFY(parseJsonDoc(mem.out)[QStringLiteral("timeline")]
                    .toObject()[QStringLiteral("peak")]
                    .toObject()[QStringLiteral("bytes")]
                    .toDouble()
                > 0);
    }

    void seqThroughAttentionIsRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("regions");
        QTest::addColumn<QString>("region");
        QTest::newRow("gpt2_tiny attn") << "gpt2_tiny"
                                        << "blocks.*.attn"
                                        << "blocks.0.attn";
        QTest::newRow("llama_tiny attention") << "llama_tiny"
                                              << "layers.*.attention"
                                              << "layers.0.attention";
    }
    void seqThroughAttentionIsRefused()
    {
        QFETCH(QString, name);
        QFETCH(QString, regions);
        QFETCH(QString, region);
        const QString original =
            QString::fromStdString(fxltest::corpusPath(("pytorch/" + name + ".joint.code.py").toStdString()).string());
        FXL_REQUIRE_CORPUS(original);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        const Run r =
            fxlens({QStringLiteral("passes"), QStringLiteral("run"), original, QStringLiteral("--pipeline"),
                    QStringLiteral("chunk_region(regions=%1,dim=seq)").arg(regions), QStringLiteral("--out"), out});
        FXL_EXPECT_EXIT(r, 1);
        QVERIFY2(r.out.contains("seq chunking through attention needs full-K/V handling"), r.out.constData());
        QVERIFY2(r.out.contains(region.toUtf8()), r.out.constData());
        QVERIFY(!QFile::exists(out + "/01_chunk_region.py"));
    }
};

QTEST_GUILESS_MAIN(TestCliChunking)
#include "test_cli_chunking.moc"
