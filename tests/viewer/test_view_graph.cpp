// The graph view's model, layout and drawing (viewer/model, viewer/layout, viewer/render) on the
// corpus: the top level of a traced step shows its phases, expanding a group shows its module
// children, no drawn edge leaves its container (every other dataflow edge is a pair of stubs
// that name each other's ends), identical sibling blocks are recognised (the 100k-node graph's
// 640 forward blocks) and a block changed alone stands out, and `fxlens render`'s SVG holds
// exactly the items and edges of the view.
#include <QColor>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <fstream>
#include <map>
#include <set>

#include "core/analysis/graph_stats.hpp"
#include "core/formats/source.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/layout/graph_layout.hpp"
#include "viewer/model/node_search.hpp"
#include "viewer/model/view_graph.hpp"
#include "viewer/render/scene_draw.hpp"

namespace test_view_graph {

using namespace fxl;
using namespace fxl::viewer;

namespace {

std::shared_ptr<Graph> load(const std::string& path)
{
    auto src = openSource(path);
    return src->graph(src->graphs().front()->id);
}

std::vector<std::string> topLabels(const GroupTree& t, const ViewGraph& v)
{
    std::vector<std::string> out;
    for (const auto& it : v.items)
        if (it.container == 0 && it.kind != ItemKind::Stub)
            out.push_back(it.kind == ItemKind::Group ? t.group(it.group).label : it.title);
    return out;
}

// Every dataflow edge between two shown items is drawn inside one container, or is an
// out-stub at the producer's item naming the consumer and an in-stub at the consumer's item
// naming the producer.
void checkEdgesAndStubs(const GroupTree& t, const ViewGraph& v)
{
    const Graph& g = t.graph();
    std::map<NodeId, int> rep;
    for (size_t k = 0; k < v.items.size(); ++k)
        if (v.items[k].kind == ItemKind::Node) rep[v.items[k].node] = static_cast<int>(k);
    for (NodeId id : g.order()) {
        if (rep.count(id)) continue;
        for (int k : t.chain(t.groupOf(id))) {
            const int item = v.itemOfGroup(k);
            if (item >= 0) {
                rep[id] = item;
                break;
            }
        }
    }
    std::set<std::pair<int, int>> drawn;
    for (const ViewEdge& e : v.edges) {
        QCOMPARE(v.items[static_cast<size_t>(e.from)].container, v.items[static_cast<size_t>(e.to)].container);
        drawn.insert({e.from, e.to});
    }
    for (NodeId c : g.order()) {
        const Node& n = g.node(c);
        auto check = [&](NodeId p) {
            QVERIFY2(rep.count(p) && rep.count(c), "every node is shown or inside a shown group");
            const int rp = rep[p], rc = rep[c];
            if (rp == rc || drawn.count({rp, rc})) return;
            bool out = false, in = false;
            for (size_t k = 0; k < v.items.size(); ++k) {
                const ViewItem& s = v.items[k];
                if (s.kind != ItemKind::Stub) continue;
                const bool named = std::find(s.peers.begin(), s.peers.end(), s.incoming ? p : c) != s.peers.end();
                if (!named) continue;
                if (!s.incoming && drawn.count({rp, static_cast<int>(k)})) out = true;
                if (s.incoming && drawn.count({static_cast<int>(k), rc})) in = true;
            }
            QVERIFY2(out && in,
                     qPrintable(QString::fromStdString("edge " + g.node(p).name + " -> " + n.name
                                                       + " is neither drawn nor stubbed")));
        };
        for (const Arg& a : n.args) a.forEachNode(check);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(check);
    }
}

}  // namespace

class TestViewGraph : public QObject
{
    Q_OBJECT

private slots:
    // A fitted view that has room keeps its names readable: a chain of 32 nodes fitted into
    // 700 pixels of height (a graph view at 1366 x 768) draws every node's title at least 7
    // pixels high (it drew blank boxes below 45 % zoom); far smaller, no text at all.
    void labelsStayReadableWhenFitted()
    {
        QCOMPARE(labelScale(1.0), 1.0);
        QCOMPARE(labelScale(0.7), 1.0);
        QVERIFY(labelScale(0.5) * 10 * 0.5 >= 7 - 1e-9);
        QCOMPARE(labelScale(0.2), -1.0);
        std::string text = "def forward(self, x: \"f32[8, 8]\"):\n    relu_0 = torch.ops.aten.relu.default(x)\n";
        for (int k = 1; k < 32; ++k)
            text += "    relu_" + std::to_string(k) + " = torch.ops.aten.relu.default(relu_" + std::to_string(k - 1)
                + ")\n";
        text += "    return (relu_31,)\n";
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("chain.code.py")).toStdString();
        std::ofstream(path) << text;
        const auto g = load(path);
        const GroupTree t(*g);
        std::set<int> open;
        expandTo(t, g->findByName("relu_16"), open);
        const ViewGraph v = buildViewGraph(t, open);
        const Layout l = layoutView(v, t);
        const double fitted = std::min(1000 / l.width, 700 / l.height);
        QVERIFY2(fitted < 0.45, "the chain is fitted below the old 45 % threshold");
        const double scale = labelScale(fitted);
        QVERIFY2(scale > 1, qPrintable(QString::number(fitted)));
        DrawOptions opts;
        opts.titleScale = scale;
        SvgCanvas c;
        drawScene(c, t, v, l, opts);
        for (int k = 0; k < 32; ++k) {
            const std::string name = "relu_" + std::to_string(k);
            QVERIFY2(c.svg().find(">" + name + "<") != std::string::npos,
                     c.svg().substr(c.svg().find("<g class=\"node\""), 1500).c_str());
        }
    }

