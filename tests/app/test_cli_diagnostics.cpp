// Repeated load diagnostics, end to end: every verb that loads a graph prints the first few of
// a kind and one "... and N more like this" line; --verbose prints all of them, --json lists
// all of them. The inputs are the 640-layer GPT-2 of the corpus without its constants file
// (one warning per _tensor_constantN) and a small graph written here with one bad
// annotation per node.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"

namespace test_cli_diagnostics {

using namespace clitest;

namespace {

const QString kCorpus = QString::fromStdString(fxltest::corpusDir().string());
constexpr int kShownPerKind = 3;  // kDiagnosticsShownPerKind in app/cli_common.hpp

// A print_readable graph with `n` nodes whose annotation cannot be read: one warning each.
QByteArray badAnnotations(int n)
{
    QByteArray text = "class GraphModule(torch.nn.Module):\n"
                      "    def forward(self, x: \"f32[4][1]cpu\"):\n";
    QByteArray prev = "x";
    for (int i = 0; i < n; ++i) {
        const QByteArray name = "neg_" + QByteArray::number(i);
        text += "        " + name + ": \"f32[4][1]cpu!?\" = torch.ops.aten.neg.default(" + prev + ")\n";
        prev = name;
    }
    return text + "        return (" + prev + ",)\n";
}

// The diagnostics arrays of a --json document, wherever the verb puts them.
int countInJson(const QJsonObject& doc, const QRegularExpression& kind)
{
    int n = 0;
    auto countArray = [&](const QJsonArray& a) {
        for (const auto& d : a)
            if (kind.match(d.toObject().value(QStringLiteral("text")).toString()).hasMatch()) ++n;
    };
    countArray(doc.value(QStringLiteral("diagnostics")).toArray());  // mem, convert, passes, run
    for (const char* side : {"a", "b"})  // diff
        countArray(doc.value(QLatin1String(side)).toObject().value(QStringLiteral("diagnostics")).toArray());
    for (const auto& s : doc.value(QStringLiteral("sources")).toArray()) {  // info
        countArray(s.toObject().value(QStringLiteral("diagnostics")).toArray());
        for (const auto& g : s.toObject().value(QStringLiteral("graph_info")).toArray())
            countArray(g.toObject().value(QStringLiteral("diagnostics")).toArray());
    }
    return n;
}

int countLines(const QByteArray& text, const QRegularExpression& re)
{
    int n = 0;
    for (const QByteArray& line : text.split('\n'))
        if (re.match(QString::fromUtf8(line)).hasMatch()) ++n;
    return n;
}

}  // namespace

class TestCliDiagnostics : public QObject
{
    Q_OBJECT

    QTemporaryDir tmp;
    QString deepGraph;  // gpt2_deep640 without its constants; empty when the corpus is absent
    int deepConstants = 0;
    QString smallGraph;
    static constexpr int kSmallNodes = 12;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
        QVERIFY(tmp.isValid());
        smallGraph = tmp.filePath(QStringLiteral("bad_annotations.py"));
        QVERIFY(writeFile(smallGraph, badAnnotations(kSmallNodes)));

        const QString large = kCorpus + QStringLiteral("/pytorch/large/");
        const QString code = large + QStringLiteral("gpt2_deep640.joint.code.py");
        if (!QFileInfo::exists(code)) return;
        // everything the corpus has beside the graph except the constants
        QDir().mkpath(tmp.filePath(QStringLiteral("deep")));
        for (const char* suffix : {".joint.code.py", ".meta.json", ".params.json", ".inputs.safetensors"}) {
            const QString from = large + QStringLiteral("gpt2_deep640") + QLatin1String(suffix);
            QVERIFY(QFile::link(from, tmp.filePath(QStringLiteral("deep/gpt2_deep640")) + QLatin1String(suffix)));
        }
        deepGraph = tmp.filePath(QStringLiteral("deep/gpt2_deep640.joint.code.py"));
        // one warning per constant: count them from the text
        static const QRegularExpression getAttr(QStringLiteral("^    (_tensor_constant\\d+) = self\\.\\1$"),
                                                QRegularExpression::MultilineOption);
        auto it = getAttr.globalMatch(QString::fromUtf8(readFile(code)));
        while (it.hasNext()) {
            it.next();
            ++deepConstants;
        }
        QVERIFY(deepConstants > kShownPerKind);
    }

