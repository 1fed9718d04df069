// Finding nodes (viewer/model/node_search.hpp) and the search results table
// (viewer/model/search_results_model.hpp) on the corpus: each field of the query language finds
// exactly the nodes an independent filter over the graph finds (gpt2_tiny's op:mm its 19
// aten.mm.default nodes), bad queries say what is wrong, producer / consumer walks and cones
// end where the graph's arguments say (checked against a recursive walk of the argument trees,
// and on a 200k-node chain for the iterative walk), the definition line of every node is found
// in gm.code, print_readable (flat, expanded, pytree, ';'-separated declarations) and
// print(gm.graph) text, and the results table passes QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QtTest>

#include <map>
#include <set>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/model/node_search.hpp"
#include "viewer/model/search_results_model.hpp"

namespace test_node_search {

using namespace fxl;
using namespace fxl::viewer;

namespace {

struct Loaded
{
    std::shared_ptr<Graph> graph;
    std::string text;
};

// The first graph of a corpus file and the file's text, loaded once per run.
const Loaded& load(const std::string& relative)
{
    static std::map<std::string, Loaded> cache;
    auto it = cache.find(relative);
    if (it != cache.end()) return it->second;
    const std::string path = fxltest::corpusPath(relative).string();
    auto src = openSource(path);
    Loaded l{src->graph(src->graphs().front()->id), fxltest::readFile(std::filesystem::path(path))};
    return cache.emplace(relative, std::move(l)).first->second;
}

std::vector<std::string> namesOf(const Graph& g, const std::vector<NodeId>& ids)
{
    std::vector<std::string> out;
    for (NodeId id : ids) out.push_back(g.node(id).name);
    return out;
}

// The nodes of g for which keep(node) holds, in graph order.
template<class F>
std::vector<NodeId> filterNodes(const Graph& g, F&& keep)
{
    std::vector<NodeId> out;
    for (NodeId id : g.order())
        if (keep(g.node(id))) out.push_back(id);
    return out;
}

std::vector<NodeId> search(const GroupTree& t, const std::string& query, size_t limit = SIZE_MAX)
{
    const SearchQuery q = parseSearchQuery(query);
    if (!q.ok()) qWarning("query %s: %s", query.c_str(), q.error.c_str());  // a mistake of the test
    return searchNodes(t, q, limit);
}

// The node references of an argument tree, written out by hand (not Arg::forEachNode).
void collectRefs(const Arg& a, std::vector<NodeId>& out)
{
    if (a.kind == Arg::Kind::Node) out.push_back(a.node);
    for (const Arg& item : a.items) collectRefs(item, out);
    for (const ArgPair& kv : a.dict) {
        collectRefs(kv.first, out);
        collectRefs(kv.second, out);
    }
}

// The distinct nodes a node refers to, args before kwargs, first reference first.
std::vector<NodeId> refsOf(const Node& n)
{
    std::vector<NodeId> all;
    for (const Arg& a : n.args) collectRefs(a, all);
    for (const auto& kv : n.kwargs) collectRefs(kv.second, all);
    std::vector<NodeId> out;
    for (NodeId id : all)
        if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    return out;
}

// Consumers from the argument trees (not Node::users), in graph order.
std::map<NodeId, std::vector<NodeId>> consumerMap(const Graph& g)
{
    std::map<NodeId, std::vector<NodeId>> out;
    for (NodeId c : g.order()) {
        out[c];
        for (NodeId p : refsOf(g.node(c))) out[p].push_back(c);
    }
    return out;
}

// Recursive reachability, the start excluded, listed in graph order.
std::vector<NodeId> reachable(const Graph& g, NodeId start, const std::function<std::vector<NodeId>(NodeId)>& next)
{
    std::set<NodeId> seen;
    std::function<void(NodeId)> visit = [&](NodeId id) {
        for (NodeId to : next(id))
            if (seen.insert(to).second) visit(to);
    };
    visit(start);
    seen.erase(start);
    return filterNodes(g, [&](const Node& n) { return seen.count(n.id) > 0; });
}

bool inGraphOrder(const Graph& g, const std::vector<NodeId>& ids)
{
    for (size_t k = 1; k < ids.size(); ++k)
        if (g.positionOf(ids[k - 1]) >= g.positionOf(ids[k])) return false;
    return true;
}

QString moduleOf(const Node& n)
{
    if (!n.meta.modulePath.empty()) return QString::fromStdString(n.meta.modulePath);
    if (n.meta.custom.is_object() && n.meta.custom.contains("module_fqn") && n.meta.custom["module_fqn"].is_string())
        return QString::fromStdString(n.meta.custom["module_fqn"].get<std::string>());
    return {};
}

// A print_readable text with recompute tags and custom annotations (the forms of
// tests/core/formats/test_fx_text_examples.cpp).
const char* kTaggedText = "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, embedding: \"f32[4, 4096]\", w: \"f32[4096]\"):\n"
                          "        # Annotation: {'module_fqn': 'layers.0.attention_norm', 'is_fusible': True} "
                          "recompute: PREFER_RECOMPUTE File: /x/n.py:427 in forward, code: return x\n"
                          "        _fused_rms_norm_default = torch.ops.aten._fused_rms_norm.default(embedding, [4096], "
                          "w, 1e-05)\n"
                          "        getitem = _fused_rms_norm_default[0]\n"
                          "\n"
                          "        # ac_graph_id: 6 - PREFER_RECOMPUTE File: /x/a.py:376 in f, code: y = x\n"
                          "        mul = torch.ops.aten.mul.Tensor(getitem, 2)\n"
                          "\n"
                          "        # # recompute: MUST_SAVE File: /x/a.py:3 in f, code: y = x\n"
                          "        mul_1 = torch.ops.aten.mul.Tensor(mul, 3)\n"
                          "\n"
                          "        # Annotation: {'n': [1, 2.5, None], 'k': 'v w', 'd': {'e': 3}} recompute: "
                          "MUST_RECOMPUTE File: /x/b.py:7, code: z\n"
                          "        mul_2 = torch.ops.aten.mul.Tensor(mul_1, 4)\n"
                          "\n"
                          "        # No stacktrace found for following nodes\n"
                          "        mul_3 = torch.ops.aten.mul.Tensor(mul_2, 5)\n"
                          "        return (mul_3,)\n";

using Names = std::vector<std::string>;

// The corpus graphs the search and walk rows run on.
const char* kGraphs[] = {
    "pytorch/gpt2_tiny.joint.code.py",
    "pytorch/llama_tiny.joint.code.py",
    "pytorch/mlp_gelu.joint.code.py",
    "pytorch/checkpoint_mlp.joint.code.py",
    "fx/tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt",
    "fx/entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt",
};

// The signature span of a code text: [first, last] 0-based lines of the first "def" up to the
// line that closes it, found with regular expressions.
std::pair<int, int> signatureSpan(const QStringList& lines)
{
    static const QRegularExpression def(QStringLiteral("^\\s*def \\w+\\("));
    static const QRegularExpression close(QStringLiteral("\\)\\s*(->[^:]*)?:\\s*(#.*)?$"));
    for (int k = 0; k < lines.size(); ++k)
        if (def.match(lines[k]).hasMatch())
            for (int e = k; e < lines.size(); ++e)
                if (close.match(lines[e]).hasMatch()) return {k, e};
    return {-1, -2};
}

}  // namespace

class TestNodeSearch : public QObject
{
    Q_OBJECT

private slots:
    void parsing()
    {
        SearchQuery q = parseSearchQuery("  op:mm   module:blocks.0 AddMM ");
        QVERIFY2(q.ok(), q.error.c_str());
        QCOMPARE(q.terms.size(), size_t(3));
        QCOMPARE(q.terms[0].field, SearchField::Op);
        QCOMPARE(q.terms[0].value, std::string("mm"));
        QCOMPARE(q.terms[1].field, SearchField::Module);
        QCOMPARE(q.terms[1].value, std::string("blocks.0"));
        QCOMPARE(q.terms[2].field, SearchField::Text);

        q = parseSearchQuery("name:\"a b\" \"c d:e\" meta:k=v=w Phase:Backward aten::mm");
        QVERIFY2(q.ok(), q.error.c_str());
        QCOMPARE(q.terms.size(), size_t(5));
        QCOMPARE(q.terms[0].field, SearchField::Name);
        QCOMPARE(q.terms[0].value, std::string("a b"));
        QCOMPARE(q.terms[1].field, SearchField::Text);
        QCOMPARE(q.terms[1].value, std::string("c d:e"));
        QCOMPARE(q.terms[2].field, SearchField::Meta);
        QCOMPARE(q.terms[2].value, std::string("k"));
        QVERIFY(q.terms[2].hasMetaValue);
        QCOMPARE(q.terms[2].metaValue, std::string("v=w"));
        QCOMPARE(q.terms[3].field, SearchField::Phase);
        QCOMPARE(q.terms[3].value, std::string("backward"));
        QCOMPARE(q.terms[4].field, SearchField::Text);

        QVERIFY(parseSearchQuery("").ok() && parseSearchQuery("   ").terms.empty());

        // S3: the error names the field and the accepted ones
        q = parseSearchQuery("op:mm colour:red");
        QVERIFY(!q.ok());
        QVERIFY(q.terms.empty());
        QVERIFY2(q.error.find("\"colour:\"") != std::string::npos, q.error.c_str());
        QVERIFY2(q.error.find("name, op, target, module, phase, tag, meta, kind") != std::string::npos,
                 q.error.c_str());
        for (const char* bad : {"op:", "phase:sideways", "tag:sometimes", "kind:call", "name:\"open", "meta:=3"}) {
            q = parseSearchQuery(bad);
            QVERIFY2(!q.ok(), bad);
        }
        QVERIFY(parseSearchQuery("phase:sideways").error.find("recomputed") != std::string::npos);
        QVERIFY(parseSearchQuery("name:\"open").error.find("quote") != std::string::npos);
    }

