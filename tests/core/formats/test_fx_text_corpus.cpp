// FX graph text, the real graphs: every corpus graph parses (node counts checked against an
// independent line-based count) and prints back to text that parses to the same graph; the fx/
// dumps print as FX printed them. The small traced graphs (tests/data/pytorch) always run; the
// corpus rows skip, or fail under CI=true, where the corpus is absent (test_util.hpp).
#include <QDir>
#include <QDirIterator>
#include <QRegularExpression>

#include <ctime>
#include <nlohmann/json.hpp>

#include <QtTest>

#include <string>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "fx_text_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_fx_text_corpus {

using namespace fxl;
using namespace fxtexttest;

namespace {

namespace fs = std::filesystem;

size_t totalNodes(const Graph& g)
{
    size_t n = g.size();
    for (const auto& [k, sg] : g.subgraphs) n += totalNodes(*sg);
    return n;
}

double cpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Node count of FX text by line patterns, independent of the parser: per forward, the
// placeholders (def parameters, or the names bound by the pytree flatten line), one node
// per "name[: annot] = rhs" line that is not a placeholder alias, one output per return.
int independentNodeCount(const std::string& text)
{
    const QStringList lines = QString::fromStdString(text).split(QLatin1Char('\n'));
    static const QRegularExpression defRe(QStringLiteral("^\\s*def forward\\("));
    static const QRegularExpression quoted(QStringLiteral("\"[^\"]*\"|'[^']*'"));
    static const QRegularExpression brackets(QStringLiteral("\\[[^\\]]*\\]"));
    static const QRegularExpression assign(QStringLiteral("^[A-Za-z_]\\w*(\\s*:\\s*\"[^\"]*\")?\\s*=\\s*(.*)$"));
    static const QRegularExpression bareName(QStringLiteral("^[A-Za-z_]\\w*$"));
    int total = 0;
    for (int i = 0; i < lines.size(); ++i) {
        if (!defRe.match(lines[i]).hasMatch()) continue;
        // the header, possibly over several lines (expanded signature)
        QString header;
        int j = i;
        for (; j < lines.size(); ++j) {
            QString l = lines[j];
            int hash = l.indexOf(QLatin1String("  #"));
            if (hash >= 0) l = l.left(hash);
            header += l;
            if (l.trimmed().endsWith(QLatin1String("):"))) break;
        }
        header = header.mid(header.indexOf(QLatin1Char('(')) + 1);
        header.chop(header.size() - header.lastIndexOf(QLatin1Char(')')));
        header.replace(quoted, QString()).replace(brackets, QString());
        int params = 0;
        for (const QString& p : header.split(QLatin1Char(','))) {
            QString name = p.section(QLatin1Char(':'), 0, 0).trimmed();
            if (!name.isEmpty() && name != QLatin1String("self")) ++params;
        }
        // the body: up to the next line indented no deeper than the def
        const int defIndent = static_cast<int>(lines[i].indexOf(QLatin1String("def")));
        int placeholders = params;
        int nodes = 0;
        for (int k = j + 1; k < lines.size(); ++k) {
            const QString& raw = lines[k];
            const QString t = raw.trimmed();
            if (t.isEmpty() || t.startsWith(QLatin1Char('#'))) continue;
            const int indent = static_cast<int>(raw.indexOf(t.at(0)));
            if (indent <= defIndent) break;
            if (t.contains(QLatin1String("= fx_pytree.tree_flatten_spec("))) {
                placeholders = 0;
                for (const QString& n : t.section(QLatin1Char('='), 0, 0).split(QLatin1Char(',')))
                    if (!n.trimmed().isEmpty()) ++placeholders;
                continue;
            }
            if (t == QLatin1String("return") || t.startsWith(QLatin1String("return "))) {
                ++nodes;
                continue;
            }
            auto m = assign.match(t);
            if (!m.hasMatch()) continue;
            if (bareName.match(m.captured(2).trimmed()).hasMatch()) continue;  // "l_x_ = L_x_"
            ++nodes;
        }
        total += placeholders + nodes;
    }
    return total;
}

struct Payload
{
    QString name;
    int firstLine = 0;
    std::string text;
};

// FX graph payloads of a TORCH_TRACE log (docs/formats.md section 4): the TAB-prefixed lines after an
// envelope with "has_payload" whose kind carries print_readable() text.
std::vector<Payload> graphPayloads(const QString& path)
{
    static const QRegularExpression header(
        QStringLiteral("^[VIWEC]\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d+ +\\d+ [^\\]]+\\] (\\{.*\\})$"));
    static const QStringList graphKinds = {
        QStringLiteral("dynamo_output_graph"),      QStringLiteral("aot_joint_graph"),
        QStringLiteral("aot_forward_graph"),        QStringLiteral("aot_backward_graph"),
        QStringLiteral("aot_inference_graph"),      QStringLiteral("inductor_pre_grad_graph"),
        QStringLiteral("inductor_post_grad_graph"), QStringLiteral("optimize_ddp_split_graph"),
        QStringLiteral("optimize_ddp_split_child"), QStringLiteral("compiled_autograd_graph")};
    static const QStringList graphArtifacts = {
        QStringLiteral("before_pre_grad_graph"), QStringLiteral("after_pre_grad_graph"),
        QStringLiteral("before_post_grad_graph"), QStringLiteral("after_post_grad_graph")};
    std::vector<Payload> out;
    const std::string all = fxltest::readFile(path.toStdString());
    std::vector<std::string> lines;
    size_t b = 0;
    while (b <= all.size()) {
        size_t e = all.find('\n', b);
        if (e == std::string::npos) e = all.size();
        lines.emplace_back(all.substr(b, e - b));
        b = e + 1;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
        auto m = header.match(QString::fromStdString(lines[i]));
        if (!m.hasMatch()) continue;
        nlohmann::ordered_json env = nlohmann::ordered_json::parse(m.captured(1).toStdString(), nullptr, false);
        if (env.is_discarded() || !env.is_object() || env.empty() || !env.contains("has_payload")) continue;
        const QString kind = QString::fromStdString(env.begin().key());
        QString name = kind;
        bool graph = graphKinds.contains(kind);
        if (kind == QLatin1String("artifact") && env.begin().value().is_object()
            && env.begin().value().contains("name")) {
            name = QString::fromStdString(env.begin().value()["name"].get<std::string>());
            graph = graphArtifacts.contains(name);
        }
        Payload p;
        p.firstLine = static_cast<int>(i) + 2;
        size_t k = i + 1;
        bool first = true;
        for (; k < lines.size() && (lines[k].empty() || lines[k][0] == '\t'); ++k) {
            if (lines[k].empty()) continue;
            if (!first) p.text += '\n';
            p.text += lines[k].substr(1);
            first = false;
        }
        if (graph) {
            p.name = QDir(QString::fromStdString(fxltest::corpusDir().string())).relativeFilePath(path)
                + QLatin1Char(':') + QString::number(i + 1) + QLatin1Char(':') + name;
            out.push_back(std::move(p));
        }
        i = k - 1;
    }
    return out;
}

bool outputIsLast(const Graph& g, QString* why)
{
    int outputs = 0;
    bool seenOther = false;
    for (size_t k = 0; k < g.order().size(); ++k) {
        const Node& n = g.node(g.order()[k]);
        if (n.op == NodeOp::Output) ++outputs;
        if (n.op == NodeOp::Placeholder && seenOther) {
            *why = QStringLiteral("placeholder after other nodes");
            return false;
        }
        if (n.op != NodeOp::Placeholder) seenOther = true;
    }
    if (outputs != 1 || g.size() == 0 || g.node(g.order().back()).op != NodeOp::Output) {
        *why = QStringLiteral("expected exactly one output node, last");
        return false;
    }
    for (const auto& [k, sg] : g.subgraphs)
        if (!outputIsLast(*sg, why)) return false;
    return true;
}

}  // namespace

