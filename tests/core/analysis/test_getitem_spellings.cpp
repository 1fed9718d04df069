// FX prints a tuple element access as "operator.getitem" or, in newer PyTorch, as
// "_operator.getitem" (the C module `operator` re-exports). Both are one function: every core
// analysis must give the same results for a graph written in either spelling. Every test
// function runs on every graph of initTestCase_data(): a small hand-written graph with
// tuple and list outputs, and corpus graphs (FX code and a graph listing) with their meta.
#include <QRegularExpression>
#include <QtTest>

#include <filesystem>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/graph_stats.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/verify.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/fx/graph_listing.hpp"
#include "core/formats/sidecar.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_getitem_spellings {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");
using fxltest::readFile;

const char* kTupleOps = "class GraphModule(torch.nn.Module):\n"
                        "    def forward(self, x: \"f32[4, 8][8, 1]cpu\", w: \"f32[8][1]cpu\", b: \"f32[8][1]cpu\"):\n"
                        "        native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [8], w, b, 1e-05)\n"
                        "        getitem: \"f32[4, 8][8, 1]cpu\" = native_layer_norm[0]\n"
                        "        getitem_1: \"f32[4, 1][1, 1]cpu\" = native_layer_norm[1]\n"
                        "        getitem_2: \"f32[4, 1][1, 1]cpu\" = native_layer_norm[2];  native_layer_norm = None\n"
                        "        split = torch.ops.aten.split.Tensor(getitem, 4, 1)\n"
                        "        getitem_3: \"f32[4, 4][8, 1]cpu\" = split[0]\n"
                        "        getitem_4: \"f32[4, 4][8, 1]cpu\" = split[1];  split = None\n"
                        "        mul: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.mul.Tensor(getitem_3, getitem_4)\n"
                        "        sum_1: \"f32[][]cpu\" = torch.ops.aten.sum.default(mul)\n"
                        "        return (sum_1, getitem_1, getitem_2)\n";

std::string replaceAll(std::string s, const std::string& from, const std::string& to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// Getitem nodes spelled `target`, nested graphs included.
int countTarget(const Graph& g, const std::string& target)
{
    int n = 0;
    g.forEachNode([&](const Node& node) { n += node.op == NodeOp::CallFunction && node.target == target; });
    for (const auto& [name, sub] : g.subgraphs) n += countTarget(*sub, target);
    return n;
}

// Rewrites every getitem of `g` (nested graphs included) to "_operator.getitem".
void useUnderscoredSpelling(Graph& g)
{
    g.forEachNodeMut([](Node& n) {
        if (n.isGetitem()) n.target = "_operator.getitem";
    });
    for (auto& [name, sub] : g.subgraphs) useUnderscoredSpelling(*sub);
}

// The graph of the current row in both spellings.
struct Spellings
{
    Graph plain;  // operator.getitem
    Graph underscored;  // _operator.getitem
};

enum class Origin
{
    Text,  // kTupleOps
    CorpusCode,  // a .joint.code.py with its meta.json; rewritten in memory
    CorpusListing,  // a .joint.graph.txt with its meta.json; rewritten in the text
};

Spellings loadSpellings(Origin origin, const QString& caseName)
{
    Spellings s;
    DiagnosticList diags;
    const fs::path meta = kPytorch / (caseName.toStdString() + ".meta.json");
    switch (origin) {
    case Origin::Text:
        s.plain = parseFxText(kTupleOps, "tuple_ops.py");
        s.underscored = s.plain.clone();
        useUnderscoredSpelling(s.underscored);
        return s;
    case Origin::CorpusCode: {
        const fs::path file = kPytorch / (caseName.toStdString() + ".joint.code.py");
        s.plain = parseFxText(readFile(file), file.string());
        attachSidecarMeta(s.plain, meta.string(), diags);
        s.underscored = s.plain.clone();
        useUnderscoredSpelling(s.underscored);
        return s;
    }
    case Origin::CorpusListing: {
        // the listing loader reads the spelling from the text, as a newer PyTorch prints it
        const fs::path file = kPytorch / (caseName.toStdString() + ".joint.graph.txt");
        const std::string text = readFile(file);
        s.plain = parseGraphListing(text, file.string(), diags);
        s.underscored = parseGraphListing(replaceAll(text, "[target=operator.getitem]", "[target=_operator.getitem]"),
                                          file.string(), diags);
        attachSidecarMeta(s.plain, meta.string(), diags);
        attachSidecarMeta(s.underscored, meta.string(), diags);
        return s;
    }
    }
    return s;
}

QStringList problemTexts(const std::vector<Problem>& problems)
{
    QStringList out;
    for (const Problem& p : problems) out << QString::fromStdString(p.format());
    return out;
}

// The histogram with getitem under one name: the histogram lists targets as the file spells
// them, and the two spellings must count alike.
std::map<std::string, int64_t> histogram(const GraphStats& s)
{
    std::map<std::string, int64_t> h;
    for (const OpCount& c : s.opHistogram) h[OpRegistry::normalizeTarget(c.target)] += c.count;
    return h;
}

}  // namespace