    void searchCorpus_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("expectedMm");  // -1: not stated
        for (const char* f : kGraphs)
            QTest::newRow(f) << QString::fromLatin1(f) << (std::string(f) == kGraphs[0] ? 19 : -1);
    }

    void searchCorpus()
    {
        QFETCH(QString, file);
        QFETCH(int, expectedMm);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath(file.toStdString()));
        const Graph& g = *load(file.toStdString()).graph;
        const GroupTree t(g);

        // op:mm is aten.mm.default, and so are op:aten.mm and target:aten.mm.default
        const auto mm = filterNodes(g, [](const Node& n) { return n.target == "aten.mm.default"; });
        if (expectedMm >= 0) QCOMPARE(int(mm.size()), expectedMm);
        QCOMPARE(search(t, "op:mm"), mm);
        QCOMPARE(search(t, "op:aten.mm"), mm);
        QCOMPARE(search(t, "op:aten.mm.default"), mm);
        QCOMPARE(search(t, "target:aten.mm.default"), mm);
        QCOMPARE(search(t, "op:mm", 3), std::vector<NodeId>(mm.begin(), mm.begin() + std::min<size_t>(3, mm.size())));
        QCOMPARE(search(t, "op:getitem"), filterNodes(g, [](const Node& n) { return n.isGetitem(); }));

