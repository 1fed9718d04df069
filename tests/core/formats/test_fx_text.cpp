// FX graph text: every corpus graph parses (node counts checked against an independent
// line-based count), prints back to text that parses to the same graph, and the documented
// examples (fx_text.md §6) give the expected nodes, meta and signature details. Malformed
// inputs fail with the exact line and column.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>

#include <clocale>
#include <cmath>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/fx/summary_comment.hpp"

using namespace fxl;

Q_DECLARE_METATYPE(std::string)

namespace {

QString corpusDir() { return QStringLiteral(FXLENS_CORPUS_DIR); }

std::string readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QByteArray b = f.readAll();
    return std::string(b.constData(), static_cast<size_t>(b.size()));
}

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

// FX graph payloads of a TORCH_TRACE log (torch_trace.md §2.2): the TAB-prefixed lines after an
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
    const std::string all = readFile(path);
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
            p.name = QDir(corpusDir()).relativeFilePath(path) + QLatin1Char(':') + QString::number(i + 1)
                + QLatin1Char(':') + name;
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

const Node& byName(const Graph& g, const char* name)
{
    NodeId id = g.findByName(name);
    if (id == kNoNode) throw std::runtime_error(std::string("no node ") + name);
    return g.node(id);
}

// Parses, prints, parses again: same graph, and printing is a fixpoint.
void checkRoundTrip(const Graph& g)
{
    const std::string printed = printReadable(g);
    Graph g2;
    try {
        g2 = parseFxText(printed, "<printed>");
    } catch (const InputError& e) {
        QFAIL(qPrintable(QStringLiteral("printed text does not parse: ") + QString::fromStdString(e.what())
                         + QStringLiteral("\n") + QString::fromStdString(printed.substr(0, 4000))));
    }
    std::string why;
    QVERIFY2(g.structurallyEqual(g2, &why), why.c_str());
    // gm.code (Plain) prints as print_readable text, whose signature is Flat
    const SignatureStyle want = g.signature == SignatureStyle::Plain ? SignatureStyle::Flat : g.signature;
    QCOMPARE(static_cast<int>(g2.signature), static_cast<int>(want));
    QCOMPARE(g2.pytreeArgNames, g.pytreeArgNames);
    QCOMPARE(g2.outputPytree, g.outputPytree);
    QCOMPARE(g2.outputIsList, g.outputIsList);
    QCOMPARE(g2.outputDescs, g.outputDescs);
    QCOMPARE(printReadable(g2), printed);
}

QString loadFixture(const char* name, std::string* text)
{
    *text = readFile(corpusDir() + QStringLiteral("/fx/") + QLatin1String(name));
    return text->empty() ? QStringLiteral("corpus file fx/%1 not found").arg(QLatin1String(name)) : QString();
}

}  // namespace

