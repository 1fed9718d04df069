// Model kinds the corpus lacks (tests/data/models, traced by PyTorch 1.13 with
// tests/python/make_models.py: a ResNet with BatchNorm in training mode and one with GroupNorm,
// a U-Net, a ViT with a cls token, an LSTM language model, a hand-stepped GRU cell, a T5-style
// encoder sharing one position bias, a capacity-limited mixture of experts over EmbeddingBag),
// run as a user runs them: each against PyTorch's outputs and written states, identical at 1
// and 2 threads, and through the remat and min-cut pipelines with `fxlens check` of the steps
// bitwise equal, outputs and every written state.
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_models {

using namespace clitest;

namespace {

QString model(const QString& file)
{
    return QString::fromStdString(fxltest::testDataPath(("models/" + file).toStdString()).string());
}

// model, states it writes (PyTorch's file has a state.NAME for each)
struct ModelRow
{
    const char* name;
    int states;
};
constexpr ModelRow kModels[] = {{"bn_convnet", 6}, {"gn_resnet", 0}, {"unet", 0},    {"vit_cls", 0},
                                {"lstm_lm", 0},    {"gru_steps", 0}, {"t5_bias", 0}, {"moe_bag", 0}};

QStringList checksums(const QByteArray& json)
{
    QStringList sums;
    const QJsonObject doc = parseJsonDoc(json);
    for (const char* key : {"outputs", "written_states"})
        for (const auto& o : doc[QLatin1String(key)].toArray())
            sums << o.toObject()[QStringLiteral("checksum")].toString();
    return sums;
}

}  // namespace

class TestCliModels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (fxltest::kSanitizedBuild)
            QSKIP("the model kinds run end to end in the release stage; under ASan their kernels run in "
                  "test_elementwise and test_reduction, the check of states in test_cli_states");
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
    }

    void everyModel_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("states");
        for (const ModelRow& m : kModels) QTest::newRow(m.name) << QString::fromLatin1(m.name) << m.states;
    }

    void everyModel()
    {
        QFETCH(QString, name);
        QFETCH(int, states);
        const QString graph = model(name + QStringLiteral(".joint.code.py"));
        const QString inputs = model(name + QStringLiteral(".inputs.safetensors"));
        QVERIFY2(QFileInfo::exists(graph), qPrintable(graph));

        // against PyTorch: outputs and written states within the float32 allclose bound
        const Run py = fxlens({QStringLiteral("check"), graph, model(name + QStringLiteral(".outputs.safetensors")),
                               QStringLiteral("--tolerance"), QStringLiteral("1e-6,1e-5"), QStringLiteral("--json")});
        FXL_EXPECT_EXIT(py, 0);
        const QJsonObject pyDoc = parseJsonDoc(py.out);
        QVERIFY(pyDoc[QStringLiteral("result")].toString() != QLatin1String("different"));
        const QJsonObject report = pyDoc[QStringLiteral("report")].toObject();
        QCOMPARE(report[QStringLiteral("states")].toArray().size(), states);
        QVERIFY(report[QStringLiteral("only_in_a")].toArray().isEmpty());
        QVERIFY(report[QStringLiteral("only_in_b")].toArray().isEmpty());

        // the same bits at 1 and 2 threads, outputs and states
        QStringList sums[2];
        for (int t = 1; t <= 2; ++t) {
            const Run r = fxlens({QStringLiteral("run"), graph, QStringLiteral("--threads"), QString::number(t),
                                  QStringLiteral("--json")});
            FXL_EXPECT_EXIT(r, 0);
            sums[t - 1] = checksums(r.out);
        }
        QVERIFY(!sums[0].isEmpty());
        QCOMPARE(sums[1], sums[0]);

        // the steps of the remat and the min-cut pipelines against the input, as a user checks them
        QTemporaryDir dir;
        const struct
        {
            const char* pipeline;
            const char* step;
        } pipelines[] = {{"remove_detach,sac(policy=alternate_mm),remat,dce", "04_dce.py"},
                         {"partition(mode=mincut)", "01_partition.forward.py"},
                         {"partition(mode=save_all)", "01_partition.forward.py"}};
        int k = 0;
        for (const auto& p : pipelines) {
            const QString out = dir.filePath(QString::number(++k));
            const Run passes =
                fxlens({QStringLiteral("passes"), QStringLiteral("run"), graph, QStringLiteral("--pipeline"),
                        QLatin1String(p.pipeline), QStringLiteral("--out"), out});
            FXL_EXPECT_EXIT(passes, 0);
            const Run c = fxlens({QStringLiteral("check"), graph, out + QLatin1Char('/') + QLatin1String(p.step),
                                  QStringLiteral("--inputs"), inputs, QStringLiteral("--json")});
            FXL_EXPECT_EXIT(c, 0);
            const QJsonObject doc = parseJsonDoc(c.out);
            QCOMPARE(doc[QStringLiteral("result")].toString(), QStringLiteral("bitwise_equal"));
            QCOMPARE(doc[QStringLiteral("report")].toObject()[QStringLiteral("states")].toArray().size(), states);
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestCliModels)
}  // namespace test_cli_models
#include "test_cli_models.moc"