class TestGetitemSpellings : public QObject
{
    Q_OBJECT

    Spellings graphs;

private slots:
    void initTestCase_data()
    {
        QTest::addColumn<int>("origin");
        QTest::addColumn<QString>("caseName");
        QTest::newRow("tuple and list outputs") << int(Origin::Text) << QString();
        QTest::newRow("llama_tiny joint code") << int(Origin::CorpusCode) << QStringLiteral("llama_tiny");
        QTest::newRow("gpt2_tiny joint code") << int(Origin::CorpusCode) << QStringLiteral("gpt2_tiny");
        QTest::newRow("llama_tiny joint listing") << int(Origin::CorpusListing) << QStringLiteral("llama_tiny");
    }

    void init()
    {
        QFETCH_GLOBAL(int, origin);
        QFETCH_GLOBAL(QString, caseName);
        if (Origin(origin) != Origin::Text) FXL_REQUIRE_CORPUS(kPytorch / (caseName.toStdString() + ".meta.json"));
        graphs = loadSpellings(Origin(origin), caseName);
        // the rows really hold both spellings, and as many getitems of each
        const int plain = countTarget(graphs.plain, "operator.getitem");
        QVERIFY(plain > 0);
        QCOMPARE(countTarget(graphs.plain, "_operator.getitem"), 0);
        QCOMPARE(countTarget(graphs.underscored, "_operator.getitem"), plain);
        QCOMPARE(countTarget(graphs.underscored, "operator.getitem"), 0);
    }

    void graphStats()
    {
        const GraphStats a = computeGraphStats(graphs.plain);
        const GraphStats b = computeGraphStats(graphs.underscored);
        QCOMPARE(b.nodeCount, a.nodeCount);
        QCOMPARE(b.totalNodeCount, a.totalNodeCount);
        QCOMPARE(b.nodesByKind, a.nodesByKind);
        QCOMPARE(histogram(b), histogram(a));
        QCOMPARE(b.parameterNames, a.parameterNames);
        QCOMPARE(b.parameterBytes, a.parameterBytes);
        QVERIFY(a.activationTensors > 0);
        QCOMPARE(b.activationTensors, a.activationTensors);
        QCOMPARE(b.activationBytes, a.activationBytes);
        QCOMPARE(b.activationsWithoutMeta, a.activationsWithoutMeta);
    }

    void diffUnchanged()
    {
        const GraphDiff d = diffGraphs(graphs.plain, graphs.underscored);
        QVERIFY(d.identical());
        const DiffCounts c = d.totalCounts();
        QCOMPARE(c.unchanged, graphs.plain.size());
        QCOMPARE(c.changed, size_t(0));
        QCOMPARE(c.renamed, size_t(0));
        QCOMPARE(c.rewired, size_t(0));
        for (NodeId id : graphs.plain.order())
            QCOMPARE(graphs.underscored.node(d.matchOfA(id)).name, graphs.plain.node(id).name);
    }