    void folding_data()
    {
        QTest::addColumn<QString>("input");  // "deep" or "small"
        QTest::addColumn<QStringList>("args");  // FILE stands for the input
        QTest::addColumn<int>("batches");  // loads that print diagnostics (diff loads two files)
        QTest::addColumn<QString>("mode");  // "default", "verbose" or "json"
        struct Verb
        {
            const char* name;
            QStringList args;
            int batches;
        };
        const QString file = QStringLiteral("FILE");
        const Verb verbs[] = {
            {"info", {QStringLiteral("info"), file}, 1},
            {"mem", {QStringLiteral("mem"), file}, 1},
            {"convert", {QStringLiteral("convert"), file, QStringLiteral("--to"), QStringLiteral("json")}, 1},
            {"diff", {QStringLiteral("diff"), file, file}, 2},
            {"passes run",
             {QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
              QStringLiteral("dce")},
             1},
        };
        for (const char* input : {"small", "deep"}) {
            for (const Verb& v : verbs) {
                for (const char* mode : {"default", "verbose", "json"}) {
                    // the large graph once per mode through info, the cheap verbs on the small one
                    if (QLatin1String(input) == QLatin1String("deep") && QLatin1String(v.name) != QLatin1String("info")
                        && QLatin1String(v.name) != QLatin1String("mem"))
                        continue;
                    const QByteArray row = QByteArray(input) + ' ' + v.name + ' ' + mode;
                    QTest::newRow(row.constData())
                        << QString::fromLatin1(input) << v.args << v.batches << QString::fromLatin1(mode);
                }
            }
        }
    }

    void folding()
    {
        QFETCH(QString, input);
        QFETCH(QStringList, args);
        QFETCH(int, batches);
        QFETCH(QString, mode);
        const bool deep = input == QLatin1String("deep");
        if (deep) FXL_REQUIRE_CORPUS(kCorpus + QStringLiteral("/pytorch/large/gpt2_deep640.joint.code.py"));
        QVERIFY(!deep || !deepGraph.isEmpty());
        const QString path = deep ? deepGraph : smallGraph;
        const int perLoad = deep ? deepConstants : kSmallNodes;
        // the message of each kind, whatever the node
        const QRegularExpression kind(deep ? QStringLiteral("warning: .*'_tensor_constant\\d+'")
                                           : QStringLiteral("warning: annotation not understood"));
        static const QRegularExpression more(
            QStringLiteral("^\\.\\.\\. and (\\d+) more like this \\(--verbose shows all\\)$"));

        args.replaceInStrings(QRegularExpression(QStringLiteral("^FILE$")), path);
        if (mode == QLatin1String("verbose")) args << QStringLiteral("--verbose");
        if (mode == QLatin1String("json")) args << QStringLiteral("--json");
        const Run r = fxlens(args);
        QVERIFY2(!r.crashed, r.err.constData());
        QVERIFY2(r.exitCode == 0, r.err.right(2000).constData());

        const int printed = countLines(r.err, kind);
        int folded = 0, moreLines = 0;
        for (const QByteArray& line : r.err.split('\n')) {
            const auto m = more.match(QString::fromUtf8(line));
            if (!m.hasMatch()) continue;
            ++moreLines;
            folded += m.captured(1).toInt();
        }
        if (mode == QLatin1String("verbose")) {
            QCOMPARE(printed, batches * perLoad);
            QCOMPARE(moreLines, 0);
        } else {
            // stderr is folded with --json too: the document has them all
            QCOMPARE(printed, batches * kShownPerKind);
            QCOMPARE(moreLines, batches);
            QCOMPARE(folded, batches * (perLoad - kShownPerKind));
        }
        if (mode == QLatin1String("json")) QCOMPARE(countInJson(parseJsonDoc(r.out), kind), batches * perLoad);
    }
};

FXL_TEST_APPLESS_MAIN(TestCliDiagnostics)
}  // namespace test_cli_diagnostics
#include "test_cli_diagnostics.moc"
