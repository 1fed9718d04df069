// The fxlens CLI end to end: runs the built binary on real inputs and checks its output
// against numbers taken from the inputs themselves.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli {

using namespace clitest;

namespace {

const QString kBinary = clitest::kFxlensBinary;
const QString kCorpus = QString::fromStdString(fxltest::corpusDir().string());

// One row ("path") per file of corpus directory `dir` ending with one of `suffixes` (one row for
// the directory when it is absent: it skips or fails by the corpus rule).
void addCorpusRows(const char* dir, const std::vector<std::string>& suffixes)
{
    QTest::addColumn<QString>("path");
    std::set<std::string> kinds;
    for (const auto& f : fxltest::corpusFiles(dir, suffixes)) {
        // the sanitizer stage: one pytorch/ file per kind of file (.joint.code.py, .fw.mincut.code.py, ...)
        const std::string name = f.filename().string();
        if (fxltest::kSanitizedBuild && std::string_view(dir) == "pytorch"
            && !kinds.insert(name.substr(name.find('.'))).second)
            continue;
        QTest::newRow(name.c_str()) << QString::fromStdString(f.string());
    }
}

// Node count of gm.code text, counted from the text: the forward parameters, one node per
// "name = ..." statement, and the output.
int countGmCodeNodes(const QString& text)
{
    static const QRegularExpression def(QStringLiteral("def forward\\(self(?:, )?([^)]*)\\)"));
    static const QRegularExpression stmt(QStringLiteral("^    [A-Za-z_][A-Za-z0-9_]* = "),
                                         QRegularExpression::MultilineOption);
    auto m = def.match(text);
    if (!m.hasMatch()) return -1;
    const QString params = m.captured(1).trimmed();
    int n = params.isEmpty() ? 0 : int(params.split(',').size());
    auto it = stmt.globalMatch(text);
    while (it.hasNext()) {
        it.next();
        ++n;
    }
    return n + 1;
}

// Node count of a graph listing: one "%name : ..." line per node plus "return ...".
int countListingNodes(const QString& text)
{
    int n = 0;
    for (const QString& line : text.split('\n')) {
        const QString t = line.trimmed();
        if (t.startsWith('%') || t.startsWith(QStringLiteral("return "))) ++n;
    }
    return n;
}

// Tensor byte sizes of a safetensors file, read from its header.
QMap<QString, qint64> safetensorsBytes(const QString& path)
{
    QMap<QString, qint64> out;
    const QByteArray data = readFile(path);
    if (data.size() < 8) return out;
    quint64 n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | quint8(data[i]);
    const QJsonObject h = QJsonDocument::fromJson(data.mid(8, int(n))).object();
    for (auto it = h.begin(); it != h.end(); ++it) {
        if (it.key() == QLatin1String("__metadata__")) continue;
        const QJsonArray off = it.value().toObject().value(QStringLiteral("data_offsets")).toArray();
        out[it.key()] = qint64(off.at(1).toDouble() - off.at(0).toDouble());
    }
    return out;
}

// A small annotated print_readable graph (written here, so the tests run without corpus).
const char* kReadable =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, primals_1: \"f32[8, 4][4, 1]cpu\", primals_2: \"f32[4, 16][16, 1]cpu\"):\n"
    "        mm: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.mm.default(primals_1, primals_2);  primals_2 = None\n"
    "        relu: \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.relu.default(mm);  mm = None\n"
    "        view: \"f32[128][1]cpu\" = torch.ops.aten.view.default(relu, [128]);  relu = None\n"
    "        sum_1: \"f32[][]cpu\" = torch.ops.aten.sum.default(view);  view = None\n"
    "        return (sum_1, primals_1)\n"
    "        \n";

}  // namespace