        // module: on dot boundaries, for every prefix of every module path
        std::set<QString> prefixes;
        for (NodeId id : g.order()) {
            const QStringList parts = moduleOf(g.node(id)).split(QLatin1Char('.'), Qt::SkipEmptyParts);
            for (int k = 1; k <= parts.size(); ++k)
                prefixes.insert(QStringList(parts.mid(0, k)).join(QLatin1Char('.')));
        }
        for (const QString& p : prefixes) {
            const QStringList want = p.split(QLatin1Char('.'));
            const auto expected = filterNodes(g, [&](const Node& n) {
                const QStringList have = moduleOf(n).split(QLatin1Char('.'));
                return have.size() >= want.size() && have.mid(0, want.size()) == want;
            });
            QVERIFY(!expected.empty());
            QCOMPARE(search(t, "module:" + p.toStdString()), expected);
        }
        if (expectedMm >= 0) {  // gpt2_tiny: blocks.0 and its children, not blocks.1
            const auto b0 = search(t, "module:blocks.0");
            QVERIFY(!b0.empty());
            bool attn = false;
            for (NodeId id : b0) {
                const QString m = moduleOf(g.node(id));
                QVERIFY2(m == QLatin1String("blocks.0") || m.startsWith(QLatin1String("blocks.0.")), qPrintable(m));
                attn = attn || m == QLatin1String("blocks.0.attn");
            }
            QVERIFY(attn);
            QVERIFY(search(t, "module:blocks").size() > b0.size());
            QVERIFY(search(t, "module:blocks.").empty());
        }