    // The legend explains every colour and mark on screen, and a traced cone fades the rest.
    void legendAndTracedCone()
    {
        SvgCanvas legend;
        legend.begin(legendSize().w, legendSize().h, {255, 255, 255});
        drawLegend(legend, 0, 0, false);
        legend.end();
        for (const char* what : {"selected", "traced cone", "added", "removed", "changed", "rewired", "bitwise",
                                 "1024 ULP", "forward", "backward"})
            QVERIFY2(legend.svg().find(what) != std::string::npos, what);
        const auto path = fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py");
        const auto g = load(path.string());
        const GroupTree t(*g);
        std::set<int> open;
        expandTo(t, g->findByName("gelu"), open);
        const ViewGraph v = buildViewGraph(t, open);
        const Layout l = layoutView(v, t);
        DrawOptions plain, traced;
        setHighlights(t, {g->findByName("gelu")}, traced);
        SvgCanvas a, b;
        drawScene(a, t, v, l, plain);
        drawScene(b, t, v, l, traced);
        // mm (forward, not traced) keeps its fill in the plain view and fades in the traced one
        auto fillOf = [](const std::string& svg, const std::string& node) {
            const size_t at = svg.find("data-id=\"" + node + "\"");
            const size_t fill = svg.find("fill=\"", at);
            return at == std::string::npos ? std::string() : svg.substr(fill + 6, 7);
        };
        QVERIFY(!fillOf(a.svg(), "mm").empty());
        QVERIFY2(fillOf(a.svg(), "mm") != fillOf(b.svg(), "mm"), fillOf(b.svg(), "mm").c_str());
        QCOMPARE(fillOf(a.svg(), "gelu"), fillOf(b.svg(), "gelu"));  // in the cone: as it was
    }

    // The run's ULP colours never share a hue with the diff's (added, removed, changed,
    // rewired): a graph coloured by a run cannot be read as one coloured by a diff.
    void markColoursNeverShareAHue()
    {
        auto hue = [](const Rgb& c) {
            return QColor(c.r, c.g, c.b).hsvHueF() * 360;  // -1 for a grey
        };
        const auto diff = diffMarkColours(), ulp = ulpMarkColours();
        for (size_t d = 1; d < diff.size(); ++d)
            for (size_t u = 1; u < ulp.size(); ++u) {
                const double a = hue(diff[d]), b = hue(ulp[u]);
                QVERIFY(a >= 0 && b >= 0);
                const double apart = std::min(std::abs(a - b), 360 - std::abs(a - b));
                QVERIFY2(apart >= 30,
                         qPrintable(QStringLiteral("%1 and %2: hues %3 and %4")
                                        .arg(QString::fromLatin1(diffMarkName(static_cast<DiffMark>(d))),
                                             QString::fromUtf8(ulpMarkName(static_cast<uint8_t>(u))))
                                        .arg(a)
                                        .arg(b)));
            }
    }

