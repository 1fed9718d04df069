// The viewer's source tree (viewer/model/source_tree_model.hpp) over every file of the corpus:
// QAbstractItemModelTester finds no inconsistency, each file's graph and artifact counts are
// the ones `fxlens info --json` prints, a multi-rank log has one row per rank, compile ids group
// their artifacts, and the printed tree of a small log is the expected one.
#include <QAbstractItemModelTester>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include "core/formats/source.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/model/source_tree_model.hpp"

namespace test_source_tree_model {

using namespace fxl;
using namespace fxl::viewer;

namespace {

QStringList corpusSources()
{
    QStringList out;
    for (const char* dir : {"pytorch", "fx", "tlparse"}) {
        const QString d = QString::fromStdString(fxltest::corpusPath(dir).string());
        if (!QFileInfo(d).isDir()) {
            out << d;
            continue;
        }
        QDirIterator it(d, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot);
        QStringList here;
        while (it.hasNext()) {
            const QString f = it.next();
            const QString name = QFileInfo(f).fileName();
            if (name.endsWith(QLatin1String(".md")) || name.endsWith(QLatin1String(".json"))
                || name.endsWith(QLatin1String(".safetensors")) || name == QLatin1String("large"))
                continue;
            here << f;
        }
        here.sort();
        out << here;
    }
    return out;
}

}  // namespace

class TestSourceTreeModel : public QObject
{
    Q_OBJECT

private slots:
    void countsEqualInfo_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString& p : corpusSources()) QTest::newRow(fxltest::corpusRowName(p.toStdString()).c_str()) << p;
    }

    void countsEqualInfo()
    {
        FXL_SANITIZER_ROWS(3);
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        std::shared_ptr<Source> src;
        try {
            src = openSource(path.toStdString());
        } catch (const std::exception& e) {
            QSKIP(qPrintable(QStringLiteral("not a source fxlens opens: ") + e.what()));
        }
        SourceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.addSource(src);
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex file = model.index(0, 0);

        QProcess p;
        p.start(QString::fromStdString((fxltest::buildDir() / "app" / "fxlens").string()),
                {QStringLiteral("info"), QStringLiteral("--json"), path});
        QVERIFY(p.waitForFinished(120000));
        const QJsonObject s = QJsonDocument::fromJson(p.readAllStandardOutput())
                                  .object()[QStringLiteral("sources")]
                                  .toArray()
                                  .at(0)
                                  .toObject();
        QVERIFY2(!s.isEmpty(), "info --json lists the source");
        QCOMPARE(model.data(model.index(0, SourceTreeModel::GraphsColumn)).toInt(),
                 s[QStringLiteral("graphs")].toInt());
        QCOMPARE(model.data(model.index(0, SourceTreeModel::ArtifactsColumn)).toInt(),
                 s[QStringLiteral("artifacts")].toInt());
        const QJsonArray ranks = s[QStringLiteral("ranks")].toArray();
        if (ranks.size() > 1) {
            QCOMPARE(model.rowCount(file), int(ranks.size()));
            for (int r = 0; r < model.rowCount(file); ++r)
                QCOMPARE(model.data(model.index(r, 0, file), SourceTreeModel::KindRole).toString(),
                         QStringLiteral("rank"));
        }
        // every artifact is a leaf with its id; a graph leaf says so
        int leaves = 0, graphs = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                if (model.data(i, SourceTreeModel::KindRole).toString() == QLatin1String("artifact")) {
                    ++leaves;
                    QCOMPARE(model.rowCount(i), 0);
                    QVERIFY(src->find(model.data(i, SourceTreeModel::ArtifactIdRole).toString().toStdString()));
                    graphs += model.data(i, SourceTreeModel::IsGraphRole).toBool() ? 1 : 0;
                }
                walk(i);
            }
        };
        walk(file);
        QCOMPARE(leaves, s[QStringLiteral("artifacts")].toInt());
        QCOMPARE(graphs, s[QStringLiteral("graphs")].toInt());
    }

    void allSourcesInOneModel()
    {
        SourceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        int added = 0;
        for (const QString& p : corpusSources()) {
            if (!QFileInfo::exists(p)) continue;
            try {
                model.addSource(openSource(p.toStdString()));
                ++added;
            } catch (const std::exception&) { }
        }
        if (added == 0) {
            FXL_REQUIRE_CORPUS(fxltest::corpusDir());
            QSKIP("no corpus source opened");
        }
        QCOMPARE(model.rowCount(), added);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void printedTreeOfALog()
    {
        const auto path = fxltest::corpusPath("tlparse/simple.log");
        FXL_REQUIRE_CORPUS(path);
        SourceTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.addSource(openSource(path.string()));
        const QString tree = model.dump();
        const QStringList lines = tree.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("simple.log  3/59"));
        // two compile ids under the file, the graphs under [0/0]
        QStringList compileIds;
        for (const QString& l : lines)
            if (l.startsWith(QLatin1String("  ")) && !l.startsWith(QLatin1String("    "))) compileIds << l.trimmed();
        QCOMPARE(compileIds.size(), 2);
        QVERIFY2(tree.contains(QStringLiteral("    dynamo_output_graph  1/1  #")), qPrintable(tree));
        QVERIFY2(tree.contains(QStringLiteral("    aot_inference_graph  1/1  #")), qPrintable(tree));
        // like tlparse's index: under a compile id its graphs, then one row folding the rest
        // (events, guards, ...) whose name counts them by kind
        int folded = 0, otherRows = 0;
        std::function<void(const QModelIndex&, bool)> walk = [&](const QModelIndex& parent, bool inOther) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                const QString kind = model.data(i, SourceTreeModel::KindRole).toString();
                if (kind == QLatin1String("other")) {
                    ++otherRows;
                    QVERIFY2(model.data(i).toString().contains(QLatin1String("other artifact(s): ")),
                             qPrintable(model.data(i).toString()));
                    QVERIFY(r == model.rowCount(parent) - 1);  // after the graphs
                }
                if (kind == QLatin1String("artifact")) {
                    const bool graph = model.data(i, SourceTreeModel::IsGraphRole).toBool();
                    QVERIFY2(graph != inOther, qPrintable(model.data(i).toString()));
                    folded += inOther ? 1 : 0;
                }
                walk(i, kind == QLatin1String("other"));
            }
        };
        walk(model.index(0, 0), false);
        QCOMPARE(folded, 59 - 3);
        QCOMPARE(otherRows, 2);
    }
};

FXL_TEST_GUILESS_MAIN(TestSourceTreeModel)
}  // namespace test_source_tree_model
#include "test_source_tree_model.moc"