class TestFxTextCorpus : public QObject
{
    Q_OBJECT

private slots:
    // ---------------------------------------------------------------- every corpus graph
    void corpusGraph_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("firstLine");
        QTest::addColumn<std::string>("text");
        // a whole file per row: (row name, path); an absent corpus file or directory gets its
        // row too (empty text), which then skips or fails by the corpus rule
        auto addFile = [](const std::string& name, const fs::path& path) {
            const std::string text = fs::is_regular_file(path) ? fxltest::readFile(path) : std::string();
            QTest::newRow(name.c_str()) << QString::fromStdString(path.string()) << 1 << text;
        };
        // the small traced graphs are committed (tests/data/pytorch): they run without the corpus
        const fs::path data = fxltest::testDataPath("pytorch");
        for (const auto& e : fs::directory_iterator(data))
            if (e.path().filename().string().ends_with(".code.py"))
                addFile("pytorch/" + e.path().filename().string(), e.path());
        for (const char* dir : {"pytorch", "pytorch/large"})
            for (const fs::path& f : fxltest::corpusFiles(dir, {".code.py"}))
                if (!fs::exists(data / f.filename()) || std::string(dir) != "pytorch")
                    addFile(fxltest::corpusRowName(f), f);
        for (const fs::path& f : fxltest::corpusFiles("fx", {".txt"})) addFile(fxltest::corpusRowName(f), f);
        const fs::path tlparse = fxltest::corpusPath("tlparse");
        if (!fs::is_directory(tlparse)) {
            addFile("tlparse", tlparse);
            return;
        }
        QDirIterator it(QString::fromStdString(tlparse.string()), {QStringLiteral("*.log"), QStringLiteral("*.txt")},
                        QDir::Files, QDirIterator::Subdirectories);
        QStringList logs;
        while (it.hasNext()) logs << it.next();
        logs.sort();
        int payloads = 0;
        for (const QString& log : logs)
            for (Payload& p : graphPayloads(log)) {
                QTest::newRow(qPrintable(p.name)) << log << p.firstLine << p.text;
                ++payloads;
            }
        QVERIFY2(payloads >= 50, "expected the tlparse logs to carry at least 50 graph payloads");
    }

    void corpusGraph()
    {
        QFETCH(QString, file);
        QFETCH(int, firstLine);
        QFETCH(std::string, text);
        FXL_REQUIRE_CORPUS(file);
        QVERIFY(!text.empty());
        Graph g;
        DiagnosticList diags;
        try {
            // payloads: locations in the log (first payload line, +1 column for the TAB)
            g = parseFxText(text, file.toStdString(), firstLine, &diags, firstLine > 1 ? 1 : 0);
        } catch (const InputError& e) {
            QFAIL(e.what());
        }
        for (const auto& d : diags.items) QVERIFY2(d.severity != Severity::Error, d.format().c_str());
        QCOMPARE(static_cast<int>(totalNodes(g)), independentNodeCount(text));
        QString why;
        QVERIFY2(outputIsLast(g, &why), qPrintable(why));
        // every reference points to an earlier node (topological order)
        for (size_t k = 0; k < g.order().size(); ++k) {
            const Node& n = g.node(g.order()[k]);
            auto check = [&](NodeId in) { QVERIFY(g.alive(in) && g.positionOf(in) < k); };
            for (const auto& a : n.args) a.forEachNode(check);
        }
        checkRoundTrip(g);
    }

    // The text FX would print: ours matches the original line for line (code lines, ignoring
    // comment-only lines, blank lines and trailing spaces).
    void printMatchesOriginal_data()
    {
        QTest::addColumn<QString>("file");
        for (const fs::path& f : fxltest::corpusFiles("fx", {".txt"}))
            QTest::newRow(f.filename().string().c_str()) << QString::fromStdString(f.string());
    }
    void printMatchesOriginal()
    {
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(file);
        const std::string text = fxltest::readFile(file.toStdString());
        Graph g = parseFxText(text, file.toStdString());
        auto codeLines = [](const std::string& t, bool original) {
            QStringList out;
            const QStringList lines = QString::fromStdString(t).split(QLatin1Char('\n'));
            bool inGraph = false;
            bool exported = false;
            for (QString l : lines) {
                if (!inGraph) {
                    if (l.startsWith(QLatin1String("ExportedProgram:"))) {
                        exported = true;
                        inGraph = true;
                        continue;
                    }
                    if (!l.startsWith(QLatin1String("class "))) continue;
                    inGraph = true;
                }
                if (original && !l.trimmed().isEmpty() && !l.startsWith(QLatin1Char(' '))
                    && !l.startsWith(QLatin1String("class ")))
                    break;  // "Graph signature:", "# graph id: ..." after the module
                if (exported) l = l.mid(4);
                while (l.endsWith(QLatin1Char(' '))) l.chop(1);
                if (l.trimmed().isEmpty() || l.trimmed().startsWith(QLatin1Char('#'))) continue;
                out << l;
            }
            return out;
        };
        const QStringList want = codeLines(text, true);
        const QStringList got = codeLines(printReadable(g), false);
        QCOMPARE(got.size(), want.size());
        for (int k = 0; k < want.size(); ++k) QCOMPARE(got[k], want[k]);
    }

    // Comments: the summary lines FX prints come back (first differing node gets one).
    void commentsMatchOriginal()
    {
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt"));
        std::string text = fxltest::readFile(fxFixture("tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt"));
        Graph g = parseFxText(text, "fwd");
        auto comments = [](const std::string& t) {
            QStringList out;
            for (const QString& l : QString::fromStdString(t).split(QLatin1Char('\n')))
                if (l.trimmed().startsWith(QLatin1Char('#')) && !l.contains(QLatin1String("No stacktrace")))
                    out << l.trimmed();
            return out;
        };
        QCOMPARE(comments(printReadable(g)), comments(text));
    }

    void largeGraphParses()
    {
        const QString path =
            QString::fromStdString(fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py").string());
        FXL_REQUIRE_CORPUS(path);
        const std::string text = fxltest::readFile(path.toStdString());
        double best = 1e9;
        size_t nodes = 0;
        for (int rep = 0; rep < 3; ++rep) {
            double t0 = cpuSeconds();
            Graph g = parseFxText(text, path.toStdString());
            best = std::min(best, cpuSeconds() - t0);
            nodes = g.size();
        }
        qInfo("gpt2_deep640.joint.code.py: %zu nodes, %.1f MB, parse %.3f s CPU (best of 3)", nodes,
              static_cast<double>(text.size()) / 1e6, best);
        QCOMPARE(static_cast<int>(nodes), independentNodeCount(text));
        // speed is checked by tests/bench/bench_load, not here (timings depend on the machine)
    }

    void flexAttentionNestedGraphs()
    {
        const QString log = QString::fromStdString(fxltest::corpusPath("tlparse/cache_hit_miss.log").string());
        FXL_REQUIRE_CORPUS(log);
        std::vector<Payload> ps = graphPayloads(log);
        QVERIFY(!ps.empty());
        const Payload* dyn = nullptr;
        for (const Payload& p : ps)
            if (p.name.endsWith(QLatin1String("dynamo_output_graph"))
                && p.text.find("mask_fn_0") != std::string::npos) {
                dyn = &p;
                break;
            }
        QVERIFY(dyn);
        Graph g = parseFxText(dyn->text, log.toStdString(), dyn->firstLine, nullptr, 1);
        QCOMPARE(g.subgraphs.size(), size_t(2));
        QVERIFY(g.subgraph("score_mod_0"));
        QVERIFY(g.subgraph("mask_fn_0"));
        const Node& fa = byName(g, "flex_attention");
        QVERIFY(fa.isOp("higher_order.flex_attention"));
        QCOMPARE(g.node(fa.args[3].node).target, std::string("score_mod_0"));
        const Arg& block = fa.args[4];
        QCOMPARE(block.kind, Arg::Kind::Tuple);
        QCOMPARE(g.node(block.items.back().node).name, std::string("mask_fn_0"));
        QCOMPARE(block.items[block.items.size() - 2].i, int64_t(128));
        QCOMPARE(fa.args[6].kind, Arg::Kind::Dict);
        QCOMPARE(fa.args[6].dict[0].first.s, std::string("PRESCALE_QK"));
        const Graph* mask = g.subgraph("mask_fn_0");
        const Node& ge = byName(*mask, "ge");
        QVERIFY(ge.isOp("operator.ge"));
        QCOMPARE(formatAnnotation(ge.val), std::string("b8[][]cuda:0"));
        // "return ge": a single value, not a tuple
        QCOMPARE(mask->node(mask->outputNode()).args[0].kind, Arg::Kind::Node);
        checkRoundTrip(g);
    }
};

FXL_TEST_APPLESS_MAIN(TestFxTextCorpus)
}  // namespace test_fx_text_corpus
#include "test_fx_text_corpus.moc"
