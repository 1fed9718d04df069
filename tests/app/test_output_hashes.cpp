// The bits of every corpus graph's outputs against a committed list (tests/data/output_hashes.tsv):
// `fxlens run FILE --json` at 1 and 2 threads on every corpus/pytorch graph but the backwards
// (inputs from its sidecar, the rest generated with --seed 1) and on every graph of the shared
// logs and fx dumps that runs with --seed 1 (tests/app/corpus_runs.hpp), each output's SHA-256 as
// the run reports it. The list was written by an earlier process, so a line that matches also
// shows that the bits do not change between runs nor with the number of threads. A refactoring of the runtime must keep
// every line; a change of the numbers made on purpose regenerates the list in the same commit, saying why:
//   FXLENS_UPDATE_OUTPUT_HASHES=1 build/tests/fxlens_tests_app test_output_hashes
// writes tests/data/output_hashes.tsv anew (all rows must run).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QtTest>

#include <map>

#include "cli_test_util.hpp"
#include "corpus_runs.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_output_hashes {

using namespace clitest;

namespace {

QString listPath() { return QString::fromStdString(fxltest::testDataPath("output_hashes.tsv").string()); }
bool updating() { return qEnvironmentVariableIsSet("FXLENS_UPDATE_OUTPUT_HASHES"); }

// file<TAB>graph<TAB>threads<TAB>output<TAB>sha256, one line per output
QStringList hashLines(const QString& rel, const QString& graph, int threads, const QByteArray& json)
{
    QStringList lines;
    for (const auto& o : parseJsonDoc(json)[QStringLiteral("outputs")].toArray()) {
        const QJsonObject t = o.toObject();
        lines << QStringList{rel, graph.isEmpty() ? QStringLiteral("-") : graph, QString::number(threads),
                             t[QStringLiteral("name")].toString(), t[QStringLiteral("sha256")].toString()}
                     .join(QLatin1Char('\t'));
    }
    return lines;
}

QStringList pytorchGraphs()
{
    QStringList files;
    const QDir dir(QString::fromStdString(fxltest::corpusPath("pytorch").string()));
    // a backward alone cannot run: its tangents have no meta to generate them from (the
    // partition checks of test_cli_numbers run it on its forward's saved values)
    for (const QString& f : dir.entryList({QStringLiteral("*.code.py")}, QDir::Files, QDir::Name))
        if (!f.contains(QLatin1String(".bw."))) files << QStringLiteral("pytorch/") + f;
    return files;
}

}  // namespace

class TestOutputHashes : public QObject
{
    Q_OBJECT