    // G1: a graph without a backward has no loss group (its last nodes are forward work).
    void forwardOnlyHasNoLoss_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("graph");
        QTest::newRow("gpt2_tiny fw.default") << "pytorch/gpt2_tiny.fw.default.code.py"
                                              << "";
        QTest::newRow("linear_ce fw.default") << "pytorch/linear_ce.fw.default.code.py"
                                              << "";
        QTest::newRow("cache_hit_miss.log 36 (Dynamo)") << "tlparse/cache_hit_miss.log"
                                                        << "36";
    }

    void forwardOnlyHasNoLoss()
    {
        QFETCH(QString, file);
        QFETCH(QString, graph);
        const auto path = fxltest::corpusPath(file.toStdString());
        FXL_REQUIRE_CORPUS(path);
        auto src = openSource(path.string());
        const auto g = src->graph(graph.isEmpty() ? src->graphs().front()->id : graph.toStdString());
        const GroupTree t(*g);
        const ViewGraph top = buildViewGraph(t, {});
        const std::vector<std::string> labels = topLabels(t, top);
        QVERIFY(std::find(labels.begin(), labels.end(), "loss") == labels.end());
        QVERIFY(std::find(labels.begin(), labels.end(), "backward") == labels.end());
        QVERIFY(std::find(labels.begin(), labels.end(), "forward") != labels.end());
    }

    void gpt2TopLevelAndExpand()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        const auto g = load(path.string());
        const GroupTree t(*g);
        const ViewGraph top = buildViewGraph(t, {});
        QCOMPARE(topLabels(t, top), (std::vector<std::string>{"inputs", "forward", "loss", "backward", "output"}));
        QCOMPARE(top.groupItems, size_t(4));
        QCOMPARE(top.nodeItems, size_t(1));  // the output node
        size_t total = 0;
        for (const auto& it : top.items)
            if (it.kind == ItemKind::Group) total += t.group(it.group).totalNodes;
        QCOMPARE(total + 1, g->size());
        checkEdgesAndStubs(t, top);

        const int forward = t.find("forward");
        QVERIFY(forward > 0);
        const ViewGraph fw = buildViewGraph(t, {forward});
        std::vector<std::string> inside;
        for (const auto& it : fw.items)
            if (it.container == forward && it.kind == ItemKind::Group) inside.push_back(t.group(it.group).label);
        QCOMPARE(inside, (std::vector<std::string>{"wte", "wpe", "blocks.0", "blocks.1", "lnf"}));  // graph order
        // the forward box is replaced by its 5 groups and its 2 direct nodes (arange, add)
        QCOMPARE(fw.groupItems, top.groupItems - 1 + 5);
        QCOMPARE(fw.nodeItems, top.nodeItems + 2);
        QCOMPARE(fw.containers, (std::vector<int>{0, forward}));
        const GroupInfo& b0 = t.group(t.find("forward/blocks.0"));
        QCOMPARE(b0.identicalSiblings, size_t(2));
        QCOMPARE(b0.familySize, size_t(2));
        checkEdgesAndStubs(t, fw);

        // down to one node: its chain opens, the node is an item
        std::set<int> open;
        const NodeId mm = g->findByName("mm");
        QVERIFY(mm != kNoNode);
        expandTo(t, mm, open);
        const ViewGraph deep = buildViewGraph(t, open);
        QVERIFY(deep.itemOfNode(mm) >= 0);
        checkEdgesAndStubs(t, deep);
        // a stub from the collapsed inputs names the parameters it brings (params.json), not
        // "inputs (1)" or the placeholder's name
        int paramStubs = 0;
        for (const auto& it : deep.items) {
            if (it.kind != ItemKind::Stub || !it.incoming || it.peers.size() != 1) continue;
            const Node& p = g->node(it.peers.front());
            if (p.op != NodeOp::Placeholder || !p.meta.desc.starts_with("ParamAOTInput")) continue;
            const std::string fqn = parameterTarget(p);
            QVERIFY2(!fqn.empty() && fqn != p.name, p.meta.desc.c_str());
            QCOMPARE(it.title, "from " + fqn);
            ++paramStubs;
        }
        QVERIFY(paramStubs > 0);
        // everything open: every node is an item, and only short same-container edges are drawn
        std::set<int> all;
        for (size_t k = 1; k < t.groups().size(); ++k) all.insert(static_cast<int>(k));
        const ViewGraph flat = buildViewGraph(t, all);
        QCOMPARE(flat.nodeItems, g->size());
        QCOMPARE(flat.groupItems, size_t(0));
        checkEdgesAndStubs(t, flat);
    }

    // A chunk pass's copies (meta.chunk with a chunk_id) form one group per chunk right below
    // their region's root: blocks.0 > chunk 1 > attn; nodes without chunk meta stay where they were.
    void chunkCopiesGroupPerChunk()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        auto g = load(path.string());
        int marked = 0;
        g->forEachNodeMut([&](Node& n) {
            if (n.op == NodeOp::CallFunction && n.meta.modulePath.starts_with("blocks.0")
                && n.meta.phase == Phase::Forward) {
                n.meta.chunk = {{"pass", "chunk_region"}, {"chunk_id", marked % 2}, {"region", "blocks.0"}};
                ++marked;
            }
        });
        QVERIFY(marked > 10);
        const GroupTree t(*g);
        int c0 = 0, c1 = 0, unmarked = 0;
        g->forEachNode([&](const Node& n) {
            std::vector<std::string> labels;
            for (int k : t.chain(t.groupOf(n.id))) labels.push_back(t.group(k).label);
            if (n.meta.chunk.is_object()) {
                QVERIFY2(labels.size() >= 4, (n.name + ": " + std::to_string(labels.size())).c_str());
                QCOMPARE(labels[1], std::string("forward"));
                QCOMPARE(labels[2], std::string("blocks.0"));
                const std::string want = "chunk " + std::to_string(n.meta.chunk["chunk_id"].get<int>());
                QCOMPARE(labels[3], want);
                (want == "chunk 0" ? c0 : c1)++;
                // the module levels below the root follow: blocks.0.attn.c_attn -> chunk k > attn > c_attn
                if (n.meta.modulePath == "blocks.0.attn.c_attn")
                    QCOMPARE(std::vector<std::string>(labels.begin() + 4, labels.end()),
                             (std::vector<std::string>{"attn", "c_attn"}));
            } else if (n.op == NodeOp::CallFunction && n.meta.modulePath.starts_with("blocks.0")) {
                for (const auto& l : labels) QVERIFY(!QString::fromStdString(l).startsWith("chunk"));
                ++unmarked;
            }
        });
        QCOMPARE(c0 + c1, marked);
        QCOMPARE(c0, (marked + 1) / 2);
        QVERIFY(unmarked > 0);  // the backward of blocks.0
    }

    void layoutKeepsItemsInTheirFrames()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        const auto g = load(path.string());
        const GroupTree t(*g);
        std::set<int> open;
        expandTo(t, g->findByName("mm"), open);
        const ViewGraph v = buildViewGraph(t, open);
        const Layout l = layoutView(v, t);
        QCOMPARE(l.items.size(), v.items.size());
        QVERIFY(l.dotContainers == v.containers.size());
        std::map<int, Box> frame;
        for (const ContainerBox& c : l.containers) frame[c.group] = c.box;
        for (size_t k = 0; k < v.items.size(); ++k) {
            const Box& b = l.items[k];
            const Box& f = frame.at(v.items[k].container);
            QVERIFY2(b.w > 0 && b.h > 0, "every item has a size");
            QVERIFY2(b.x >= f.x - 0.5 && b.y >= f.y - 0.5 && b.x + b.w <= f.x + f.w + 0.5
                         && b.y + b.h <= f.y + f.h + 0.5,
                     qPrintable(QString::fromStdString(v.items[k].title) + " lies outside its frame"));
        }
        for (const EdgePath& e : l.edges) QVERIFY(e.points.size() >= 4 && (e.points.size() - 1) % 3 == 0);
        // items of one container do not overlap
        for (size_t a = 0; a < v.items.size(); ++a)
            for (size_t b = a + 1; b < v.items.size(); ++b) {
                if (v.items[a].container != v.items[b].container) continue;
                const Box &p = l.items[a], &q = l.items[b];
                const bool apart = p.x + p.w <= q.x + 0.5 || q.x + q.w <= p.x + 0.5 || p.y + p.h <= q.y + 0.5
                    || q.y + q.h <= p.y + 0.5;
                QVERIFY2(apart, qPrintable(QString::fromStdString(v.items[a].title + " overlaps " + v.items[b].title)));
            }
    }

    void identicalBlocksOfTheLargeGraph()
    {
        const auto path = fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        const auto g = load(path.string());
        GroupTree t(*g);
        const GroupInfo& b0 = t.group(t.find("forward/blocks.0"));
        QCOMPARE(b0.familySize, size_t(640));
        QCOMPARE(b0.identicalSiblings, size_t(640));
        QVERIFY(!b0.differs);
        // the forward level has 640 blocks + 5 others: split into ranges of 200
        const GroupInfo& fw = t.group(t.find("forward"));
        QCOMPARE(fw.childGroups.size(), size_t(4));
        for (int r : fw.childGroups) QVERIFY(t.group(r).range);
        const ViewGraph top = buildViewGraph(t, {});
        QCOMPARE(top.groupItems, size_t(4));
        const ViewGraph open = buildViewGraph(t, {t.find("forward")});
        QCOMPARE(open.groupItems, size_t(3 + 4));  // the ranges, collapsed
        checkEdgesAndStubs(t, open);

        // one block changed alone (a node added to blocks.7, as a pass that touched only it
        // would): that block, and only it, differs
        Graph changed = g->clone();
        NodeId target = kNoNode;
        for (NodeId id : changed.order())
            if (changed.node(id).meta.modulePath == "blocks.7.mlp" && changed.node(id).target == "aten.gelu.default"
                && changed.node(id).meta.phase == Phase::Forward) {
                target = id;
                break;
            }
        QVERIFY(target != kNoNode);
        Node extra;
        extra.name = changed.uniqueName("gelu_twice");
        extra.op = NodeOp::CallFunction;
        extra.target = "aten.gelu.default";
        extra.args = {Arg::ofNode(target)};
        extra.val = changed.node(target).val;
        extra.meta.modulePath = "blocks.7.mlp";
        extra.meta.phase = Phase::Forward;
        changed.insertNode(std::move(extra),
                           changed.node(target).users.empty() ? kNoNode : changed.node(target).users.front());
        const GroupTree t2(changed);
        size_t differing = 0;
        for (const GroupInfo& gi : t2.groups())
            if (gi.family == "blocks" && gi.phase == PhaseClass::Forward && gi.differs) {
                ++differing;
                QCOMPARE(gi.key, std::string("forward/blocks.7"));
                QCOMPARE(gi.identicalSiblings, size_t(1));
            }
        QCOMPARE(differing, size_t(1));
        QCOMPARE(t2.group(t2.find("forward/blocks.8")).identicalSiblings, size_t(639));

        // V3, folding: the first range open shows its 196 identical blocks as one box that
        // stands for all of them; with blocks.7 changed, it stands alone between two folds
        ViewOptions fold;
        fold.foldIdentical = true;
        const int range0 = fw.childGroups.front();
        const ViewGraph folded = buildViewGraph(t, {t.find("forward"), range0}, fold);
        checkEdgesAndStubs(t, folded);
        std::vector<size_t> folds;
        for (const ViewItem& it : folded.items)
            if (it.kind == ItemKind::Group && it.container == range0 && it.folded > 1) folds.push_back(it.folded);
        QCOMPARE(folds, std::vector<size_t>{196});
        const int b5 = folded.itemOfGroup(t.find("forward/blocks.5"));
        QVERIFY(b5 >= 0);
        QCOMPARE(b5, folded.itemOfGroup(t.find("forward/blocks.0")));
        QCOMPARE(b5, folded.itemOfGroup(t.find("forward/blocks.195")));
        QCOMPARE(folded.items[static_cast<size_t>(b5)].title, std::string("blocks.0 … blocks.195"));
        const ViewGraph unfolded = buildViewGraph(t, {t.find("forward"), range0});
        QCOMPARE(unfolded.groupItems, folded.groupItems + 195);
        const int range2 = t2.group(t2.find("forward")).childGroups.front();
        const ViewGraph split = buildViewGraph(t2, {t2.find("forward"), range2}, fold);
        checkEdgesAndStubs(t2, split);
        folds.clear();
        for (const ViewItem& it : split.items)
            if (it.kind == ItemKind::Group && it.container == range2 && it.folded > 1) folds.push_back(it.folded);
        QCOMPARE(folds, (std::vector<size_t>{7, 188}));
        const int b7 = split.itemOfGroup(t2.find("forward/blocks.7"));
        QCOMPARE(split.items[static_cast<size_t>(b7)].folded, size_t(1));
        QVERIFY(split.items[static_cast<size_t>(b7)].subtitle.find("differs") != std::string::npos);
        // opening the fold opens its first member; the rest fold again
        const ViewGraph opened = buildViewGraph(t, {t.find("forward"), range0, t.find("forward/blocks.0")}, fold);
        checkEdgesAndStubs(t, opened);
        QCOMPARE(opened.items[static_cast<size_t>(opened.itemOfGroup(t.find("forward/blocks.1")))].folded, size_t(195));
    }

    // fxlens render's SVG holds the view's items and edges, by class.
    void renderSvgMatchesTheView_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QStringList>("expand");
        const QString gpt2 = QString::fromStdString(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py").string());
        QTest::newRow("gpt2 top") << gpt2 << QStringList{};
        QTest::newRow("gpt2 forward") << gpt2 << QStringList{QStringLiteral("forward")};
        QTest::newRow("gpt2 blocks.0") << gpt2 << QStringList{QStringLiteral("forward/blocks.0")};
        QTest::newRow("llama all") << QString::fromStdString(
            fxltest::corpusPath("pytorch/llama_tiny.joint.code.py").string())
                                   << QStringList{QStringLiteral("all")};
        QTest::newRow("dynamo graph") << QString::fromStdString(
            fxltest::corpusPath("fx/tlparse_v2.9dev_mlp_dynamo_output_graph.txt").string())
                                      << QStringList{QStringLiteral("all")};
    }

    void renderSvgMatchesTheView()
    {
        QFETCH(QString, path);
        QFETCH(QStringList, expand);
        FXL_REQUIRE_CORPUS(path);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("view.svg"));
        QStringList args{QStringLiteral("render"), path, QStringLiteral("--out"), out, QStringLiteral("--json")};
        for (const QString& e : expand) args << QStringLiteral("--expand") << e;
        QProcess p;
        p.start(QString::fromStdString((fxltest::buildDir() / "app" / "fxlens").string()), args);
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QJsonObject doc = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&f);
        std::map<QString, int> counts;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement()) continue;
            const QString cls = xml.attributes().value(QStringLiteral("class")).toString();
            if (!cls.isEmpty())
                counts[(xml.name() == QStringLiteral("path") ? QStringLiteral("path.") : QString()) + cls]++;
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(counts[QStringLiteral("node")], doc[QStringLiteral("nodes")].toInt());
        QCOMPARE(counts[QStringLiteral("group")], doc[QStringLiteral("groups")].toInt());
        QCOMPARE(counts[QStringLiteral("stub-in")] + counts[QStringLiteral("stub-out")],
                 doc[QStringLiteral("stubs")].toInt());
        QCOMPARE(counts[QStringLiteral("path.edge")], doc[QStringLiteral("edges")].toInt());
        QCOMPARE(counts[QStringLiteral("frame")], doc[QStringLiteral("expanded")].toInt());
        // and the same numbers in-process
        const auto g = load(path.toStdString());
        const GroupTree t(*g);
        std::set<int> open;
        for (const QString& e : expand) {
            if (e == QStringLiteral("all")) {
                for (size_t k = 1; k < t.groups().size(); ++k) open.insert(static_cast<int>(k));
                continue;
            }
            for (int k : t.chain(t.find(e.toStdString()))) open.insert(k);
        }
        const ViewGraph v = buildViewGraph(t, open);
        QCOMPARE(qsizetype(v.nodeItems), qsizetype(doc[QStringLiteral("nodes")].toInt()));
        QCOMPARE(qsizetype(v.stubItems), qsizetype(doc[QStringLiteral("stubs")].toInt()));
        QCOMPARE(qsizetype(v.edges.size()), qsizetype(doc[QStringLiteral("edges")].toInt()));
    }

    // --select N --trace up|down: exactly the shown nodes of the cone (and N) are drawn
    // highlighted, and groups holding one; --dark and --legend draw the dark theme and the legend.
    void renderTrace_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("dir");
        const QString gpt2 = QString::fromStdString(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py").string());
        QTest::newRow("gpt2_tiny addmm up") << gpt2 << "addmm"
                                            << "up";
        QTest::newRow("gpt2_tiny addmm down") << gpt2 << "addmm"
                                              << "down";
        QTest::newRow("mlp_gelu mm down")
            << QString::fromStdString(fxltest::corpusPath("pytorch/mlp_gelu.joint.code.py").string()) << "mm"
            << "down";
    }

    void renderTrace()
    {
        QFETCH(QString, path);
        QFETCH(QString, node);
        QFETCH(QString, dir);
        FXL_REQUIRE_CORPUS(path);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("trace.svg"));
        QProcess p;
        p.start(QString::fromStdString((fxltest::buildDir() / "app" / "fxlens").string()),
                {QStringLiteral("render"), path, QStringLiteral("--select"), node, QStringLiteral("--trace"), dir,
                 QStringLiteral("--dark"), QStringLiteral("--legend"), QStringLiteral("--out"), out});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        // expected: the view of --select, and the cone
        const auto g = load(path.toStdString());
        const GroupTree t(*g);
        const NodeId id = g->findByName(node.toStdString());
        std::set<int> open;
        expandTo(t, id, open);
        const ViewGraph v = buildViewGraph(t, open);
        std::vector<NodeId> cone = dir == QStringLiteral("up") ? upstreamCone(*g, id) : downstreamCone(*g, id);
        QVERIFY(!cone.empty());
        std::set<std::string> litNodes;
        std::set<std::string> litGroups;
        for (NodeId c : cone) {
            if (v.itemOfNode(c) >= 0) litNodes.insert(g->node(c).name);
            for (int k = t.groupOf(c); k > 0; k = t.group(k).parent)
                if (v.itemOfGroup(k) >= 0) litGroups.insert(t.group(k).key);
        }
        // read back: items whose box is stroked with the dark theme's highlight colour
        const std::string lit = theme(true).highlight.hex();
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&f);
        std::set<std::string> gotNodes, gotGroups;
        QString cls, id2, background;
        bool legend = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement()) continue;
            const auto attrs = xml.attributes();
            if (xml.name() == QStringLiteral("g")) {
                cls = attrs.value(QStringLiteral("class")).toString();
                id2 = attrs.value(QStringLiteral("data-id")).toString();
                legend = legend || cls == QStringLiteral("legend");
            } else if (xml.name() == QStringLiteral("rect")) {
                if (background.isEmpty()) background = attrs.value(QStringLiteral("fill")).toString();
                if (attrs.value(QStringLiteral("stroke")).toString().toStdString() == lit) {
                    if (cls == QStringLiteral("node")) gotNodes.insert(id2.toStdString());
                    if (cls == QStringLiteral("group")) gotGroups.insert(id2.toStdString());
                }
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        // the selected node is drawn selected (its own colour), every other shown cone node lit
        litNodes.erase(node.toStdString());
        QCOMPARE(gotNodes, litNodes);
        QCOMPARE(gotGroups, litGroups);
        QVERIFY(legend);
        QCOMPARE(background.toStdString(), theme(true).background.hex());
    }

    void renderRefusesBadRequests()
    {
        const QString gpt2 = QString::fromStdString(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py").string());
        FXL_REQUIRE_CORPUS(gpt2);
        QTemporaryDir dir;
        const QString fxlens = QString::fromStdString((fxltest::buildDir() / "app" / "fxlens").string());
        struct Case
        {
            QStringList args;
            QString message;
        };
        const QList<Case> cases = {
            {{QStringLiteral("render"), gpt2, QStringLiteral("--out"), dir.filePath(QStringLiteral("x.jpg"))},
             QStringLiteral("must end in .svg or .png")},
            {{QStringLiteral("render"), gpt2, QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg")),
              QStringLiteral("--expand"), QStringLiteral("blocks.9")},
             QStringLiteral("no such group")},
            {{QStringLiteral("render"), gpt2, QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg")),
              QStringLiteral("--expand"), QStringLiteral("blocks.0")},
             QStringLiteral("names several groups")},
            {{QStringLiteral("render"), gpt2, QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg")),
              QStringLiteral("--select"), QStringLiteral("no_such_node")},
             QStringLiteral("no node of that name")},
        };
        for (const Case& c : cases) {
            QProcess p;
            p.start(fxlens, c.args);
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 2);
            QVERIFY2(p.readAllStandardError().contains(c.message.toUtf8()), qPrintable(c.message));
        }
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x.svg"))));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x.jpg"))));
    }
};

FXL_TEST_GUILESS_MAIN(TestViewGraph)
}  // namespace test_view_graph
#include "test_view_graph.moc"