class TestFxText : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!QDir(corpusDir()).exists()) QSKIP("corpus directory FXLENS_CORPUS_DIR not found");
    }

    // ---------------------------------------------------------------- every corpus graph
    void corpusGraph_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("firstLine");
        QTest::addColumn<std::string>("text");
        const QString root = corpusDir();
        QStringList files;
        for (const QString& sub : {QStringLiteral("pytorch"), QStringLiteral("pytorch/large")})
            for (const QString& f :
                 QDir(root + QLatin1Char('/') + sub).entryList({QStringLiteral("*.code.py")}, QDir::Files, QDir::Name))
                files << sub + QLatin1Char('/') + f;
        for (const QString& f :
             QDir(root + QStringLiteral("/fx")).entryList({QStringLiteral("*.txt")}, QDir::Files, QDir::Name))
            files << QStringLiteral("fx/") + f;
        for (const QString& f : files) {
            const std::string text = readFile(root + QLatin1Char('/') + f);
            QTest::newRow(qPrintable(f)) << root + QLatin1Char('/') + f << 1 << text;
        }
        QDirIterator it(root + QStringLiteral("/tlparse"), {QStringLiteral("*.log"), QStringLiteral("*.txt")},
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
        for (const QString& f :
             QDir(corpusDir() + QStringLiteral("/fx")).entryList({QStringLiteral("*.txt")}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << corpusDir() + QStringLiteral("/fx/") + f;
    }
    void printMatchesOriginal()
    {
        QFETCH(QString, file);
        const std::string text = readFile(file);
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
        std::string text;
        QString missing = loadFixture("tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
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
        const QString path = corpusDir() + QStringLiteral("/pytorch/large/gpt2_deep640.joint.code.py");
        const std::string text = readFile(path);
        if (text.empty()) QSKIP("large corpus graph not found");
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

    // ---------------------------------------------------------------- documented examples
    void e1JointGraphExpanded()
    {
        std::string text;
        QString missing = loadFixture("tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "joint");
        QCOMPARE(g.className, std::string("inner_f"));
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Pytree));
        QCOMPARE(g.pytreeArgNames, (std::vector<std::string>{"primals", "tangents"}));
        QCOMPARE(g.placeholders().size(), size_t(7));
        QCOMPARE(byName(g, "primals_1").meta.desc, std::string("PlainAOTInput(idx=0)"));
        QCOMPARE(byName(g, "tangents_1").meta.desc, std::string("TangentAOTInput(output=PlainAOTOutput(idx=0))"));
        QCOMPARE(formatAnnotation(byName(g, "primals_1").val), std::string("f32[16, 10][10, 1]cuda:0"));
        QVERIFY(g.outputPytree);
        QVERIFY(g.outputIsList);
        QCOMPARE(g.outputDescs.size(), size_t(8));
        QCOMPARE(g.outputDescs[2], std::string("GradAOTOutput(grad_of=PlainAOTInput(idx=0))"));
        QCOMPARE(g.outputDescs[7], std::string("None"));
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.args[0].kind, Arg::Kind::List);
        QCOMPARE(out.args[0].items.size(), size_t(8));
        QVERIFY(out.args[0].items[4].isNone());
        QCOMPARE(g.node(out.args[0].items[2].node).name, std::string("permute_3"));

        const Node& permute = byName(g, "permute");
        QVERIFY(permute.isOp("aten.permute.default"));
        QCOMPARE(permute.args[1].kind, Arg::Kind::List);
        QCOMPARE(permute.args[1].items[0].i, int64_t(1));
        QVERIFY(permute.meta.source.file.size() > 20);
        QVERIFY(QString::fromStdString(permute.meta.source.file).endsWith(QLatin1String("test_provenance_tracing.py")));
        QCOMPARE(permute.meta.source.line, 79);
        QCOMPARE(permute.meta.source.function, std::string("forward"));
        QCOMPARE(permute.meta.source.code, std::string("x = self.fc1(x)"));
        QCOMPARE(byName(g, "relu").meta.source.line, 80);
        QCOMPARE(byName(g, "alias_1").meta.source.line, 80);  // a comment covers the nodes after it

        const Node& st = byName(g, "scalar_tensor");
        QCOMPARE(st.kwargs.size(), size_t(3));
        QCOMPARE(st.kwargs[0].first, std::string("dtype"));
        QCOMPARE(st.kwarg("dtype")->dtype, DType::F32);
        QCOMPARE(st.kwarg("layout")->kind, Arg::Kind::Layout);
        QCOMPARE(st.kwarg("layout")->s, std::string("strided"));
        QCOMPARE(st.kwarg("device")->kind, Arg::Kind::Device);
        QCOMPARE(st.kwarg("device")->s, std::string("cuda:0"));
        QCOMPARE(formatAnnotation(st.val), std::string("f32[][]cuda:0"));
        const Node& mul2 = byName(g, "mul_2");
        QCOMPARE(mul2.args[1].kind, Arg::Kind::Float);
        QCOMPARE(mul2.args[1].f, 0.7071067811865476);
        checkRoundTrip(g);
    }

    void e3ForwardExpandedSignature()
    {
        std::string text;
        QString missing = loadFixture("tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "fw");
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Expanded));
        QCOMPARE(g.placeholders().size(), size_t(6));
        QCOMPARE(byName(g, "primals_6").meta.desc, std::string("PlainAOTInput(idx=5)"));
        QVERIFY(!g.outputPytree);
        QVERIFY(!g.outputIsList);
        QCOMPARE(g.outputDescs,
                 (std::vector<std::string>{"PlainAOTOutput(idx=0)", "PlainAOTOutput(idx=1)",
                                           "SavedForBackwardsAOTOutput(idx=0)", "SavedForBackwardsAOTOutput(idx=1)",
                                           "SavedForBackwardsAOTOutput(idx=2)"}));
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.args[0].kind, Arg::Kind::Tuple);
        QCOMPARE(out.args[0].items[3].node, byName(g, "sigmoid").id);
        // a backward-graph placeholder without a descriptor keeps an empty one
        std::string bw;
        loadFixture("tlparse_v2.9dev_mlp_aot_backward_graph_expanded.txt", &bw);
        Graph b = parseFxText(bw, "bw");
        QCOMPARE(byName(b, "sigmoid").meta.desc, std::string());
        QCOMPARE(byName(b, "tangents_1").meta.desc, std::string("TangentAOTInput(output=PlainAOTOutput(idx=0))"));
        QCOMPARE(b.outputDescs.size(), size_t(6));
        checkRoundTrip(g);
        checkRoundTrip(b);
    }

    void e2PytreeDeclarationsAndPreamble()
    {
        std::string text;
        QString missing = loadFixture("entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "entangle");
        QCOMPARE(g.className, std::string("joint_helper"));
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Pytree));
        QCOMPARE(formatAnnotation(byName(g, "primals_4").val), std::string("b8[32, 1, 1024, 1024]"));
        QCOMPARE(byName(g, "primals_4").meta.desc, std::string());
        QVERIFY(g.outputPytree);
        QVERIFY(g.outputDescs.empty());
        // "# No stacktrace found for following nodes": nodes after it carry no source
        QVERIFY(byName(g, "clone").meta.source.empty());
        // custom namespaces
        bool apex = false;
        g.forEachNode([&](const Node& n) { apex = apex || n.target.rfind("apex.", 0) == 0; });
        QVERIFY(apex);
    }

    void e4CollectivesAndTuples()
    {
        std::string text;
        QString missing = loadFixture("tlparse_v2.9dev_collectives_aot_inference_graph.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "coll");
        const Node& vm = byName(g, "var_mean");
        QCOMPARE(vm.val.kind, ValueMeta::Kind::Unknown);  // tuple results print no annotation
        QCOMPARE(vm.kwarg("correction")->i, int64_t(0));
        QCOMPARE(vm.kwarg("keepdim")->b, true);
        const Node& gi = byName(g, "getitem");
        QVERIFY(gi.isOp("operator.getitem"));
        QCOMPARE(gi.args[0].node, vm.id);
        QCOMPARE(gi.args[1].i, int64_t(0));
        const Node& ar = byName(g, "all_reduce");
        QVERIFY(ar.isOp("_c10d_functional.all_reduce.default"));
        QCOMPARE(ar.args[1].s, std::string("sum"));
        QCOMPARE(ar.args[2].s, std::string("0"));
        QVERIFY(byName(g, "wait_tensor").isOp("_c10d_functional.wait_tensor.default"));
    }

    void e5DynamoGraph()
    {
        std::string text;
        QString missing = loadFixture("tlparse_v2.9dev_collectives_dynamo_output_graph.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "dynamo");
        const Node& p = g.node(g.placeholders()[1]);
        QCOMPARE(p.name, std::string("l_args_0_"));
        QCOMPARE(p.target, std::string("L_args_0_"));
        QCOMPARE(formatAnnotation(p.val), std::string("f16[1024, 1024][1024, 1]cuda:0"));
        const Node& sg = byName(g, "_set_grad_enabled");
        QVERIFY(sg.isOp("torch._C._set_grad_enabled"));
        QCOMPARE(sg.args[0].kind, Arg::Kind::Bool);
        QVERIFY(sg.meta.source.empty());
        const Node& a = byName(g, "a");
        QVERIFY(a.isOp("torch._C._nn.linear"));
        QVERIFY(a.args[2].isNone());
        QCOMPARE(a.meta.source.function, std::string("graph_two"));
        QCOMPARE(a.meta.source.line, 105);
        QVERIFY(byName(g, "_set_grad_enabled_1").meta.source.empty());
        QVERIFY(byName(g, "a_1").isOp("torch.nn.functional.silu"));
        // the Dynamo graph of the MLP: operator forms and torch-level calls
        std::string mlp;
        loadFixture("tlparse_v2.9dev_mlp_dynamo_output_graph.txt", &mlp);
        Graph m = parseFxText(mlp, "mlp");
        const Node& d = byName(m, "d");
        QVERIFY(d.isOp("operator.mul"));
        QCOMPARE(d.args[1].f, 3.14);
        QCOMPARE(byName(m, "x_1").kwarg("inplace")->b, false);
        // 2.4 graph: get_attr with an annotation
        std::string old;
        loadFixture("tlparse_v2.4dev_getattr_dynamo_output_graph.txt", &old);
        Graph o = parseFxText(old, "old");
        const Node& ga = byName(o, "l__self___param");
        QCOMPARE(ga.op, NodeOp::GetAttr);
        QCOMPARE(ga.target, std::string("L__self___param"));
        QCOMPARE(formatAnnotation(ga.val), std::string("f32[2][1]cpu"));
    }

    void e6InvokeSubgraph()
    {
        std::string text;
        QString missing = loadFixture("pytorch_test_invoke_subgraph_dynamo_graph.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "invoke");
        QCOMPARE(g.subgraphs.size(), size_t(1));
        const Graph* sub = g.subgraph("subgraph_0");
        QVERIFY(sub);
        QCOMPARE(sub->size(), size_t(9));
        const Node& s1 = byName(g, "subgraph_1");
        QCOMPARE(s1.op, NodeOp::GetAttr);
        QCOMPARE(s1.target, std::string("subgraph_0"));  // two nodes, one nested class
        const Node& inv = byName(g, "invoke_subgraph_1");
        QVERIFY(inv.isOp("higher_order.invoke_subgraph"));
        QCOMPARE(inv.args[0].node, s1.id);
        QCOMPARE(inv.args[1].s, std::string("subgraph_0"));
        const Node& addm = byName(*sub, "add_");
        QCOMPARE(addm.op, NodeOp::CallMethod);
        QCOMPARE(addm.target, std::string("add_"));
        QCOMPARE(addm.args.size(), size_t(2));
        QVERIFY(addm.users.empty());
        QVERIFY(byName(*sub, "add").isOp("operator.add"));
        QCOMPARE(byName(*sub, "sin").op, NodeOp::CallMethod);
        QVERIFY(byName(*sub, "mul").isOp("torch.mul"));

        std::string fw;
        loadFixture("pytorch_test_invoke_subgraph_partitioned_fw.txt", &fw);
        Graph f = parseFxText(fw, "fw");
        QVERIFY(f.subgraph("partitioned_fw_subgraph_0_0"));
        QCOMPARE(f.subgraph("partitioned_fw_subgraph_0_0")->placeholders().size(), size_t(3));
    }

    void flexAttentionNestedGraphs()
    {
        const QString log = corpusDir() + QStringLiteral("/tlparse/cache_hit_miss.log");
        std::vector<Payload> ps = graphPayloads(log);
        if (ps.empty()) QSKIP("cache_hit_miss.log not found");
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

    void e7SymbolicShapes()
    {
        std::string text;
        QString missing = loadFixture("pytorch_test_aotdispatch_twotensor_symbolic_fw.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "sym");
        const Node& p3 = byName(g, "primals_3");
        QCOMPARE(p3.val.kind, ValueMeta::Kind::SymInt);
        QCOMPARE(formatAnnotation(p3.val), std::string("Sym(s0)"));
        const Node& p1 = byName(g, "primals_1");
        QCOMPARE(p1.val.kind, ValueMeta::Kind::Tensor);
        QCOMPARE(p1.val.tensor.sizes.size(), size_t(2));
        QVERIFY(!p1.val.tensor.sizes[0].isConcrete());
        QCOMPARE(p1.val.tensor.sizes[1].str(), std::string("s1"));
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.args[0].items.size(), size_t(8));
        QCOMPARE(out.args[0].items[3].node, out.args[0].items[4].node);  // outputs may repeat
    }

    void e8UnbackedExportedProgram()
    {
        std::string text;
        QString missing = loadFixture("tlparse_v2.7dev_exported_program_unbacked_symints.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        DiagnosticList diags;
        Graph g = parseFxText(text, "ep", 1, &diags);
        QVERIFY(!diags.items.empty());  // the signature section is reported as skipped
        const Node& neg = byName(g, "neg");
        QVERIFY(neg.isOp("operator.neg"));
        QCOMPARE(formatAnnotation(neg.val), std::string("Sym(-u1)"));
        const Node& fd = byName(g, "floordiv");
        QVERIFY(fd.isOp("operator.floordiv"));
        QCOMPARE(fd.args[1].i, int64_t(3));
        QCOMPARE(byName(g, "add").val.kind, ValueMeta::Kind::SymInt);
        QCOMPARE(formatAnnotation(byName(g, "cat").val), std::string("f32[2*s0]"));
        const Node& sl = byName(g, "slice_1");
        QCOMPARE(sl.args[3].node, byName(g, "add").id);
        QCOMPARE(byName(g, "_local_scalar_dense").meta.source.code, std::string("a = x.item()"));
    }

    // Comment lines of newer versions: custom annotations, SAC tags, autograd_backward.
    void e9SacTagsAndAnnotations()
    {
        const std::string text =
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, embedding: \"f32[4, 4096]\", w: \"f32[4096]\"):\n"
            "        # Annotation: {'module_fqn': 'layers.0.attention_norm', 'fusion_class': 'decomposable', "
            "'is_fusible': True} "
            "recompute: PREFER_RECOMPUTE File: /x/torch/nn/modules/normalization.py:427 in forward, code: return "
            "F.rms_norm(x, "
            "self.normalized_shape, self.weight, self.eps)\n"
            "        _fused_rms_norm_default = torch.ops.aten._fused_rms_norm.default(embedding, [4096], w, 1e-05)\n"
            "        getitem = _fused_rms_norm_default[0]\n"
            "\n"
            "        # ac_graph_id: 6 - PREFER_RECOMPUTE File: /x/test_fused_attention.py:376 in sfdp_pattern_5_v2, "
            "code: attn_mask = torch.zeros(\n"
            "        mul = torch.ops.aten.mul.Tensor(getitem, 2)\n"
            "\n"
            "        # # recompute: MUST_SAVE File: /x/a.py:3 in f, code: y = x\n"
            "        mul_1 = torch.ops.aten.mul.Tensor(mul, 3)\n"
            "\n"
            "        # autograd_backward: True # Annotation: {'n': [1, 2.5, None], 'k': (1,)} recompute: "
            "MUST_RECOMPUTE File: /x/b.py:7, code: z\n"
            "        mul_2 = torch.ops.aten.mul.Tensor(mul_1, 4)\n"
            "\n"
            "        # No stacktrace found for following nodes\n"
            "        mul_3 = torch.ops.aten.mul.Tensor(mul_2, 5)\n"
            "        return (mul_3,)\n";
        Graph g = parseFxText(text, "e9");
        const Node& rms = byName(g, "_fused_rms_norm_default");
        QCOMPARE(rms.meta.recompute, Recompute::PreferRecompute);
        QVERIFY(!rms.meta.acGraphId);
        QCOMPARE(rms.meta.custom["module_fqn"].get<std::string>(), std::string("layers.0.attention_norm"));
        QCOMPARE(rms.meta.custom["is_fusible"].get<bool>(), true);
        QCOMPARE(rms.meta.source.line, 427);
        QCOMPARE(rms.meta.source.code,
                 std::string("return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)"));
        QCOMPARE(rms.args[3].f, 1e-05);
        QCOMPARE(byName(g, "getitem").meta.recompute, Recompute::PreferRecompute);
        const Node& mul = byName(g, "mul");
        QCOMPARE(mul.meta.acGraphId.value_or(-1), 6);
        QCOMPARE(mul.meta.recompute, Recompute::PreferRecompute);
        QVERIFY(mul.meta.custom.is_null());
        QCOMPARE(mul.meta.source.code, std::string("attn_mask = torch.zeros("));
        QCOMPARE(byName(g, "mul_1").meta.recompute, Recompute::MustSave);
        const Node& m2 = byName(g, "mul_2");
        QCOMPARE(m2.meta.autogradBackward.value_or(false), true);
        QCOMPARE(m2.meta.recompute, Recompute::MustRecompute);
        QCOMPARE(m2.meta.custom["n"][1].get<double>(), 2.5);
        QVERIFY(m2.meta.custom["n"][2].is_null());
        QCOMPARE(m2.meta.source.file, std::string("/x/b.py"));
        QCOMPARE(m2.meta.source.function, std::string());  // pre-2.4 "File: f:7, code: z" form
        QCOMPARE(m2.meta.source.code, std::string("z"));
        const Node& m3 = byName(g, "mul_3");
        QVERIFY(m3.meta.source.empty());
        QCOMPARE(m3.meta.recompute, Recompute::None);
        QVERIFY(m3.meta.custom.is_null());
        checkRoundTrip(g);
    }

    // 2.1-2.3: unquoted annotations; nested classes named after the child's class.
    void oldUnquotedAnnotations()
    {
        const std::string text =
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, arg0_1: f32[s0, 3]):\n"
            "        sym_size: Sym(s0) = torch.ops.aten.sym_size.int(arg0_1, 0)\n"
            "        gt: Sym(s0 > 4) = sym_size > 4;  sym_size = None\n"
            "        true_graph_0 = self.true_graph_0\n"
            "        false_graph_0 = self.false_graph_0\n"
            "        conditional: f32[s0, 3] = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [arg0_1]); "
            " gt = true_graph_0 = false_graph_0 = arg0_1 = None\n"
            "        return (conditional,)\n"
            "\n"
            "    class <lambda>(torch.nn.Module):\n"
            "        def forward(self, arg0_1: f32[s0, 3]):\n"
            "            cos: f32[s0, 3] = torch.ops.aten.cos.default(arg0_1)\n"
            "            sin: f32[s0, 3] = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None\n"
            "            add: f32[s0, 3] = torch.ops.aten.add.Tensor(cos, sin);  cos = sin = None\n"
            "            return add\n"
            "\n"
            "    class <lambda>(torch.nn.Module):\n"
            "        def forward(self, arg0_1: f32[s0, 3]):\n"
            "            sin: f32[s0, 3] = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None\n"
            "            return sin\n";
        Graph g = parseFxText(text, "old");
        QCOMPARE(formatAnnotation(byName(g, "arg0_1").val), std::string("f32[s0, 3]"));
        const Node& gt = byName(g, "gt");
        QCOMPARE(gt.val.kind, ValueMeta::Kind::SymBool);
        QVERIFY(gt.isOp("operator.gt"));
        QCOMPARE(g.subgraphs.size(), size_t(2));
        QVERIFY(g.subgraph("true_graph_0"));
        QVERIFY(g.subgraph("false_graph_0"));
        QCOMPARE(g.subgraph("true_graph_0")->size(), size_t(5));
        QCOMPARE(g.subgraph("false_graph_0")->size(), size_t(3));
        QCOMPARE(g.subgraph("false_graph_0")->className, std::string("<lambda>"));
        QCOMPARE(byName(g, "conditional").args[3].kind, Arg::Kind::List);
        checkRoundTrip(g);

        // pre-2.0 Python type annotations are kept verbatim
        const std::string typed = "class GraphModule(torch.nn.Module):\n"
                                  "    def forward(self, L_a_ : torch.Tensor, L_b_ : torch.Tensor):\n"
                                  "        l_a_ = L_a_\n"
                                  "        l_b_ = L_b_\n"
                                  "\n"
                                  "        # File: /root/dynami.py:9, code: return a + b\n"
                                  "        add = l_a_ + l_b_;  l_a_ = l_b_ = None\n"
                                  "        return (add,)\n";
        Graph t = parseFxText(typed, "typed");
        const Node& a = byName(t, "l_a_");
        QCOMPARE(a.typeExpr, std::string("torch.Tensor"));
        QCOMPARE(a.target, std::string("L_a_"));
        QCOMPARE(a.val.kind, ValueMeta::Kind::Unknown);
        QCOMPARE(byName(t, "add").meta.source.line, 9);
        checkRoundTrip(t);
    }

    // Every statement form of §2.4.
    void operatorForms()
    {
        const std::string text =
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, a: \"f32[4, 4]\", b: \"f32[4, 4]\", n: \"Sym(s0)\", *args, k = None):\n"
            "        add = a + b\n"
            "        neg = -a\n"
            "        pos = +a\n"
            "        invert = ~a\n"
            "        matmul = a @ b\n"
            "        sub = 1 - a\n"
            "        rsub = a - -2.5\n"
            "        pow_1 = a ** 2\n"
            "        truediv = a / b;  truediv = None\n"
            "        floordiv = n // 3\n"
            "        ge = n >= 0\n"
            "        eq = n == 1\n"
            "        getitem = args[0]\n"
            "        getitem_1 = a[(slice(None, 2, None), 0)]\n"
            "        getitem_2 = a[..., None]\n"
            "        a += b;  iadd = a\n"
            "        a[0] = b;  setitem = a\n"
            "        shape = a.shape\n"
            "        view = a.view(-1, 2)\n"
            "        new_empty = a.new_empty([], dtype = torch.int32)\n"
            "        linear = self.sub.mod(a)\n"
            "        layer = getattr(self.layers, \"0\")(b)\n"
            "        w = getattr(self.layers, \"0\").weight\n"
            "        c0 = self._tensor_constant0\n"
            "        ga = getattr(a, '0')\n"
            "        s = torch.sym_float(n)\n"
            "        nt = _operator_not_(k)\n"
            "        af = torch.ops.higher_order.auto_functionalized_v2(torch.ops.fsdp.split_with_sizes_copy.default, "
            "all_gather_output = a, _out_0_size = (2, 128), _all_bases = [b])\n"
            "        baz = torch.ops.test.baz(a)\n"
            "        return [add, neg, pos, invert, matmul, sub, rsub, pow_1, floordiv, ge, eq, getitem, getitem_1, "
            "getitem_2, iadd, "
            "setitem, shape, view, new_empty, linear, layer, w, c0, ga, s, nt, af, baz]\n";
        Graph g = parseFxText(text, "ops");
        auto is = [&](const char* name, const char* target) { return byName(g, name).isOp(target); };
        QVERIFY(is("add", "operator.add"));
        QVERIFY(is("neg", "operator.neg"));
        QVERIFY(is("pos", "operator.pos"));
        QVERIFY(is("invert", "operator.invert"));
        QVERIFY(is("matmul", "operator.matmul"));
        QVERIFY(is("sub", "operator.sub"));
        QCOMPARE(byName(g, "sub").args[0].i, int64_t(1));
        QCOMPARE(byName(g, "rsub").args[1].f, -2.5);
        QVERIFY(is("pow_1", "operator.pow"));
        QVERIFY(is("truediv", "operator.truediv"));
        QVERIFY(is("floordiv", "operator.floordiv"));
        QVERIFY(is("ge", "operator.ge"));
        QVERIFY(is("eq", "operator.eq"));
        QVERIFY(is("getitem", "operator.getitem"));
        QCOMPARE(byName(g, "getitem").args[0].node, byName(g, "args").id);
        QCOMPARE(byName(g, "args").target, std::string("*args"));
        QVERIFY(byName(g, "k").placeholderDefault.has_value());
        const Arg& idx = byName(g, "getitem_1").args[1];
        QCOMPARE(idx.kind, Arg::Kind::Tuple);
        QCOMPARE(idx.items[0].kind, Arg::Kind::Slice);
        QVERIFY(idx.items[0].items[0].isNone());
        QCOMPARE(idx.items[0].items[1].i, int64_t(2));
        const Arg& idx2 = byName(g, "getitem_2").args[1];
        QCOMPARE(idx2.kind, Arg::Kind::Tuple);
        QCOMPARE(idx2.items[0].kind, Arg::Kind::Ellipsis);
        QVERIFY(is("iadd", "operator.iadd"));
        QCOMPARE(byName(g, "iadd").args[0].node, byName(g, "a").id);
        QVERIFY(is("setitem", "operator.setitem"));
        QCOMPARE(byName(g, "setitem").args.size(), size_t(3));
        QVERIFY(is("shape", "builtins.getattr"));
        QCOMPARE(byName(g, "shape").args[1].s, std::string("shape"));
        QCOMPARE(byName(g, "view").op, NodeOp::CallMethod);
        QCOMPARE(byName(g, "view").args[1].i, int64_t(-1));
        QCOMPARE(byName(g, "new_empty").kwarg("dtype")->dtype, DType::I32);
        QCOMPARE(byName(g, "linear").op, NodeOp::CallModule);
        QCOMPARE(byName(g, "linear").target, std::string("sub.mod"));
        QCOMPARE(byName(g, "layer").op, NodeOp::CallModule);
        QCOMPARE(byName(g, "layer").target, std::string("layers.0"));
        QCOMPARE(byName(g, "w").op, NodeOp::GetAttr);
        QCOMPARE(byName(g, "w").target, std::string("layers.0.weight"));
        QCOMPARE(byName(g, "c0").target, std::string("_tensor_constant0"));
        QVERIFY(is("ga", "builtins.getattr"));
        QVERIFY(is("s", "torch.sym_float"));
        QVERIFY(is("nt", "_operator_not_"));
        const Node& af = byName(g, "af");
        QVERIFY(af.isOp("higher_order.auto_functionalized_v2"));
        QCOMPARE(af.args[0].kind, Arg::Kind::Op);
        QCOMPARE(af.args[0].s, std::string("fsdp.split_with_sizes_copy.default"));
        QCOMPARE(af.kwarg("_out_0_size")->kind, Arg::Kind::Tuple);
        QVERIFY(is("baz", "test.baz"));
        QVERIFY(g.outputIsList);
        const std::string printed = printReadable(g);
        QVERIFY(printed.find("        a += b;  iadd = a\n") != std::string::npos);
        QVERIFY(printed.find("        a[0] = b;  setitem = a") != std::string::npos);
        QVERIFY(printed.find("layer = getattr(self.layers, \"0\")(b)") != std::string::npos);
        QVERIFY(printed.find("neg = -a") != std::string::npos);
        QVERIFY(printed.find("baz = torch.ops.test.baz(a)") != std::string::npos);
        checkRoundTrip(g);
    }

    // A call target under "builtins." that is not a builtin function keeps its prefix when printed
    // (found by fuzz_fx_text: "builtins.frob" printed as "frob" and came back as "frob").
    void builtinsPrefixRoundTrip()
    {
        const std::string text = "class GraphModule(torch.nn.Module):\n"
                                 "    def forward(self, a: \"f32[4]\"):\n"
                                 "        frob = builtins.frob(a)\n"
                                 "        n = len(a)\n"
                                 "        return [frob, n]\n";
        Graph g = parseFxText(text, "builtins");
        QVERIFY(byName(g, "frob").isOp("builtins.frob"));
        QVERIFY(byName(g, "n").isOp("builtins.len"));
        const std::string printed = printReadable(g);
        QVERIFY2(printed.find("frob = builtins.frob(a)") != std::string::npos, printed.c_str());
        QVERIFY2(printed.find("n = len(a)") != std::string::npos, printed.c_str());
        checkRoundTrip(g);
    }

    // Floats print as Python's repr (shortest round-trip digits), whatever the C locale says;
    // the expected strings were printed by python3's repr() for the same bit patterns.
    void pythonFloatRepr_data()
    {
        QTest::addColumn<quint64>("bits");
        QTest::addColumn<QString>("repr");
        QTest::newRow("0.1") << quint64(0x3fb999999999999aULL) << QStringLiteral("0.1");
        QTest::newRow("1e+16") << quint64(0x4341c37937e08000ULL) << QStringLiteral("1e+16");
        QTest::newRow("1000000000000000.0") << quint64(0x430c6bf526340000ULL) << QStringLiteral("1000000000000000.0");
        QTest::newRow("1.2345678901234568e+17")
            << quint64(0x437b69b4ba630f35ULL) << QStringLiteral("1.2345678901234568e+17");
        QTest::newRow("0.0001") << quint64(0x3f1a36e2eb1c432dULL) << QStringLiteral("0.0001");
        QTest::newRow("1e-05") << quint64(0x3ee4f8b588e368f1ULL) << QStringLiteral("1e-05");
        QTest::newRow("0.00012345") << quint64(0x3f202e4b6ce5dc68ULL) << QStringLiteral("0.00012345");
        QTest::newRow("-2.5") << quint64(0xc004000000000000ULL) << QStringLiteral("-2.5");
        QTest::newRow("1.0") << quint64(0x3ff0000000000000ULL) << QStringLiteral("1.0");
        QTest::newRow("3e+300") << quint64(0x7e51eb2d66005835ULL) << QStringLiteral("3e+300");
        QTest::newRow("5e-324") << quint64(0x0000000000000001ULL) << QStringLiteral("5e-324");
        QTest::newRow("1.7976931348623157e+308")
            << quint64(0x7fefffffffffffffULL) << QStringLiteral("1.7976931348623157e+308");
        QTest::newRow("0.3") << quint64(0x3fd3333333333333ULL) << QStringLiteral("0.3");
        QTest::newRow("0.6666666666666666") << quint64(0x3fe5555555555555ULL) << QStringLiteral("0.6666666666666666");
        QTest::newRow("-1e-07") << quint64(0xbe7ad7f29abcaf48ULL) << QStringLiteral("-1e-07");
        QTest::newRow("100.0") << quint64(0x4059000000000000ULL) << QStringLiteral("100.0");
        QTest::newRow("1e+22") << quint64(0x4480f0cf064dd592ULL) << QStringLiteral("1e+22");
        QTest::newRow("12345.678") << quint64(0x40c81cd6c8b43958ULL) << QStringLiteral("12345.678");
        QTest::newRow("-0.0") << quint64(0x8000000000000000ULL) << QStringLiteral("-0.0");
        QTest::newRow("inf") << quint64(0x7ff0000000000000ULL) << QStringLiteral("inf");
        QTest::newRow("-inf") << quint64(0xfff0000000000000ULL) << QStringLiteral("-inf");
    }
    void pythonFloatRepr()
    {
        QFETCH(quint64, bits);
        QFETCH(QString, repr);
        double v;
        std::memcpy(&v, &bits, sizeof v);
        QCOMPARE(QString::fromStdString(fxl::pythonFloatRepr(v)), repr);
        // a locale with a decimal comma must not change the text (when the machine has one)
        const char* comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
        for (const char* name : comma) {
            if (!std::setlocale(LC_NUMERIC, name)) continue;
            const std::string underComma = fxl::pythonFloatRepr(v);
            std::setlocale(LC_NUMERIC, "C");
            QCOMPARE(QString::fromStdString(underComma), repr);
            break;
        }
    }

    // Argument values: exact ints and floats, strings, torch objects.
    void argumentValues()
    {
        const std::string text =
            "def forward(self, x):\n"
            "    foo = torch.ops.aten.foo.default(x, 9223372036854775807, -9223372036854775808, 1e-05, 0.1, -0.0, 3.0, "
            "inf, -inf, nan, 'a\\'b', \"it's\", '\\n\\t\\\\\\x41\\u00e9', [1, (2,), ()], {'k': None, 'j': [True, "
            "False]}, "
            "torch.float32, torch.bfloat16, torch.float8_e4m3fn, device(type='cuda', index=0), device(type='cpu'), "
            "torch.strided, "
            "torch.contiguous_format, torch.channels_last, torch.ops.fsdp.split_with_sizes_copy.default, slice(None, "
            "2, None), ..., "
            "123456789012345678901234567890, 2.5e-300, 1.7976931348623157e+308, 5e-324, torch.Tensor(size=[2], "
            "dtype=float32), "
            "MyEnum.VALUE, 'é')\n"
            "    return foo\n";
        Graph g = parseFxText(text, "args");
        const Node& foo = byName(g, "foo");
        const auto& a = foo.args;
        QCOMPARE(a.size(), size_t(33));
        QCOMPARE(a[1].i, INT64_MAX);
        QCOMPARE(a[2].i, INT64_MIN);
        QCOMPARE(a[3].f, 1e-05);
        QCOMPARE(a[4].f, 0.1);
        QVERIFY(a[5].f == 0.0 && std::signbit(a[5].f));
        QCOMPARE(a[6].kind, Arg::Kind::Float);
        QVERIFY(std::isinf(a[7].f) && a[7].f > 0);
        QVERIFY(std::isinf(a[8].f) && a[8].f < 0);
        QVERIFY(std::isnan(a[9].f));
        QCOMPARE(a[10].s, std::string("a'b"));
        QCOMPARE(a[11].s, std::string("it's"));
        QCOMPARE(a[12].s, std::string("\n\t\\A\xc3\xa9"));
        QCOMPARE(a[13].kind, Arg::Kind::List);
        QCOMPARE(a[13].items[1].kind, Arg::Kind::Tuple);
        QCOMPARE(a[13].items[1].items.size(), size_t(1));
        QCOMPARE(a[13].items[2].items.size(), size_t(0));
        QCOMPARE(a[14].kind, Arg::Kind::Dict);
        QCOMPARE(a[14].dict[1].second.items[0].b, true);
        QCOMPARE(a[15].dtype, DType::F32);
        QCOMPARE(a[16].dtype, DType::BF16);
        QCOMPARE(a[17].dtype, DType::F8E4M3FN);
        QCOMPARE(a[18].s, std::string("cuda:0"));
        QCOMPARE(a[19].s, std::string("cpu"));
        QCOMPARE(a[20].kind, Arg::Kind::Layout);
        QCOMPARE(a[21].kind, Arg::Kind::MemoryFormat);
        QCOMPARE(a[22].s, std::string("channels_last"));
        QCOMPARE(a[23].kind, Arg::Kind::Op);
        QCOMPARE(a[24].kind, Arg::Kind::Slice);
        QCOMPARE(a[25].kind, Arg::Kind::Ellipsis);
        QCOMPARE(a[26].kind, Arg::Kind::Raw);  // beyond int64: kept as written
        QCOMPARE(a[26].s, std::string("123456789012345678901234567890"));
        QCOMPARE(a[27].f, 2.5e-300);
        QCOMPARE(a[28].f, 1.7976931348623157e+308);
        QCOMPARE(a[29].f, 5e-324);
        QCOMPARE(a[30].kind, Arg::Kind::Raw);
        QCOMPARE(a[30].s, std::string("torch.Tensor(size=[2], dtype=float32)"));
        QCOMPARE(a[31].s, std::string("MyEnum.VALUE"));
        QCOMPARE(a[32].s, std::string("\xc3\xa9"));
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Plain));
        checkRoundTrip(g);
        // floats print back bit-exactly
        const std::string printed = printReadable(g);
        QVERIFY(printed.find("1e-05, 0.1, -0.0, 3.0, inf, -inf, nan") != std::string::npos);
        QVERIFY(printed.find("device(type='cuda', index=0), device(type='cpu')") != std::string::npos);
    }

    // gm.code of exported modules and the boxed calling convention.
    void pytreeAndBoxedCode()
    {
        const std::string code = "\n\n\ndef forward(self, x):\n"
                                 "    x, = fx_pytree.tree_flatten_spec(([x], {}), self._in_spec)\n"
                                 "    _guards_fn = self._guards_fn(x);  _guards_fn = None\n"
                                 "    add = torch.ops.aten.add.Tensor(x, 1);  x = None\n"
                                 "    submod_4 = self.submod_2\n"
                                 "    add_1 = torch.ops.higher_order.wrap_with_set_grad_enabled(False, submod_4, add); "
                                 " submod_4 = add = None\n"
                                 "    getitem = add_1[0];  add_1 = None\n"
                                 "    sub = torch.ops.aten.sub.Tensor(getitem, 1)\n"
                                 "    return pytree.tree_unflatten((getitem, sub), self._out_spec)\n"
                                 "    ";
        Graph g = parseFxText(code, "export");
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Pytree));
        QCOMPARE(g.pytreeArgNames, std::vector<std::string>{"x"});
        QCOMPARE(g.placeholders().size(), size_t(1));
        QCOMPARE(byName(g, "_guards_fn").op, NodeOp::CallModule);
        QVERIFY(g.outputPytree);
        QVERIFY(!g.outputIsList);
        QCOMPARE(g.size(), size_t(8));
        checkRoundTrip(g);

        const std::string boxed = "def forward(self, args_list):\n"
                                  "    args_iter = iter(args_list)\n"
                                  "    arg0_1 = next(args_iter)\n"
                                  "    arg1_1 = next(args_iter)\n"
                                  "    args_list.clear()\n"
                                  "    mul = torch.ops.aten.mul.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None\n"
                                  "    return (mul,)\n";
        Graph b = parseFxText(boxed, "boxed");
        QCOMPARE(static_cast<int>(b.signature), static_cast<int>(SignatureStyle::Boxed));
        QCOMPARE(b.placeholders().size(), size_t(2));
        checkRoundTrip(b);
        // annotated vals survive the boxed form too
        byName(b, "arg0_1");
        Graph b2 = b.clone();
        b2.node(b2.findByName("arg0_1")).val = parseAnnotation("f32[3]");
        checkRoundTrip(b2);
    }

    void printOptions()
    {
        std::string text;
        QString missing = loadFixture("tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt", &text);
        if (!missing.isEmpty()) QSKIP(qPrintable(missing));
        Graph g = parseFxText(text, "joint");
        PrintOptions bare;
        bare.annotations = false;
        bare.comments = false;
        bare.deletions = false;
        const std::string printed = printReadable(g, bare);
        QVERIFY(printed.find('#') == std::string::npos);
        QVERIFY(printed.find("= None") == std::string::npos);
        QVERIFY(printed.find("f32[") == std::string::npos);
        Graph g2 = parseFxText(printed, "bare");
        QCOMPARE(g2.size(), g.size());
        QCOMPARE(byName(g2, "addmm").args.size(), size_t(3));
    }

    // Windows line ends, a byte order mark, an annotation the meta parser does not know.
    void crlfBomAndUnknownAnnotation()
    {
        const std::string text = "\xEF\xBB\xBF"
                                 "class G(torch.nn.Module):\r\n"
                                 "    def forward(self, x: \"q32[8]\"):\r\n"
                                 "        # File: /a.py:1 in f, code: y = x.foo()\r\n"
                                 "        y: \"f32[8][1]cpu\" = x.foo('a\\\r\nb');  x = None\r\n"
                                 "        return (y,)\r\n";
        DiagnosticList diags;
        Graph g = parseFxText(text, "crlf", 1, &diags);
        QCOMPARE(g.className, std::string("G"));
        QCOMPARE(byName(g, "y").meta.source.code, std::string("y = x.foo()"));
        QCOMPARE(byName(g, "y").args[1].s, std::string("ab"));  // backslash-newline continues the literal
        QCOMPARE(formatAnnotation(byName(g, "y").val), std::string("f32[8][1]cpu"));
        QCOMPARE(byName(g, "x").val.kind, ValueMeta::Kind::Opaque);
        QCOMPARE(byName(g, "x").val.opaqueText, std::string("q32[8]"));
        QCOMPARE(diags.items.size(), size_t(1));
        QCOMPARE(diags.items[0].severity, Severity::Warning);
        QCOMPARE(diags.items[0].line, 2);
        QCOMPARE(diags.items[0].column, 27);
        checkRoundTrip(g);
    }

    // TORCH_TRACE payloads: locations refer to the log file.
    void payloadLocations()
    {
        const std::string payload = "class GraphModule(torch.nn.Module):\n"
                                    "    def forward(self, x: \"f32[2]\"):\n"
                                    "        y = torch.ops.aten.sin.default(q)\n"
                                    "        return (y,)\n";
        try {
            parseFxText(payload, "trace.log", 41, nullptr, 1);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().file, std::string("trace.log"));
            QCOMPARE(e.diagnostic().line, 43);
            QCOMPARE(e.diagnostic().column, 41);  // 40 in the payload + the TAB
        }
    }

    // ---------------------------------------------------------------- malformed inputs
    void malformed_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        auto addMalformed = [](const char* name, const std::string& text, int line, int column, const char* message) {
            QTest::newRow(name) << text << line << column << QString::fromUtf8(message);
        };
        addMalformed("undefined name in arguments",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y: \"f32[2]\" = torch.ops.aten.sin.default(z)\n        return (y,)\n",
                                 144),
                     3, 50, "undefined name 'z'");
        addMalformed("undefined name in return",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y: \"f32[2]\" = torch.ops.aten.sin.default(x)\n        return (y, w)\n",
                                 146),
                     4, 20, "undefined name 'w'");
        addMalformed(
            "duplicate node name",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                "torch.ops.aten.sin.default(x)\n        y = torch.ops.aten.cos.default(x)\n        return (y,)\n",
                176),
            4, 9, "duplicate node name 'y'");
        addMalformed("duplicate parameter",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\", x: "
                                 "\"f32[2]\"):\n        return (x,)\n",
                                 105),
                     2, 36, "duplicate parameter 'x'");
        addMalformed("bracket never closed",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.cat.default([x, x]\n        return (y,)\n",
                                 138),
                     3, 39, "'(' was never closed");
        addMalformed("mismatched closing bracket",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.cat.default([x, x)\n        return (y,)\n",
                                 138),
                     3, 45, "does not match '['");
        addMalformed(
            "unexpected indent",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                "torch.ops.aten.sin.default(x)\n            z = torch.ops.aten.cos.default(y)\n        return (z,)\n",
                180),
            4, 13, "unexpected indent");
        addMalformed(
            "unindent mismatch",
            std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                        "torch.ops.aten.sin.default(x)\n      z = torch.ops.aten.cos.default(y)\n        return (z,)\n",
                        174),
            4, 7, "unindent does not match");
        addMalformed(
            "invalid UTF-8 in a comment",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        # File: /tmp/x\xc3"
                "\xa9"
                "y.py:1 in f, code: \xff"
                "\n        return (x,)\n",
                137),
            3, 43, "invalid UTF-8");
        addMalformed("unterminated string",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.add.default(x, 'abc)\n        return (y,)\n",
                                 140),
                     3, 43, "unterminated string");
        addMalformed("statement after return",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "return (x,)\n        y = torch.ops.aten.sin.default(x)\n",
                                 134),
                     4, 9, "statement after 'return'");
        addMalformed("no return",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x)\n",
                                 114),
                     2, 5, "no 'return'");
        addMalformed(
            "class header without colon",
            std::string("class GraphModule(torch.nn.Module)\n    def forward(self, x):\n        return (x,)\n", 81), 1,
            35, "expected ':'");
        addMalformed(
            "tab in indentation",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n\t        return (x,)\n",
                93),
            3, 1, "tab character");
        addMalformed("unexpected character",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x) $ 2\n        return (y,)\n",
                                 138),
                     3, 43, "unexpected character '$'");
        addMalformed("empty text", std::string("", 0), 1, 1, "no graph found");
        addMalformed("positional after keyword",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sum.dim_IntList(x, dim = [0], True)\n        return (y,)\n",
                                 155),
                     3, 58, "positional argument follows keyword argument");
        addMalformed("truncated hex escape",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.add.default(x, 'a\\x4')\n        return (y,)\n",
                                 142),
                     3, 45, "truncated \\x escape");
        addMalformed("missing value",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x, , x)\n        return (y,)\n",
                                 139),
                     3, 43, "expected a value");
        addMalformed("expression statement",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "torch.ops.aten.sin.default(x)\n        return (x,)\n",
                                 130),
                     3, 14, "expected '='");
        addMalformed("unclosed unquoted annotation",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, arg0_1: f32[s0, 3):\n     "
                                 "   return (arg0_1,)\n",
                                 103),
                     2, 40, "does not match '['");
        addMalformed(
            "NUL byte",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        return (x,)\0"
                "\n",
                93),
            3, 20, "NUL byte");
        addMalformed(
            "nesting too deep",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                "torch.ops.aten.foo.default([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
                "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
                "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])\n        return (y,)\n",
                555),
            3, 240, "nested too deeply");
        addMalformed("missing forward body",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x):\nclass "
                                 "Other(torch.nn.Module):\n    pass\n",
                                 101),
                     3, 1, "expected an indented forward body");
        addMalformed("operator without operand",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = x + \n        return (y,)\n",
                                 109),
                     3, 17, "expected a value");
        addMalformed("bad deletion list",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x);  x = 3\n        return (y,)\n",
                                 142),
                     3, 49, "deletion list");
        addMalformed("garbage at module level", std::string("print(1 +)\n", 11), 1, 1, "expected 'class' or 'def'");
    }

    void malformed()
    {
        QFETCH(std::string, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, message);
        try {
            Graph g = parseFxText(text, "bad.py");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            const Diagnostic& d = e.diagnostic();
            QCOMPARE(d.file, std::string("bad.py"));
            QVERIFY2(QString::fromStdString(d.message).contains(message), d.message.c_str());
            QCOMPARE(d.line, line);
            QCOMPARE(d.column, column);
        }
    }

    // Summary comments alone: the forms of §2.7.
    void summaryComments()
    {
        NodeMeta m;
        QVERIFY(parseSummaryComment(" # File: /a/b.py:12 in fn, code: x = y  # note", m));
        QCOMPARE(m.source.file, std::string("/a/b.py"));
        QCOMPARE(m.source.line, 12);
        QCOMPARE(m.source.code, std::string("x = y  # note"));
        NodeMeta c;
        QVERIFY(parseSummaryComment("#{ Annotation: {'a': 1}} File: C:/w/x.py:3 in <lambda>, code: q", c));
        QCOMPARE(c.custom["a"].get<int>(), 1);
        QCOMPARE(c.source.file, std::string("C:/w/x.py"));
        QCOMPARE(c.source.function, std::string("<lambda>"));
        NodeMeta n;
        QVERIFY(!parseSummaryComment("# graph id: 139869766265856", n));
        QVERIFY(!parseSummaryComment("# Copyright (c) 2025", n));
        NodeMeta t;
        QVERIFY(parseSummaryComment(
            "# Annotation: {'x': 'truncated val...', 'y': <object at 0x1>} No stacktrace found for following nodes",
            t));
        QVERIFY(t.custom.is_string());  // not a Python literal: kept as text
        QCOMPARE(formatSummaryComment(t),
                 std::string("# Annotation: {'x': 'truncated val...', 'y': <object at 0x1>} No stacktrace found for "
                             "following nodes"));
        QCOMPARE(formatSummaryComment(NodeMeta{}), std::string("# No stacktrace found for following nodes"));
    }
};

QTEST_APPLESS_MAIN(TestFxText)
#include "test_fx_text.moc"