        // phase: partitions the graph; phase:backward op:mm is the intersection
        size_t phased = 0;
        for (const char* p : {"input", "forward", "loss", "backward", "recomputed", "output"}) {
            const auto found = search(t, std::string("phase:") + p);
            QCOMPARE(found,
                     filterNodes(g, [&](const Node& n) { return std::string(phaseClassName(t.phaseOf(n.id))) == p; }));
            phased += found.size();
        }
        QCOMPARE(phased, g.size());
        const auto bwMm = search(t, "phase:backward op:mm");
        std::vector<NodeId> both;
        const auto bw = search(t, "phase:backward");
        std::set_intersection(mm.begin(), mm.end(), bw.begin(), bw.end(), std::back_inserter(both),
                              [&](NodeId a, NodeId b) { return g.positionOf(a) < g.positionOf(b); });
        QCOMPARE(bwMm, both);
        for (NodeId id : bwMm) QVERIFY(std::find(mm.begin(), mm.end(), id) != mm.end());
        if (expectedMm >= 0) QVERIFY(!bwMm.empty() && bwMm.size() < mm.size());

        // kind: partitions the graph
        size_t kinds = 0;
        for (const char* k : {"placeholder", "call_function", "call_method", "call_module", "get_attr", "output"})
            kinds += search(t, std::string("kind:") + k).size();
        QCOMPARE(kinds, g.size());
        QCOMPARE(search(t, "kind:placeholder"), g.placeholders());