class TestCli : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kBinary).isExecutable(), qPrintable("fxlens binary missing: " + kBinary));
    }

    void version()
    {
        const Run r = fxlens({QStringLiteral("--version")});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(QRegularExpression(QStringLiteral("^fxlens \\d+\\.\\d+\\.\\d+\\n$"))
                     .match(QString::fromUtf8(r.out))
                     .hasMatch(),
                 r.out.constData());
    }

    void help_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("no verb") << QStringList{};
        QTest::newRow("--help") << QStringList{QStringLiteral("--help")};
        QTest::newRow("-h") << QStringList{QStringLiteral("-h")};
        QTest::newRow("info --help") << QStringList{QStringLiteral("info"), QStringLiteral("--help")};
        QTest::newRow("info -h") << QStringList{QStringLiteral("info"), QStringLiteral("-h")};
        QTest::newRow("convert --help") << QStringList{QStringLiteral("convert"), QStringLiteral("--help")};
        QTest::newRow("convert -h with other args")
            << QStringList{QStringLiteral("convert"), QStringLiteral("x"), QStringLiteral("-h")};
    }
    void help()
    {
        QFETCH(QStringList, args);
        const Run r = fxlens(args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Usage: fxlens"), r.out.constData());
        if (args.size() >= 2) QVERIFY2(r.out.contains("--json"), "verb help lists --json");
        if (args.isEmpty())  // `fxlens` alone, no display: why no window, and where the example is
            QVERIFY2(r.err.startsWith("fxlens: no display: the window, with the bundled example (")
                         && r.err.contains("gpt2_tiny.joint.code.py), cannot open"),
                     r.err.constData());
        else
            QVERIFY2(r.err.isEmpty(), r.err.constData());
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString f = QStringLiteral("x.py");
        QTest::newRow("unknown verb") << QStringList{QStringLiteral("frobnicate")} << "unknown verb 'frobnicate'";
        QTest::newRow("unknown global option") << QStringList{QStringLiteral("--bogus")} << "unknown option '--bogus'";
        QTest::newRow("unknown option") << QStringList{QStringLiteral("info"), QStringLiteral("--bogus"), f}
                                        << "unknown option '--bogus'";
        QTest::newRow("unknown short option")
            << QStringList{QStringLiteral("info"), QStringLiteral("-z"), f} << "unknown option '-z'";
        QTest::newRow("info without file") << QStringList{QStringLiteral("info")} << "missing FILE";
        QTest::newRow("convert without file")
            << QStringList{QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("py")} << "missing FILE";
        QTest::newRow("convert two files") << QStringList{QStringLiteral("convert"), f, QStringLiteral("y.py"),
                                                          QStringLiteral("--to"), QStringLiteral("py")}
                                           << "too many arguments";
        QTest::newRow("option without value")
            << QStringList{QStringLiteral("convert"), f, QStringLiteral("--to")} << "--to needs a value";
        QTest::newRow("bad --top") << QStringList{QStringLiteral("info"), QStringLiteral("--top"),
                                                  QStringLiteral("ten"), f}
                                   << "--top expects a non-negative integer";
        QTest::newRow("flag with value") << QStringList{QStringLiteral("info"), QStringLiteral("--json=yes"), f}
                                         << "takes no value";
        QTest::newRow("help for an unknown verb")
            << QStringList{QStringLiteral("help"), QStringLiteral("frobnicate")} << "unknown verb 'frobnicate'";
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = fxlens(args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains("Usage: fxlens"), "usage printed on stderr");
        // the error, the usage line and a hint: not the whole help burying the error
        QVERIFY2(r.err.contains("--help' for the options."), r.err.constData());
        QVERIFY2(!r.err.contains("Options:"), r.err.constData());
        QVERIFY2(r.err.count('\n') <= 4, r.err.constData());
        QVERIFY2(r.out.isEmpty(), r.out.constData());
    }

    // convert's own usage errors need a readable file.
    void convertUsageErrors()
    {
        QTemporaryDir tmp;
        const QString f = tmp.filePath(QStringLiteral("g.py"));
        QVERIFY(writeFile(f, kReadable));
        Run r = fxlens({QStringLiteral("convert"), f});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("missing --to"), r.err.constData());
        r = fxlens({QStringLiteral("convert"), f, QStringLiteral("--to"), QStringLiteral("xml")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--to expects json or py"), r.err.constData());
    }

    void missingFile()
    {
        const Run r = fxlens({QStringLiteral("info"), QStringLiteral("/nonexistent/graph.py")});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("/nonexistent/graph.py: error: no such file"), r.err.constData());
    }

    // A file written here: info's numbers follow from the graph text.
    void infoSynthetic()
    {
        QTemporaryDir tmp;
        const QString f = tmp.filePath(QStringLiteral("g.py"));
        QVERIFY(writeFile(f, kReadable));
        const Run r = fxlens({QStringLiteral("info"), QStringLiteral("--json"), f});
        QVERIFY(!r.crashed);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = parseJsonDoc(r.out);
        const QJsonArray sources = doc.value(QStringLiteral("sources")).toArray();
        QCOMPARE(sources.size(), 1);
        const QJsonObject s = sources.at(0).toObject();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("fx-code"));
        const QJsonObject g = s.value(QStringLiteral("graph_info")).toArray().at(0).toObject();
        QCOMPARE(g.value(QStringLiteral("nodes")).toInt(), 7);  // 2 placeholders, 4 ops, output
        const QJsonObject kinds = g.value(QStringLiteral("nodes_by_kind")).toObject();
        QCOMPARE(kinds.value(QStringLiteral("placeholder")).toInt(), 2);
        QCOMPARE(kinds.value(QStringLiteral("call_function")).toInt(), 4);
        // primals_* rule: f32[8, 4] + f32[4, 16] = 32*4 + 64*4 bytes
        const QJsonObject p = g.value(QStringLiteral("parameters")).toObject();
        QCOMPARE(p.value(QStringLiteral("count")).toInt(), 2);
        QCOMPARE(p.value(QStringLiteral("bytes")).toInteger(), 384);
        QVERIFY(p.value(QStringLiteral("rule")).toString().contains(QStringLiteral("primals_")));
        // activations: mm 512 + relu 512 + sum 4 (the view shares relu's storage)
        const QJsonObject a = g.value(QStringLiteral("activations")).toObject();
        QCOMPARE(a.value(QStringLiteral("bytes")).toInteger(), 1028);
        QCOMPARE(a.value(QStringLiteral("tensors")).toInt(), 3);
        // histogram: 4 distinct ops, once each
        const QJsonArray ops = g.value(QStringLiteral("ops")).toArray();
        QCOMPARE(ops.size(), 4);
        for (const auto& o : ops) QCOMPARE(o.toObject().value(QStringLiteral("count")).toInt(), 1);
        // --top limits the histogram, --all-ops shows all
        const Run r2 =
            fxlens({QStringLiteral("info"), QStringLiteral("--json"), QStringLiteral("--top"), QStringLiteral("2"), f});
        QCOMPARE(parseJsonDoc(r2.out)["sources"][0]["graph_info"][0]["ops"].toArray().size(), 2);
        // the text form says the same
        const Run r3 = fxlens({QStringLiteral("info"), f});
        QCOMPARE(r3.exitCode, 0);
        QVERIFY2(r3.out.contains("nodes: 7"), r3.out.constData());
        QVERIFY2(r3.out.contains("aten.mm.default"), r3.out.constData());
        QVERIFY2(r3.out.contains("rule: primals_"), r3.out.constData());
        // a graph id that does not exist
        const Run r4 = fxlens({QStringLiteral("info"), QStringLiteral("--graph"), QStringLiteral("7"), f});
        QCOMPARE(r4.exitCode, 1);
        QVERIFY2(r4.err.contains("no graph with id '7' (graphs: 0)"), r4.err.constData());
        // several files: a bad one is reported and the others are still described
        const Run r5 =
            fxlens({QStringLiteral("info"), QStringLiteral("--json"), tmp.filePath(QStringLiteral("missing.py")), f});
        QCOMPARE(r5.exitCode, 1);
        const QJsonObject d5 = parseJsonDoc(r5.out);
        QCOMPARE(d5["sources"].toArray().size(), 1);
        QCOMPARE(d5["errors"].toArray().size(), 1);
        QVERIFY(d5["errors"][0]["text"].toString().contains(QStringLiteral("missing.py: error: no such file")));
    }

    void convertSynthetic()
    {
        QTemporaryDir tmp;
        const QString f = tmp.filePath(QStringLiteral("g.py"));
        QVERIFY(writeFile(f, kReadable));
        const QString out = tmp.filePath(QStringLiteral("g.json"));
        Run r = fxlens(
            {QStringLiteral("convert"), f, QStringLiteral("--to"), QStringLiteral("json"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.isEmpty());
        r = fxlens({QStringLiteral("info"), QStringLiteral("--json"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject s = parseJsonDoc(r.out)["sources"][0].toObject();
        QCOMPARE(s.value(QStringLiteral("format")).toString(), QStringLiteral("fxlens-json"));
        QCOMPARE(s["graph_info"][0]["nodes"].toInt(), 7);
        QCOMPARE(s["graph_info"][0]["activations"]["bytes"].toInteger(), 1028);
        // json -> py -> parse: the graph of the original text
        r = fxlens({QStringLiteral("convert"), out, QStringLiteral("--to"), QStringLiteral("py")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const fxl::Graph orig = fxl::parseFxText(kReadable, "orig");
        const fxl::Graph back = fxl::parseFxText(r.out.toStdString(), "back");
        std::string why;
        QVERIFY2(orig.structurallyEqual(back, &why), why.c_str());
    }

    void outputNeverOverwritten()
    {
        QTemporaryDir tmp;
        const QString f = tmp.filePath(QStringLiteral("g.py"));
        QVERIFY(writeFile(f, kReadable));
        const QString out = tmp.filePath(QStringLiteral("out.py"));
        QVERIFY(writeFile(out, "keep me\n"));
        Run r = fxlens(
            {QStringLiteral("convert"), f, QStringLiteral("--to"), QStringLiteral("py"), QStringLiteral("-o"), out});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("exists (use --force"), r.err.constData());
        QCOMPARE(readFile(out), QByteArray("keep me\n"));
        // --force replaces it; no temporary file is left beside it
        r = fxlens({QStringLiteral("convert"), f, QStringLiteral("--to"), QStringLiteral("py"), QStringLiteral("-o"),
                    out, QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(readFile(out).startsWith("class "));
        const QStringList left = QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden | QDir::System);
        QCOMPARE(left, (QStringList{QStringLiteral("g.py"), QStringLiteral("out.py")}));
        // --json reports what was written
        const QString out2 = tmp.filePath(QStringLiteral("out2.py"));
        r = fxlens({QStringLiteral("convert"), QStringLiteral("--json"), f, QStringLiteral("--to=py"),
                    QStringLiteral("-o"), out2});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject d = parseJsonDoc(r.out);
        QCOMPARE(d["output"].toString(), out2);
        QCOMPARE(d["bytes"].toInteger(), QFileInfo(out2).size());
        // a directory is not replaced either
        r = fxlens({QStringLiteral("convert"), f, QStringLiteral("--to"), QStringLiteral("py"), QStringLiteral("-o"),
                    tmp.path(), QStringLiteral("--force")});
        QCOMPARE(r.exitCode, 1);
    }

    // ---------------------------------------------------------------- corpus/pytorch
    void infoCorpusGraph_data() { addCorpusRows("pytorch", {".code.py", ".graph.txt"}); }
    void infoCorpusGraph()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        const Run r = fxlens({QStringLiteral("info"), QStringLiteral("--json"), path});
        QVERIFY(!r.crashed);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject s = parseJsonDoc(r.out)["sources"][0].toObject();
        const bool listing = path.endsWith(QStringLiteral(".graph.txt"));
        QCOMPARE(s["format"].toString(), listing ? QStringLiteral("graph-listing") : QStringLiteral("fx-code"));
        const QJsonArray graphs = s["graph_info"].toArray();
        QCOMPARE(graphs.size(), 1);
        const QJsonObject g = graphs.at(0).toObject();
        const QString text = QString::fromUtf8(readFile(path));
        const int expected = listing ? countListingNodes(text) : countGmCodeNodes(text);
        QCOMPARE(g["nodes"].toInt(), expected);

        // the histogram covers every call_function node
        qint64 sum = 0;
        const Run all = fxlens({QStringLiteral("info"), QStringLiteral("--json"), QStringLiteral("--all-ops"), path});
        for (const auto& o : parseJsonDoc(all.out)["sources"][0]["graph_info"][0]["ops"].toArray())
            sum += o.toObject()["count"].toInteger();
        QCOMPARE(sum, qint64(g["nodes_by_kind"]["call_function"].toInt()));

        // parameters: params.json names them; their bytes are those of the real inputs
        const QString base = QFileInfo(path).fileName().section('.', 0, 0);
        const QString paramsPath = QFileInfo(path).dir().filePath(base + QStringLiteral(".params.json"));
        const QJsonObject p = g["parameters"].toObject();
        if (QFileInfo::exists(paramsPath) && path.contains(QStringLiteral(".joint."))) {
            const QJsonObject pj = QJsonDocument::fromJson(readFile(paramsPath)).object();
            const int nData = pj["data_inputs"].toInt();
            const int nParams = int(pj["parameter_fqns"].toArray().size());
            QCOMPARE(p["count"].toInt(), nParams);
            const auto bytes =
                safetensorsBytes(QFileInfo(path).dir().filePath(base + QStringLiteral(".inputs.safetensors")));
            qint64 want = 0;
            for (int i = nData; i < nData + nParams; ++i) want += bytes.value(QStringLiteral("arg%1_1").arg(i), -1);
            QCOMPARE(p["bytes"].toInteger(), want);
            QCOMPARE(p["without_meta"].toInt(), 0);
            QVERIFY(p["rule"].toString().startsWith(QStringLiteral("params.json")));
        }
        // joint graphs have meta.json: every activation has a shape
        if (path.contains(QStringLiteral(".joint."))) {
            QCOMPARE(g["activations"]["without_meta"].toInt(), 0);
            QVERIFY(g["activations"]["bytes"].toInteger() > 0);
        }
    }

    void convertCorpusRoundTrip_data() { addCorpusRows("pytorch", {".code.py", ".graph.txt"}); }
    void convertCorpusRoundTrip()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        QTemporaryDir tmp;
        const QString json = tmp.filePath(QStringLiteral("g.json"));
        Run r = fxlens({QStringLiteral("convert"), path, QStringLiteral("--to"), QStringLiteral("json"),
                        QStringLiteral("-o"), json});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Run a = fxlens({QStringLiteral("info"), QStringLiteral("--json"), path});
        const Run b = fxlens({QStringLiteral("info"), QStringLiteral("--json"), json});
        QVERIFY2(b.exitCode == 0, b.err.constData());
        const QJsonObject ga = parseJsonDoc(a.out)["sources"][0]["graph_info"][0].toObject();
        const QJsonObject gb = parseJsonDoc(b.out)["sources"][0]["graph_info"][0].toObject();
        QCOMPARE(gb["nodes"].toInt(), ga["nodes"].toInt());
        QCOMPARE(gb["total_nodes"].toInt(), ga["total_nodes"].toInt());
        QCOMPARE(gb["ops"].toArray(), ga["ops"].toArray());
        QCOMPARE(gb["activations"]["bytes"].toInteger(), ga["activations"]["bytes"].toInteger());

        // py: parses back to the graph fxlens read
        r = fxlens({QStringLiteral("convert"), path, QStringLiteral("--to"), QStringLiteral("py")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        auto src = fxl::openSource(path.toStdString());
        const auto orig = src->graph(src->graphs().front()->id);
        fxl::Graph back;
        try {
            back = fxl::parseFxText(r.out.toStdString(), "converted.py");
        } catch (const fxl::InputError& e) {
            QFAIL(e.what());
        }
        // print_readable() carries no storage offset (shape propagation computes it for views)
        // and prints no annotation for tuple-valued nodes: compare what the format can hold.
        // Module paths and phases (from meta.json) travel in fxlens' summary comments.
        fxl::Graph expect = orig->clone();
        expect.forEachNodeMut([](fxl::Node& n) {
            if (n.val.kind == fxl::ValueMeta::Kind::Tuple) n.val = fxl::ValueMeta::unknown();
            if (n.val.isTensor()) n.val.tensor.storageOffset = 0;
        });
        std::string why;
        QVERIFY2(expect.structurallyEqual(back, &why), why.c_str());
    }

    // ---------------------------------------------------------------- corpus/tlparse
    void infoTrace_data() { addCorpusRows("tlparse", {".log", ".txt"}); }
    void infoTrace()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        // What the log says, read here: events with a payload, distinct compile ids, MD5s.
        static const QRegularExpression header(
            QStringLiteral("^[VIWEC]\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} \\d+ [^:]*:\\d+\\] (\\{.*)$"));
        const QList<QByteArray> lines = readFile(path).split('\n');
        int payloads = 0, md5Bad = 0;
        for (int i = 0; i < lines.size(); ++i) {
            const auto m = header.match(QString::fromUtf8(lines[i]));
            if (!m.hasMatch()) continue;
            const QJsonObject env = QJsonDocument::fromJson(m.captured(1).toUtf8()).object();
            if (!env.contains(QStringLiteral("has_payload"))) continue;
            ++payloads;
            QByteArrayList body;
            int j = i + 1;
            for (; j < lines.size(); ++j) {
                if (lines[j].isEmpty() && j + 1 < lines.size()) continue;  // blank lines are skipped
                if (!lines[j].startsWith('\t')) break;
                body.push_back(lines[j].mid(1));
            }
            const QByteArray md5 = QCryptographicHash::hash(body.join('\n'), QCryptographicHash::Md5).toHex();
            if (md5 != env[QStringLiteral("has_payload")].toString().toLatin1()) ++md5Bad;
        }
        const Run r = fxlens({QStringLiteral("info"), QStringLiteral("--json"), path}, 300000);
        QVERIFY(!r.crashed);
        QVERIFY2(r.exitCode == 0, r.err.right(2000).constData());
        const QJsonObject s = parseJsonDoc(r.out)["sources"][0].toObject();
        QCOMPARE(s["format"].toString(), QStringLiteral("torch-trace"));
        QCOMPARE(s["artifacts"].toInt(), payloads);
        QCOMPARE(s["md5_failures"].toInt(), md5Bad);
        const QJsonArray graphs = s["graph_info"].toArray();
        QCOMPARE(graphs.size(), s["graphs"].toInt());
        for (const auto& gv : graphs) {
            const QJsonObject g = gv.toObject();
            QVERIFY2(!g.contains(QStringLiteral("error")), qPrintable(g["error"]["text"].toString()));
            QVERIFY(g["nodes"].toInt() > 0);
            QVERIFY(!g["compile_id"].toString().isEmpty());
            // the envelope line it names is a trace header of its kind
            const int line = g["line"].toInt();
            QVERIFY(line >= 1 && line <= lines.size());
            QVERIFY2(lines[line - 1].contains(g["kind"].toString().toUtf8()), lines[line - 1].left(200).constData());
        }
        // the text form lists the same graphs
        const Run t = fxlens({QStringLiteral("info"), path}, 300000);
        QCOMPARE(t.exitCode, 0);
        QCOMPARE(int(t.out.count("\n  graph ")), int(graphs.size()));
        if (md5Bad > 0) QVERIFY2(t.err.contains("MD5") || t.err.contains("md5"), "md5 mismatches reported on stderr");
    }

    void infoTraceDirectory()
    {
        const QString dir = kCorpus + QStringLiteral("/tlparse/graph_exec_order");
        FXL_REQUIRE_CORPUS(dir);
        const Run r = fxlens({QStringLiteral("info"), QStringLiteral("--json"), dir}, 300000);
        QVERIFY(!r.crashed);
        QVERIFY2(r.exitCode == 0, r.err.right(2000).constData());
        const QJsonObject s = parseJsonDoc(r.out)["sources"][0].toObject();
        QCOMPARE(s["format"].toString(), QStringLiteral("torch-trace-dir"));
        // the files are dedicated_log_torch_trace_rank_0_* and rank_1_*
        QCOMPARE(s["ranks"].toArray(), (QJsonArray{0, 1}));
        QVERIFY(s["graphs"].toInt() > 0);
        // --graph picks one graph by id
        const QString id = s["graph_info"][0]["id"].toString();
        const Run one =
            fxlens({QStringLiteral("info"), QStringLiteral("--json"), QStringLiteral("--graph"), id, dir}, 300000);
        QCOMPARE(one.exitCode, 0);
        const QJsonArray gs = parseJsonDoc(one.out)["sources"][0]["graph_info"].toArray();
        QCOMPARE(gs.size(), 1);
        QCOMPARE(gs[0]["id"].toString(), id);
    }

    void convertTraceNeedsGraphId()
    {
        const QString path = kCorpus + QStringLiteral("/tlparse/simple.log");
        FXL_REQUIRE_CORPUS(path);
        const Run info = fxlens({QStringLiteral("info"), QStringLiteral("--json"), path});
        const QJsonArray gs = parseJsonDoc(info.out)["sources"][0]["graph_info"].toArray();
        QVERIFY2(gs.size() >= 2, "simple.log has two graphs or more");
        Run r = fxlens({QStringLiteral("convert"), path, QStringLiteral("--to"), QStringLiteral("py")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--graph ID"), r.err.constData());
        // with an id: the graph of that envelope, parsed back to the same node count
        const QJsonObject g = gs.last().toObject();
        r = fxlens({QStringLiteral("convert"), path, QStringLiteral("--to"), QStringLiteral("py"),
                    QStringLiteral("--graph"), g["id"].toString()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const fxl::Graph back = fxl::parseFxText(r.out.toStdString(), "converted.py");
        QCOMPARE(int(back.size()), g["nodes"].toInt());
    }
};

FXL_TEST_APPLESS_MAIN(TestCli)
}  // namespace test_cli
#include "test_cli.moc"