    // The text of a diff between the two spellings is the text of a graph against itself.
    void diffText()
    {
        DiffTextOptions o;
        o.context = -1;
        const Graph self = graphs.plain.clone();
        const std::string same = diffToText(diffGraphs(graphs.plain, self), graphs.plain, self, o);
        const std::string spellings =
            diffToText(diffGraphs(graphs.plain, graphs.underscored), graphs.plain, graphs.underscored, o);
        QCOMPARE(QString::fromStdString(spellings), QString::fromStdString(same));
        // the getitems are in the text, as x[i]
        static const QRegularExpression getitemLine(QStringLiteral("getitem[_0-9]*(: \"[^\"]*\")? = \\w+\\[\\d+\\]"));
        QVERIFY(QString::fromStdString(same).contains(getitemLine));
    }

    void shapePropagation()
    {
        Graph a = graphs.plain.clone();
        Graph b = graphs.underscored.clone();
        ShapePropOptions o;
        const ShapePropResult ra = propagateShapes(a, o);
        const ShapePropResult rb = propagateShapes(b, o);
        QVERIFY(ra.nodesComputed > 0);
        QCOMPARE(rb.nodesComputed, ra.nodesComputed);
        QCOMPARE(rb.problems, ra.problems);
        QCOMPARE(rb.unbacked, ra.unbacked);
        for (NodeId id : a.order()) {
            const Node& na = a.node(id);
            const Node& nb = b.node(b.findByName(na.name));
            if (na.isGetitem()) QVERIFY2(na.val.kind != ValueMeta::Kind::Unknown, na.name.c_str());
            QVERIFY2(nb.val == na.val, na.name.c_str());
        }
    }

    // The writer prints both spellings as x[i]; the text parses back to getitems.
    void writerRoundTrip()
    {
        const std::string textA = printReadable(graphs.plain);
        const std::string textB = printReadable(graphs.underscored);
        QCOMPARE(QString::fromStdString(textB), QString::fromStdString(textA));
        const Graph back = parseFxText(textB, "printed.py");
        QCOMPARE(back.size(), graphs.underscored.size());
        for (NodeId id : graphs.underscored.order()) {
            const Node& n = graphs.underscored.node(id);
            const NodeId m = back.findByName(n.name);
            QVERIFY2(m != kNoNode, n.name.c_str());
            QCOMPARE(back.node(m).isGetitem(), n.isGetitem());
        }
        QCOMPARE(QString::fromStdString(printReadable(back)), QString::fromStdString(textB));
    }

    void memoryTimeline()
    {
        const MemoryTimeline a = computeMemoryTimeline(graphs.plain);
        const MemoryTimeline b = computeMemoryTimeline(graphs.underscored);
        QVERIFY(a.peakBytes > 0);
        QCOMPARE(b.peakBytes, a.peakBytes);
        QCOMPARE(b.peakStep, a.peakStep);
        QCOMPARE(b.liveAtPeak, a.liveAtPeak);
        QCOMPARE(b.storages.size(), a.storages.size());
        QCOMPARE(b.inputBytes, a.inputBytes);
        QCOMPARE(b.outputBytes, a.outputBytes);
        QCOMPARE(b.finalBytes, a.finalBytes);
        QCOMPARE(b.boundaryStep, a.boundaryStep);
        QCOMPARE(b.savedBytes, a.savedBytes);
        QCOMPARE(b.saved.size(), a.saved.size());
        QCOMPARE(b.unknownSizes, a.unknownSizes);
        QCOMPARE(b.notes, a.notes);
        QCOMPARE(b.steps.size(), a.steps.size());
        for (size_t i = 0; i < a.steps.size(); ++i) {
            QCOMPARE(b.steps[i].liveBytes, a.steps[i].liveBytes);
            QCOMPARE(b.steps[i].liveAfterBytes, a.steps[i].liveAfterBytes);
        }
    }

    void verifier()
    {
        const QStringList a = problemTexts(verifyGraph(graphs.plain));
        const QStringList b = problemTexts(verifyGraph(graphs.underscored));
        QCOMPARE(b, a);
        QCOMPARE(unknownOperators(graphs.underscored), unknownOperators(graphs.plain));
    }
};

FXL_TEST_APPLESS_MAIN(TestGetitemSpellings)
}  // namespace test_getitem_spellings
#include "test_getitem_spellings.moc"