        // bare text: name, target or module path, any case
        for (const char* text : {"addmm", "ADDMM", "blocks.1", "view_1"}) {
            const QString s = QString::fromLatin1(text);
            const auto expected = filterNodes(g, [&](const Node& n) {
                return QString::fromStdString(n.name).contains(s, Qt::CaseInsensitive)
                    || QString::fromStdString(n.target).contains(s, Qt::CaseInsensitive)
                    || moduleOf(n).contains(s, Qt::CaseInsensitive);
            });
            QCOMPARE(search(t, text), expected);
            if (expectedMm >= 0) QVERIFY2(!expected.empty(), text);
        }
        // name: exact, '*' any run
        const auto named = filterNodes(g, [](const Node& n) { return n.name.rfind("mm_", 0) == 0; });
        QCOMPARE(search(t, "name:mm_*"), named);
        if (g.findByName("mm") != kNoNode) QCOMPARE(search(t, "name:mm"), std::vector<NodeId>{g.findByName("mm")});
        // a bad query finds nothing
        QVERIFY(searchNodes(t, parseSearchQuery("op:mm colour:red")).empty());
        QCOMPARE(search(t, "").size(), g.size());
    }

    void tagsAndMeta()
    {
        const Graph g = parseFxText(kTaggedText, "tagged");
        const GroupTree t(g);
        auto names = [&](const std::string& q) { return namesOf(g, search(t, q)); };
        QCOMPARE(names("tag:prefer_recompute"), (Names{"_fused_rms_norm_default", "getitem", "mul"}));
        QCOMPARE(names("tag:MUST_SAVE"), (Names{"mul_1"}));
        QCOMPARE(names("tag:must_recompute"), (Names{"mul_2"}));
        QCOMPARE(names("tag:prefer_save"), Names{});
        QCOMPARE(names("tag:recompute"), (Names{"_fused_rms_norm_default", "getitem", "mul", "mul_1", "mul_2"}));
        QCOMPARE(names("tag:recompute mul"), (Names{"mul", "mul_1", "mul_2"}));
        QCOMPARE(names("meta:module_fqn"), (Names{"_fused_rms_norm_default", "getitem"}));
        QCOMPARE(names("meta:module_fqn=layers.0.attention_norm"), (Names{"_fused_rms_norm_default", "getitem"}));
        QCOMPARE(names("meta:module_fqn=layers.0"), Names{});
        QCOMPARE(names("meta:is_fusible=True"), (Names{"_fused_rms_norm_default", "getitem"}));
        QCOMPARE(names("meta:is_fusible=true"), (Names{"_fused_rms_norm_default", "getitem"}));
        QCOMPARE(names("meta:k=\"v w\""), (Names{"mul_2"}));
        QCOMPARE(names("meta:n=[1,2.5,null]"), (Names{"mul_2"}));
        QCOMPARE(names("meta:d.e=3"), (Names{"mul_2"}));
        QCOMPARE(names("meta:d.f"), Names{});
        QCOMPARE(names("module:layers.0"), (Names{"_fused_rms_norm_default", "getitem"}));
        QCOMPARE(names("module:layers.0.attention"), Names{});
        QCOMPARE(names("kind:placeholder"), (Names{"embedding", "w"}));
        QCOMPARE(names("kind:output"), (Names{"output"}));
        QCOMPARE(names("op:mul"), (Names{"mul", "mul_1", "mul_2", "mul_3"}));
        QCOMPARE(names("op:aten.mul.Tensor"), (Names{"mul", "mul_1", "mul_2", "mul_3"}));
        QCOMPARE(names("op:mul.Tensor"), Names{});
        QCOMPARE(names("op:getitem"), (Names{"getitem"}));
        QCOMPARE(names("op:operator.getitem"), (Names{"getitem"}));
        QCOMPARE(names("name:mul_*"), (Names{"mul_1", "mul_2", "mul_3"}));
        QCOMPARE(names("name:*_1"), (Names{"mul_1"}));
        QCOMPARE(names("name:mul"), (Names{"mul"}));
        QCOMPARE(names("target:MUL.tensor"), (Names{"mul", "mul_1", "mul_2", "mul_3"}));
        QCOMPARE(names("FUSED"), (Names{"_fused_rms_norm_default"}));
        QCOMPARE(names("attention_norm"), (Names{"_fused_rms_norm_default", "getitem"}));  // module path
    }

    void walks_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : kGraphs) QTest::newRow(f) << QString::fromLatin1(f);
    }

    // W1-W2 against the argument trees walked recursively.
    void walks()
    {
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath(file.toStdString()));
        const Graph& g = *load(file.toStdString()).graph;
        const auto consumers = consumerMap(g);
        auto producers = [&](NodeId id) { return refsOf(g.node(id)); };
        auto users = [&](NodeId id) { return consumers.at(id); };

        for (NodeId id : g.order()) {
            QCOMPARE(producersOf(g, id), producers(id));
            QCOMPARE(consumersOf(g, id), users(id));
        }

        // walking producers from the output ends at nodes without node arguments (inputs,
        // constants, factories such as arange); walking consumers from an input ends at the
        // output or at a node nobody uses
        const NodeId out = g.outputNode();
        QVERIFY(out != kNoNode);
        std::set<NodeId> seen{out};
        std::vector<NodeId> todo{out};
        size_t inputsReached = 0;
        while (!todo.empty()) {
            const NodeId at = todo.back();
            todo.pop_back();
            const auto ps = producersOf(g, at);
            if (ps.empty()) {
                QVERIFY(producers(at).empty());
                const Node& n = g.node(at);
                inputsReached += n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr;
                QVERIFY2(n.op != NodeOp::Output, n.name.c_str());
            }
            for (NodeId p : ps)
                if (seen.insert(p).second) todo.push_back(p);
        }
        QVERIFY(inputsReached > 0);
        for (NodeId ph : g.placeholders()) {
            std::set<NodeId> reached{ph};
            std::vector<NodeId> stack{ph};
            while (!stack.empty()) {
                const NodeId at = stack.back();
                stack.pop_back();
                const auto cs = consumersOf(g, at);
                if (cs.empty()) QVERIFY(g.node(at).op == NodeOp::Output || users(at).empty());
                for (NodeId c : cs)
                    if (reached.insert(c).second) stack.push_back(c);
            }
        }

        // cones: the output's upstream cone is every live node; every node's cones are the
        // recursive reachability, in graph order
        const auto upOut = upstreamCone(g, out);
        QCOMPARE(upOut, reachable(g, out, producers));
        const auto live = upOut.size();
        QVERIFY(live > 0 && live < g.size());
        for (NodeId id : g.order()) {
            const auto up = upstreamCone(g, id);
            const auto down = downstreamCone(g, id);
            QCOMPARE(up, reachable(g, id, producers));
            QCOMPARE(down, reachable(g, id, users));
            QVERIFY(inGraphOrder(g, up) && inGraphOrder(g, down));
            QVERIFY(std::find(up.begin(), up.end(), id) == up.end());
            if (g.node(id).op == NodeOp::Placeholder)
                for (NodeId u : users(id)) QVERIFY(std::find(down.begin(), down.end(), u) != down.end());
            // a node of the output's cone reaches the output; one outside it does not
            const bool isLive = std::find(upOut.begin(), upOut.end(), id) != upOut.end();
            if (id != out) QCOMPARE(std::find(down.begin(), down.end(), out) != down.end(), isLive);
        }
    }

    // W1 where a node refers to another several times, in args and kwargs.
    void walksByHand()
    {
        Graph g;
        Node x, y;
        x.name = x.target = "x";
        y.name = y.target = "y";
        x.op = y.op = NodeOp::Placeholder;
        const NodeId ix = g.addNode(x), iy = g.addNode(y);
        Node a;
        a.name = "a";
        a.target = "aten.add.Tensor";
        a.args = {Arg::ofNode(iy), Arg::ofTuple({Arg::ofNode(ix), Arg::ofNode(iy)})};
        a.kwargs = {{"alpha", Arg::ofNode(ix)}};
        const NodeId ia = g.addNode(a);
        Node b;
        b.name = "b";
        b.target = "aten.mul.Tensor";
        b.args = {Arg::ofNode(ia), Arg::ofNode(ia)};
        const NodeId ib = g.addNode(b);
        Node o;
        o.name = o.target = "output";
        o.op = NodeOp::Output;
        o.args = {Arg::ofTuple({Arg::ofNode(ib), Arg::ofNode(ia)})};
        const NodeId io = g.addNode(o);
        g.rebuildUsers();
        QCOMPARE(producersOf(g, ia), (std::vector<NodeId>{iy, ix}));
        QCOMPARE(producersOf(g, ib), (std::vector<NodeId>{ia}));
        QCOMPARE(producersOf(g, io), (std::vector<NodeId>{ib, ia}));
        QCOMPARE(producersOf(g, ix), std::vector<NodeId>{});
        QCOMPARE(consumersOf(g, ix), (std::vector<NodeId>{ia}));
        QCOMPARE(consumersOf(g, ia), (std::vector<NodeId>{ib, io}));
        QCOMPARE(consumersOf(g, io), std::vector<NodeId>{});
        QCOMPARE(upstreamCone(g, io), (std::vector<NodeId>{ix, iy, ia, ib}));
        QCOMPARE(upstreamCone(g, ib), (std::vector<NodeId>{ix, iy, ia}));
        QCOMPARE(downstreamCone(g, iy), (std::vector<NodeId>{ia, ib, io}));
        QCOMPARE(downstreamCone(g, ib), (std::vector<NodeId>{io}));
        QCOMPARE(upstreamCone(g, kNoNode), std::vector<NodeId>{});
    }

    // W2 on a chain far deeper than any call stack: iterative, and linear.
    void deepChain()
    {
        const int n = 200000;
        Graph g;
        Node x;
        x.name = x.target = "x";
        x.op = NodeOp::Placeholder;
        NodeId prev = g.addNode(x);
        const NodeId first = prev;
        for (int k = 0; k < n; ++k) {
            Node c;
            c.name = "neg_" + std::to_string(k);
            c.target = "aten.neg.default";
            c.args = {Arg::ofNode(prev)};
            prev = g.addNode(std::move(c));
        }
        Node o;
        o.name = o.target = "output";
        o.op = NodeOp::Output;
        o.args = {Arg::ofTuple({Arg::ofNode(prev)})};
        const NodeId out = g.addNode(std::move(o));
        g.rebuildUsers();
        QElapsedTimer timer;
        timer.start();
        const auto up = upstreamCone(g, out);
        const auto down = downstreamCone(g, first);
        QCOMPARE(up.size(), size_t(n + 1));
        QCOMPARE(up.front(), first);
        QCOMPARE(up.back(), prev);
        QCOMPARE(down.size(), size_t(n + 1));
        QCOMPARE(down.back(), out);
        QCOMPARE(upstreamCone(g, first).size(), size_t(0));
        QCOMPARE(downstreamCone(g, out).size(), size_t(0));
        QVERIFY2(timer.elapsed() < 3000, "cones of a 200k-node chain in well under a second");
    }

    void nodeLines_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {
                 "pytorch/gpt2_tiny.joint.code.py",  // gm.code: one-line signature
                 "pytorch/gpt2_tiny.joint.graph.txt",  // print(gm.graph), [#users=N]
                 "pytorch/llama_tiny.joint.graph.txt",
                 "fx/tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt",  // pytree declarations
                 "fx/tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt",  // signature over several lines
                 "fx/tlparse_v2.6dev_gelu_dropout_aot_inference_graph.txt",  // annotated
                 "fx/entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt",  // "a: ..; b: .." declarations
                 "fx/pytorch_test_invoke_subgraph_dynamo_graph.txt",  // Dynamo, nested classes after
                 "fx/tlparse_v2.7dev_exported_program_unbacked_symints.txt",  // ExportedProgram
             })
            QTest::newRow(f) << QString::fromLatin1(f);
    }

    // L1: for every node, the first line that defines it by regular expressions.
    void nodeLines()
    {
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath(file.toStdString()));
        const Loaded& l = load(file.toStdString());
        const Graph& g = *l.graph;
        const QStringList lines = QString::fromStdString(l.text).split(QLatin1Char('\n'));
        const bool listing = file.endsWith(QLatin1String(".graph.txt"));
        const auto [sigFirst, sigLast] = signatureSpan(lines);
        if (!listing) QVERIFY(sigFirst >= 0);
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (n.op == NodeOp::Output) continue;
            const QString name = QRegularExpression::escape(QString::fromStdString(n.name));
            const QRegularExpression def(listing
                                             ? QStringLiteral("^\\s*%%1\\s*:").arg(name)
                                             : QStringLiteral("(^\\s*%1\\s*(:|=(?!=))|;\\s*%1\\s*:\\s*\")").arg(name));
            const QRegularExpression param(QStringLiteral("(\\(|,)\\s*\\**%1\\s*([:,=)]|$)").arg(name));
            int expected = 0;
            for (int k = 0; k < lines.size() && !expected; ++k) {
                const bool inSig = k >= sigFirst && k <= sigLast;
                if (def.match(lines[k]).hasMatch() || (!listing && inSig && param.match(lines[k]).hasMatch()))
                    expected = k + 1;
            }
            const int found = findNodeLine(l.text, n.name);
            QVERIFY2(found > 0, n.name.c_str());
            QVERIFY2(found == expected,
                     qPrintable(QStringLiteral("%1: line %2, expected %3").arg(name).arg(found).arg(expected)));
            const QString& line = lines[found - 1];
            QVERIFY(line.contains(QRegularExpression(QStringLiteral("\\b%1\\b").arg(name))));
            const bool inSig = found - 1 >= sigFirst && found - 1 <= sigLast;
            if (!listing && n.op != NodeOp::Placeholder) QVERIFY2(!inSig, n.name.c_str());
            if (!listing && n.op == NodeOp::Placeholder)
                QVERIFY2(inSig || line.contains(QRegularExpression(QStringLiteral("(^|;)\\s*%1\\s*[:=]").arg(name))),
                         n.name.c_str());
        }
        QCOMPARE(findNodeLine(l.text, "no_such_node_anywhere"), 0);
        if (g.findByName("mm") != kNoNode && g.findByName("mm_1") != kNoNode) {  // not the prefix of mm_1
            const int mm = findNodeLine(l.text, "mm"), mm1 = findNodeLine(l.text, "mm_1");
            QVERIFY(mm > 0 && mm1 > 0 && mm != mm1);
            QVERIFY(!lines[mm - 1].contains(QLatin1String("mm_1")) || lines[mm - 1].contains(QLatin1String("(mm_1")));
        }
    }

    void nodeLinesByHand()
    {
        const std::string code = "    mm_1 = f()\n"
                                 "    x = g(mm_1);  mm = None\n"
                                 "    mm == 3\n"
                                 "    mm = h()\n";
        QCOMPARE(findNodeLine(code, "mm"), 4);
        QCOMPARE(findNodeLine(code, "mm_1"), 1);
        QCOMPARE(findNodeLine(code, "x"), 2);
        QCOMPARE(findNodeLine(code, "m"), 0);
        QCOMPARE(findNodeLine(code, "mm_"), 0);
        QCOMPARE(findNodeLine(code, ""), 0);
        QCOMPARE(findNodeLine("", "mm"), 0);
        QCOMPARE(findNodeLine("    mm = f()\r\n    mm_2 = g()\r\n", "mm_2"), 2);

        const std::string sig = "\n\ndef forward(self, a: \"f32[mm, 2]\",  # mm\n"
                                "        mm: \"f32[2]\", *,\n"
                                "    mm_2 = 1.0) -> \"f32[mm_3]\":\n"
                                "    mm_3 = a\n";
        QCOMPARE(findNodeLine(sig, "a"), 3);
        QCOMPARE(findNodeLine(sig, "mm"), 4);
        QCOMPARE(findNodeLine(sig, "mm_2"), 5);
        QCOMPARE(findNodeLine(sig, "mm_3"), 6);
        QCOMPARE(findNodeLine(sig, "f32"), 0);

        const std::string listing = "graph():\n"
                                    "    %mm_1 : [num_users=1] = placeholder[target=mm_1]\n"
                                    "    %mm : Tensor \"f32[2]\" = call_function[target=torch.ops.aten.mm.default]"
                                    "(args = (%mm_1,), kwargs = {})\n"
                                    "    return (mm,)\n";
        QCOMPARE(findNodeLine(listing, "mm"), 3);
        QCOMPARE(findNodeLine(listing, "mm_1"), 2);
        QCOMPARE(findNodeLine(listing, "mm_"), 0);

        const std::string pytree = "    def forward(self, primals, tangents):\n"
                                   "        primals_1: \"i64[4]\"; primals_2: \"f32[4]\"\n"
                                   "        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec(x)\n"
                                   "        a, b = c\n";
        QCOMPARE(findNodeLine(pytree, "primals"), 1);
        QCOMPARE(findNodeLine(pytree, "primals_2"), 2);
        QCOMPARE(findNodeLine(pytree, "tangents_1"), 3);
        QCOMPARE(findNodeLine(pytree, "b"), 4);
        QCOMPARE(findNodeLine(pytree, "c"), 0);
    }

    void resultsModel()
    {
        const auto path = fxltest::corpusPath(kGraphs[0]);
        FXL_REQUIRE_CORPUS(path);
        const Graph& g = *load(kGraphs[0]).graph;
        const GroupTree t(g);
        SearchResultsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(SearchResultsModel::ColumnCount));
        QCOMPARE(model.headerData(SearchResultsModel::OpColumn, Qt::Horizontal).toString(), QStringLiteral("Op"));

        const auto mm = filterNodes(g, [](const Node& n) { return n.target == "aten.mm.default"; });
        model.setResults(&t, search(t, "op:mm"));
        QCOMPARE(model.rowCount(), int(mm.size()));
        QCOMPARE(model.rowCount(), 19);
        const QStringList lines = model.dump().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), int(mm.size()));
        for (int r = 0; r < 3; ++r) {
            const Node& n = g.node(mm[static_cast<size_t>(r)]);
            const QString expected = QString::fromStdString(n.name) + QLatin1Char('\t')
                + QStringLiteral("aten.mm.default\t") + moduleOf(n) + QLatin1Char('\t')
                + QString::fromLatin1(phaseClassName(t.phaseOf(n.id)));
            QCOMPARE(lines[r], expected);
        }
        QCOMPARE(lines[0].section(QLatin1Char('\t'), 0, 0), QStringLiteral("mm"));
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(model.nodeAt(r), mm[static_cast<size_t>(r)]);
            QCOMPARE(
                model.data(model.index(r, SearchResultsModel::PhaseColumn), SearchResultsModel::NodeIdRole).toInt(),
                int(mm[static_cast<size_t>(r)]));
            QCOMPARE(model.rowOf(mm[static_cast<size_t>(r)]), r);
        }
        QCOMPARE(model.nodeAt(model.rowCount()), kNoNode);

        const auto b0 = search(t, "module:blocks.0");
        model.setResults(&t, b0);
        QCOMPARE(model.rowCount(), int(b0.size()));
        QCOMPARE(model.data(model.index(0, SearchResultsModel::NameColumn)).toString(),
                 QString::fromStdString(g.node(b0.front()).name));
        QVERIFY(model.data(model.index(0, SearchResultsModel::ModuleColumn))
                    .toString()
                    .startsWith(QLatin1String("blocks.0")));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.tree() == nullptr);
        model.setResults(nullptr, b0);
        QCOMPARE(model.rowCount(), 0);
    }
};

FXL_TEST_GUILESS_MAIN(TestNodeSearch)
}  // namespace test_node_search
#include "test_node_search.moc"
