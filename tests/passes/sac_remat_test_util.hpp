// What the sac / remat tests share (test_sac, test_remat): graphs from print_readable lines
// with meta set from a compact spec, running one pass, looking at nodes and tags, and the
// corpus traces. Header-only; each test executable includes it once.
#pragma once

#include <QStringList>
#include <QtTest>

#include <filesystem>
#include <set>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/phases.hpp"
#include "core/analysis/verify.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "passes/sac.hpp"

#include "test_util.hpp"

namespace sacremattest {

using namespace fxl;

inline const std::filesystem::path kPytorch = fxltest::corpusPath("pytorch");

// print_readable text from a signature and body lines (8-space indented).
inline Graph parseG(const std::string& sig, const std::vector<std::string>& lines)
{
    std::string text = "class G(torch.nn.Module):\n    def forward(self, " + sig + "):\n";
    for (const auto& l : lines) text += "        " + l + "\n";
    Graph g = parseFxText(text, "<test>");
    g.rebuildUsers();
    return g;
}

// Space-separated meta edits: "n=PREFER_RECOMPUTE", "n@backward", "n#3" (ac_graph_id),
// "n%2" (custom.ac_region_id), "n:layers.0.attn" (module path).
inline void setMeta(Graph& g, const std::string& spec)
{
    QString s = QString::fromStdString(spec);
    for (const QString& t : s.split(' ', Qt::SkipEmptyParts)) {
        for (QChar sep : {QChar('='), QChar('@'), QChar('#'), QChar('%'), QChar(':')}) {
            if (!t.contains(sep)) continue;
            NodeId id = g.findByName(t.section(sep, 0, 0).toStdString());
            if (id == kNoNode) qFatal("setMeta: no node %s", qPrintable(t));
            std::string v = t.section(sep, 1).toStdString();
            Node& n = g.node(id);
            if (sep == '=')
                n.meta.recompute = *recomputeFromName(v);
            else if (sep == '@')
                n.meta.phase = *phaseFromName(v);
            else if (sep == '#')
                n.meta.acGraphId = std::stoi(v);
            else if (sep == '%')
                setAcRegionId(n, std::stoi(v));
            else
                n.meta.modulePath = v;
            break;
        }
    }
}

inline const Pass& pass(const std::string& name)
{
    const Pass* p = PassRegistry::instance().find(name);
    if (!p) qFatal("pass %s not registered", name.c_str());
    return *p;
}

// Runs one pass directly on g (in place), options given as "a=1,b=x".
inline ChangeLog runPass(Graph& g, const std::string& name, const std::map<std::string, std::string>& raw = {})
{
    const Pass& p = pass(name);
    PassContext ctx;
    p.run(g, resolveOptions(p.options(), raw), ctx);
    return ctx.log;
}

inline int countTarget(const Graph& g, const std::string& target)
{
    int c = 0;
    g.forEachNode([&](const Node& n) { c += n.isOp(target) ? 1 : 0; });
    return c;
}

inline size_t pos(const Graph& g, const std::string& name)
{
    NodeId id = g.findByName(name);
    if (id == kNoNode) qFatal("no node %s", name.c_str());
    return g.positionOf(id);
}

inline std::string argName(const Graph& g, const std::string& node, size_t k)
{
    const Node& n = g.node(g.findByName(node));
    if (k >= n.args.size() || !n.args[k].isNode()) return "";
    return g.node(n.args[k].node).name;
}

inline QStringList order(const Graph& g)
{
    QStringList out;
    g.forEachNode([&](const Node& n) { out << QString::fromStdString(n.name); });
    return out;
}

inline std::string tagOf(const Graph& g, const std::string& name)
{
    return std::string(recomputeName(g.node(g.findByName(name)).meta.recompute));
}

inline std::shared_ptr<Graph> loadCorpus(const std::string& file)
{
    auto src = openSource((kPytorch / file).string());
    return src->graph(src->artifacts.at(0).id);
}

// --- S1: chain a -> b -> c, c read only by the backward, a also read by a forward node
inline const std::vector<std::string> kChain = {
    "a: \"f32[64]\" = torch.ops.aten.relu.default(x)",      "f: \"f32[64]\" = torch.ops.aten.neg.default(a)",
    "b: \"f32[64]\" = torch.ops.aten.sin.default(a)",       "c: \"f32[64]\" = torch.ops.aten.cos.default(b)",
    "s: \"f32[]\" = torch.ops.aten.sum.default(f)",         "ones: \"f32[]\" = torch.ops.aten.ones_like.default(s)",
    "g1: \"f32[64]\" = torch.ops.aten.mul.Tensor(ones, c)", "return (s, g1)",
};
inline const char* const kChainTags =
    "a=PREFER_RECOMPUTE b=PREFER_RECOMPUTE c=PREFER_RECOMPUTE f=MUST_SAVE s=MUST_SAVE "
    "a#0 b#0 c#0 f#0 s#0";

}  // namespace sacremattest
