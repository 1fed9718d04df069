// fxlens check CHUNKED ORIGINAL --against eager-chunking --chunks SPEC through the built binary.
// gpt2_tiny checked against eager chunking of itself (regions=blocks.*): the unchunked graph
// computes the blocks' parameter gradients in one reduction, the reference sums two chunk
// values, so those outputs differ from the reference by reduction order (exit 1, labelled so);
// the loss and the embedding gradients are bitwise. --json carries the same rows and the peaks;
// a note the chunk pass left on an output's node (meta.chunk.formula) is shown for a differing
// output;
// a bad --chunks, --chunks without --against eager-chunking and an unknown --against exit 2.
// The model kinds of tests/data/models: the reference refuses what needs the whole batch or
// would count a partial sum per chunk (the exact message), and every "reduction order" label
// it gives is proven in float64 (the JSON proof per row); a graph with dropout, whose eager
// chunking draws other masks, gets "values differ" and the node where the values part.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_check_chunks {

using namespace clitest;

namespace {

QString modelPath(const QString& name)
{
    return QString::fromStdString(fxltest::testDataPath("models/" + name.toStdString() + ".joint.code.py").string());
}

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

    // The reference refuses, with the node and the reason, what eager chunking cannot compute as
    // the graph does.
    void referenceRefuses_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        QTest::newRow("t5_bias: a gradient summed by blocks.2 added per chunk in blocks.1")
            << QStringLiteral("t5_bias") << QStringLiteral("regions=blocks.*")
            << QStringLiteral("region blocks.1 (backward): 'add_12' (aten.add.Tensor) adds 'sum_2', a value every "
                              "chunk has whole, to 'sum_3', this chunk's part of a sum over the chunk axis: adding up "
                              "the chunks would count 'sum_2' once per chunk (eager chunking adds it once)");
        QTest::newRow("bn_convnet: batch statistics")
            << QStringLiteral("bn_convnet") << QStringLiteral("dim=batch")
            << QStringLiteral("the whole graph: 'native_batch_norm' (aten.native_batch_norm.default) normalizes "
                              "with batch statistics (training mode): mean and variance over every dim but the "
                              "channels, and 'convolution' holds the chunk axis in dim 0: it needs the whole axis, a "
                              "chunk sees only its own rows");
    }
    void referenceRefuses()
    {
        QFETCH(QString, model);
        QFETCH(QString, spec);
        QFETCH(QString, message);
        const QString g = modelPath(model);
        const Run r = fxlens({QStringLiteral("check"), g, g, QStringLiteral("--against"),
                              QStringLiteral("eager-chunking"), QStringLiteral("--chunks"), spec});
        FXL_EXPECT_EXIT(r, 1);
        QCOMPARE(QString::fromUtf8(r.err),
                 QStringLiteral("fxlens check: error: eager-chunking reference on ORIGINAL: eager chunking: ") + message
                     + QStringLiteral("; the reference refuses this region\n"));
        QVERIFY2(r.out.isEmpty(), r.out.constData());
    }

    // Batch chunking of the model kinds, each checked against eager chunking of itself: every
    // output where the reference and the unchunked run differ is labelled "reduction order", and
    // each label carries its float64 proof.
    void labelsProvenInFloat64_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("labels");
        QTest::newRow("gn_resnet") << QStringLiteral("gn_resnet") << 1;
        QTest::newRow("vit_cls") << QStringLiteral("vit_cls") << 14;
        QTest::newRow("gru_steps") << QStringLiteral("gru_steps") << 5;
        // (under ASan the 334-node step's float64 re-runs take 20 s: the release build runs it)
        if (!fxltest::kSanitizedBuild) QTest::newRow("t5_bias") << QStringLiteral("t5_bias") << 11;
        // nn.LSTM makes its initial state zeros(1, N, d): the reference sizes it per chunk
        QTest::newRow("lstm_lm") << QStringLiteral("lstm_lm") << 2;
    }
    void labelsProvenInFloat64()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(QString, model);
        QFETCH(int, labels);
        const QString g = modelPath(model);
        const QStringList args{QStringLiteral("check"),
                               g,
                               g,
                               QStringLiteral("--against"),
                               QStringLiteral("eager-chunking"),
                               QStringLiteral("--chunks"),
                               QStringLiteral("dim=batch")};
        const Run text = fxlens(args);
        FXL_EXPECT_EXIT(text, 1);
        const QString out = QString::fromUtf8(text.out);
        QCOMPARE(out.count(QStringLiteral("  [reduction order, max ulp ")), labels);
        QCOMPARE(out.count(QRegularExpression(QStringLiteral(
                     "\n      reference vs unchunked in float64: float64 difference [0-9.e+-]+ <= 2\\^-16 x float32 "
                     "difference [0-9.e+-]+\n"))),
                 labels);
        QVERIFY2(!out.contains(QStringLiteral("values differ")), qPrintable(out));
        QVERIFY2(
            out.contains(QStringLiteral("\nresult: %1 output(s) not bitwise equal to eager chunking\n").arg(labels)),
            qPrintable(out));

        if (fxltest::kSanitizedBuild) return;  // the same run as JSON: the release build checks it
        QStringList jargs = args;
        jargs << QStringLiteral("--json");
        const Run js = fxlens(jargs);
        FXL_EXPECT_EXIT(js, 1);
        const QJsonObject doc = parseJsonDoc(js.out);
        QCOMPARE(doc.value(QStringLiteral("result")).toString(), QStringLiteral("different"));
        QVERIFY(!doc.contains(QStringLiteral("departure")));
        int proven = 0;
        for (const auto& v : doc.value(QStringLiteral("outputs")).toArray()) {
            const QJsonObject row = v.toObject();
            if (row.value(QStringLiteral("none")).toBool()) continue;  // a None gradient on both sides
            const bool same = row.value(QStringLiteral("reference_vs_unchunked"))
                                  .toObject()
                                  .value(QStringLiteral("bitwise_equal"))
                                  .toBool();
            QCOMPARE(row.contains(QStringLiteral("label")), !same);
            if (same) continue;
            QCOMPARE(row.value(QStringLiteral("label")).toString(), QStringLiteral("reduction order"));
            const QJsonObject proof = row.value(QStringLiteral("proof")).toObject();
            QVERIFY(proof.value(QStringLiteral("proven")).toBool());
            const double d32 = proof.value(QStringLiteral("diff_f32")).toDouble();
            const double d64 = proof.value(QStringLiteral("diff_f64")).toDouble();
            QVERIFY2(d32 > 0 && d64 <= d32 / 65536, qPrintable(QStringLiteral("%1 %2").arg(d32).arg(d64)));
            ++proven;
        }
        QCOMPARE(proven, labels);
    }

    // What users' models are made of, chunked along the batch by chunk_region, a region per
    // module (convolutions and their backward, group norm, max and adaptive pooling, nearest
    // upsampling and its backward, a cls token expanded over the batch and concatenated, GRUCell
    // steps over x[:, t]): the step is bitwise equal to eager chunking, and its peaks are reported.
    void chunkRegionOnModels_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("regions");
        QTest::newRow("gn_resnet") << QStringLiteral("gn_resnet") << QStringLiteral("stem;gn1;conv;gn2;pool;fc");
        QTest::newRow("unet") << QStringLiteral("unet") << QStringLiteral("down;mid;up;head");
        QTest::newRow("vit_cls") << QStringLiteral("vit_cls") << QStringLiteral("patch;ln1;attn;ln2;mlp;head");
        QTest::newRow("gru_steps") << QStringLiteral("gru_steps") << QStringLiteral("cell;head");
        QTest::newRow("lstm_lm") << QStringLiteral("lstm_lm") << QStringLiteral("lstm;head");
    }
    void chunkRegionOnModels()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(QString, model);
        QFETCH(QString, regions);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString steps = dir.filePath(QStringLiteral("steps"));
        const QString g = modelPath(model);
        const Run pass =
            fxlens({QStringLiteral("passes"), QStringLiteral("run"), g, QStringLiteral("--pipeline"),
                    QStringLiteral("chunk_region(regions=%1,dim=batch)").arg(regions), QStringLiteral("--out"), steps});
        FXL_EXPECT_EXIT(pass, 0);
        const QString chunked = steps + QStringLiteral("/01_chunk_region.py");
        QVERIFY2(QFile::exists(chunked), qPrintable(describe(pass)));
        const Run r =
            fxlens({QStringLiteral("check"), chunked, g, QStringLiteral("--against"), QStringLiteral("eager-chunking"),
                    QStringLiteral("--chunks"), QStringLiteral("regions=%1,dim=batch").arg(regions)});
        FXL_EXPECT_EXIT(r, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.endsWith(QStringLiteral("\nresult: bitwise equal to eager chunking\n")), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral(
                     "\npeak estimated: chunked [1-9][0-9]* bytes, original [1-9][0-9]* bytes, ratio [0-9.]+\n"))),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral(
                     "\npeak measured: chunked [1-9][0-9]* bytes, original [1-9][0-9]* bytes, ratio [0-9.]+\n"))),
                 qPrintable(out));
        qInfo("%s",
              qPrintable(model + QStringLiteral(": ")
                         + out.mid(out.indexOf(QStringLiteral("peak estimated")))
                               .trimmed()
                               .replace(QLatin1Char('\n'), QStringLiteral("; "))));
    }

    // What chunk_region refuses on the model kinds, with the first node and the reason.
    void chunkRegionRefuses_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("regions");
        QTest::addColumn<QString>("message");
        QTest::newRow("bn_convnet: batch statistics")
            << QStringLiteral("bn_convnet") << QStringLiteral("conv1;bn1;conv2;bn2;fc")
            << QStringLiteral("region bn1 (forward) cannot be chunked along the batch: node 'native_batch_norm' "
                              "(aten.native_batch_norm.default): normalizes with batch statistics (training mode): "
                              "it needs the whole batch; its live-out 'getitem' (read by 'relu') cannot be rebuilt "
                              "from the chunks");
        QTest::newRow("t5_bias: a gradient added across blocks")
            << QStringLiteral("t5_bias") << QStringLiteral("blocks.*")
            << QStringLiteral("region blocks.2 (backward): its live-out 'sum_2' is a partial sum over the batch (each "
                              "chunk has its part), read by 'add_12', which needs the whole sum (a gradient added "
                              "across regions, such as a shared bias's): the chunks' parts cannot be added there; "
                              "chunk these regions together or leave them whole");
    }
    void chunkRegionRefuses()
    {
        QFETCH(QString, model);
        QFETCH(QString, regions);
        QFETCH(QString, message);
        const Run r =
            fxlens({QStringLiteral("passes"), QStringLiteral("run"), modelPath(model), QStringLiteral("--pipeline"),
                    QStringLiteral("chunk_region(regions=%1,dim=batch)").arg(regions)});
        FXL_EXPECT_EXIT(r, 1);
        QVERIFY2(QString::fromUtf8(r.err).endsWith(
                     QStringLiteral("fxlens passes: error: stage 1 (chunk_region): chunk_region: ") + message
                     + QStringLiteral("\n")),
                 qPrintable(describe(r)));
    }

    // tests/data/chunk_proof/dropout_sum.py: each chunk draws its own dropout mask, so eager
    // chunking computes another sum than the graph. Its difference is as large in float64: no
    // "reduction order" label; "values differ", and the live-out where they part is named.
    void dropoutValuesDiffer()
    {
        const QString g = QString::fromStdString(fxltest::testDataPath("chunk_proof/dropout_sum.py").string());
        const QStringList args{QStringLiteral("check"),
                               g,
                               g,
                               QStringLiteral("--against"),
                               QStringLiteral("eager-chunking"),
                               QStringLiteral("--chunks"),
                               QStringLiteral("inputs=arg0_1")};
        const Run text = fxlens(args);
        FXL_EXPECT_EXIT(text, 1);
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(!out.contains(QStringLiteral("reduction order")), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral(
                     "\n  out_0 \\(sum_1\\): sum of 2 chunk values in chunk order\n      vs eager chunking: 1/1 "
                     "differ, max ulp [0-9]+; vs unchunked: bitwise  \\[values differ, max ulp [0-9]+\\]\n      "
                     "reference vs unchunked in float64: float64 difference [0-9.e+-]+ > 2\\^-16 x float32 "
                     "difference [0-9.e+-]+\n"))),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral(
                     "\nvalues differ from the unchunked graph first at 'sum_1' \\(live-out of <whole graph>, "
                     "combined by sum\\): float64 difference [0-9.e+-]+ > 2\\^-16 x float32 difference "))),
                 qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("\nresult: 1 output(s) not bitwise equal to eager chunking\n")),
                 qPrintable(out));

        QStringList jargs = args;
        jargs << QStringLiteral("--json");
        const Run js = fxlens(jargs);
        FXL_EXPECT_EXIT(js, 1);
        const QJsonObject doc = parseJsonDoc(js.out);
        const QJsonObject row = doc.value(QStringLiteral("outputs")).toArray().at(0).toObject();
        QCOMPARE(row.value(QStringLiteral("label")).toString(), QStringLiteral("values differ"));
        QCOMPARE(row.value(QStringLiteral("proof")).toObject().value(QStringLiteral("proven")).toBool(), false);
        QCOMPARE(doc.value(QStringLiteral("departure")).toObject().value(QStringLiteral("node")).toString(),
                 QStringLiteral("sum_1"));
        QCOMPARE(doc.value(QStringLiteral("result")).toString(), QStringLiteral("different"));
    }
};

FXL_TEST_GUILESS_MAIN(TestCliCheckChunks)
}  // namespace test_cli_check_chunks
#include "test_cli_check_chunks.moc"