    std::map<QString, QStringList> expected_;  // by file
    QStringList written_;
    int rowsRun_ = 0, rows_ = 0;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
        if (fxltest::kSanitizedBuild) QSKIP("the release stage compares the bits (this stage checks memory)");
        if (updating()) return;
        QFile f(listPath());
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable("cannot read " + listPath()));
        for (const QByteArray& line : f.readAll().split('\n')) {
            if (line.isEmpty() || line.startsWith('#')) continue;
            const QString l = QString::fromUtf8(line);
            expected_[l.section(QLatin1Char('\t'), 0, 0)] << l;
        }
        QVERIFY2(expected_.size() > 30, qPrintable(QStringLiteral("%1 files in the list").arg(expected_.size())));
    }

    void outputs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("symbols");
        QTest::addColumn<QString>("ops");
        for (const QString& f : pytorchGraphs()) QTest::newRow(qPrintable(f)) << f << QString() << QString();
        for (const CorpusRunRow& r : kCorpusRuns)
            if (r.ran > 0)
                QTest::newRow(r.file) << QString::fromLatin1(r.file) << QString::fromLatin1(r.symbols)
                                      << QString::fromLatin1(r.ops);
        rows_ = 0;
        for (const CorpusRunRow& r : kCorpusRuns) rows_ += r.ran > 0;
        rows_ += int(pytorchGraphs().size());
    }
    void outputs()
    {
        QFETCH(QString, file);
        QFETCH(QString, symbols);
        QFETCH(QString, ops);
        const QString path = QString::fromStdString(fxltest::corpusPath(file.toStdString()).string());
        FXL_REQUIRE_CORPUS(path);
        QStringList extra;
        if (!ops.isEmpty())
            for (const QString& o : ops.split(QLatin1Char(';')))
                extra << QStringLiteral("--ops")
                      << QString::fromStdString(fxltest::testDataPath("ops/" + o.toStdString()).string());
        const QStringList opsArgs = extra;
        if (!symbols.isEmpty()) extra << QStringLiteral("--symbols") << symbols;
        // the graphs of the file: a log's by the ids `fxlens info` lists; a single graph: ""
        QStringList ids;
        const bool pytorch = file.startsWith(QLatin1String("pytorch/"));
        if (pytorch)
            ids << QString();
        else {
            const Run info = fxlens(QStringList{QStringLiteral("info"), path, QStringLiteral("--json")} + opsArgs);
            QVERIFY2(info.exitCode == 0, qPrintable(describe(info)));
            for (const auto& src : parseJsonDoc(info.out)[QStringLiteral("sources")].toArray())
                for (const auto& g : src.toObject()[QStringLiteral("graph_info")].toArray())
                    ids << g.toObject()[QStringLiteral("id")].toString();
        }
        QStringList got;
        for (const QString& id : ids)
            for (int threads : {1, 2}) {
                QStringList args{QStringLiteral("run"),       path,
                                 QStringLiteral("--seed"),    QStringLiteral("1"),
                                 QStringLiteral("--threads"), QString::number(threads),
                                 QStringLiteral("--json")};
                if (!id.isEmpty()) args << QStringLiteral("--graph") << id;
                const Run r = fxlens(args + extra);
                if (r.exitCode != 0 && !pytorch && (r.err.contains("_c10d_functional") || r.err.contains("c10d.")))
                    continue;  // a collective: no single-process kernel (test_cli_run counts them)
                QVERIFY2(r.exitCode == 0, qPrintable(file + " " + id + ": " + describe(r)));
                got << hashLines(file, id, threads, r.out);
            }
        QVERIFY2(!got.isEmpty(), qPrintable(file + ": no output hashed"));
        ++rowsRun_;
        if (updating()) {
            written_ << got;
            return;
        }
        const QStringList want = expected_[file];
        QVERIFY2(!want.isEmpty(),
                 qPrintable(file + " is not in " + listPath() + " (regenerate it: FXLENS_UPDATE_OUTPUT_HASHES=1)"));
        QStringList diffs;
        for (const QString& l : got)
            if (!want.contains(l)) diffs << QStringLiteral("now   ") + l;
        for (const QString& l : want)
            if (!got.contains(l)) diffs << QStringLiteral("list  ") + l;
        QVERIFY2(diffs.isEmpty(),
                 qPrintable(QStringLiteral("%1: the output bits changed:\n").arg(file)
                            + diffs.mid(0, 12).join(QLatin1Char('\n'))));
    }

    void cleanupTestCase()
    {
        if (!updating() || fxltest::kSanitizedBuild) return;
        QVERIFY2(rowsRun_ == rows_, "FXLENS_UPDATE_OUTPUT_HASHES needs every row to run");
        QFile f(listPath());
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("# file\tgraph\tthreads\toutput\tsha256 of its bytes (tests/app/test_output_hashes.cpp)\n");
        f.write(written_.join(QLatin1Char('\n')).toUtf8() + "\n");
        qInfo("wrote %lld lines to %s", static_cast<long long>(written_.size()), qPrintable(listPath()));
    }
};

FXL_TEST_GUILESS_MAIN(TestOutputHashes)
}  // namespace test_output_hashes
#include "test_output_hashes.moc"
