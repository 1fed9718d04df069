// fxlens render (see cli_render.hpp).
#include "app/cli_render.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli_common.hpp"
#include "core/formats/source.hpp"

#ifdef FXLENS_HAVE_VIEWER
#include <QBuffer>
#include <QByteArray>
#include <QGuiApplication>
#include <QImage>

#include "viewer/layout/graph_layout.hpp"
#include "viewer/model/node_search.hpp"
#include "viewer/model/view_graph.hpp"
#include "viewer/render/painter_canvas.hpp"
#include "viewer/render/scene_draw.hpp"
#endif

namespace fxl::cli {

#ifndef FXLENS_HAVE_VIEWER
int runRender(const Args&, Io&)
{
    throw UsageError("render: this fxlens was built without the viewer (Qt 6 and Graphviz were not found)");
}
#else

namespace {

// --expand PATH: a group key ("forward/blocks.0"), or a label path without the phase when it
// names one group ("blocks.0"), or "all".
void expandPaths(const viewer::GroupTree& tree, const std::vector<std::string>& paths, std::set<int>& expanded)
{
    for (const std::string& p : paths) {
        if (p == "all") {
            for (size_t k = 1; k < tree.groups().size(); ++k) expanded.insert(static_cast<int>(k));
            continue;
        }
        int k = tree.find(p);
        if (k < 0) {
            std::vector<int> matches;
            for (size_t g = 1; g < tree.groups().size(); ++g) {
                const std::string& key = tree.group(static_cast<int>(g)).key;
                if (key.size() > p.size() && key.ends_with("/" + p)) matches.push_back(static_cast<int>(g));
            }
            if (matches.size() > 1) {
                std::string list;
                for (int m : matches) list += (list.empty() ? "" : ", ") + tree.group(m).key;
                throw UsageError("--expand " + p + " names several groups (" + list + "): give the whole path");
            }
            if (matches.empty()) {
                std::string top;
                for (int c : tree.group(0).childGroups) top += (top.empty() ? "" : ", ") + tree.group(c).key;
                throw UsageError("--expand " + p + ": no such group (top level: " + top
                                 + "; paths as phase/module, e.g. forward/blocks.0)");
            }
            k = matches.front();
        }
        for (int c : tree.chain(k)) expanded.insert(c);
    }
}

}  // namespace

int runRender(const Args& args, Io& io)
{
    const std::string out = args.value("out");
    if (out.empty()) throw UsageError("render needs --out FILE.svg or FILE.png");
    const bool svg = out.ends_with(".svg"), png = out.ends_with(".png");
    if (!svg && !png) throw UsageError("--out " + out + ": the file name must end in .svg or .png");
    const std::string grouping = args.value("group", "phase,module");
    if (grouping != "phase,module" && grouping != "none")
        throw UsageError("--group expects phase,module or none, got '" + grouping + "'");

    const LoadedGraph lg = loadGraph(args.positional.front(), args.value("graph"), io);
    const viewer::GroupTree tree(*lg.graph);
    std::set<int> expanded;
    if (grouping == "none")
        for (size_t k = 1; k < tree.groups().size(); ++k) expanded.insert(static_cast<int>(k));
    if (args.has("expand")) expandPaths(tree, args.options.at("expand"), expanded);
    const std::string selected = args.value("select");
    if (!selected.empty()) {
        const NodeId id = lg.graph->findByName(selected);
        if (id == kNoNode) throw UsageError("--select " + selected + ": the graph has no node of that name");
        viewer::expandTo(tree, id, expanded);
    }
    viewer::ViewOptions viewOptions;
    viewOptions.foldIdentical = args.has("fold");
    const viewer::ViewGraph view = viewer::buildViewGraph(tree, expanded, viewOptions);
    viewer::Layout layout = viewer::layoutView(view, tree);
    viewer::DrawOptions draw;
    draw.selected = selected;
    draw.dark = args.has("dark");
    if (args.has("trace")) {
        const std::string dir = args.value("trace");
        if (selected.empty()) throw UsageError("--trace needs --select NAME: the node whose cone to highlight");
        if (dir != "up" && dir != "down") throw UsageError("--trace expects up or down, got '" + dir + "'");
        const NodeId id = lg.graph->findByName(selected);
        viewer::setHighlights(
            tree, dir == "up" ? viewer::upstreamCone(*lg.graph, id) : viewer::downstreamCone(*lg.graph, id), draw);
    }
    // the legend sits right of the drawing
    const viewer::Box legend = viewer::legendSize();
    const double legendX = layout.width + 10;
    if (args.has("legend")) {
        layout.width = legendX + legend.w + 10;
        layout.height = std::max(layout.height, legend.h + 20);
    }
    auto drawAll = [&](viewer::Canvas& c) {
        viewer::drawScene(c, tree, view, layout, draw, false);
        if (args.has("legend")) viewer::drawLegend(c, legendX, 10, draw.dark);
        c.end();
    };

    std::string bytes;
    if (svg) {
        viewer::SvgCanvas canvas;
        drawAll(canvas);
        bytes = canvas.svg();
    } else {
        // text needs a QGuiApplication (fonts); no display is needed
        std::unique_ptr<QGuiApplication> app;
        if (!QGuiApplication::instance()) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            static int argc = 1;
            static char name[] = "fxlens";
            static char* argv[] = {name, nullptr};
            app = std::make_unique<QGuiApplication>(argc, argv);
        }
        const double scale = args.has("scale") ? std::stod(args.value("scale")) : 1.0;
        if (!(scale > 0 && scale <= 8)) throw UsageError("--scale expects a number in (0, 8]");
        if (layout.width * scale * layout.height * scale > 400e6)
            throw UsageError("the drawing is " + std::to_string(static_cast<long long>(layout.width)) + " x "
                             + std::to_string(static_cast<long long>(layout.height))
                             + " points: too large for a PNG; write an SVG, collapse groups or lower --scale");
        const QImage img = viewer::renderImage(layout.width, layout.height, scale, draw.dark, drawAll);
        QByteArray data;
        QBuffer buf(&data);
        buf.open(QIODevice::WriteOnly);
        img.save(&buf, "PNG");
        bytes.assign(data.constData(), static_cast<size_t>(data.size()));
    }
    writeFileAtomic(out, bytes, args.has("force"));

    size_t edges = 0;
    for (const auto& e : layout.edges) edges += e.points.size() >= 4 ? 1 : 0;
    nlohmann::json doc = {{"fxlens", "render"},
                          {"source", lg.source->path},
                          {"graph", lg.id},
                          {"out", out},
                          {"nodes", view.nodeItems},
                          {"groups", view.groupItems},
                          {"stubs", view.stubItems},
                          {"edges", edges},
                          {"expanded", view.containers.size() - 1},
                          {"width", layout.width},
                          {"height", layout.height},
                          {"dot_containers", layout.dotContainers},
                          {"layered_containers", layout.layeredContainers}};
    if (args.has("json")) {
        io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    io.out << "wrote " << out << ": " << view.nodeItems << " nodes, " << view.groupItems << " groups, "
           << view.stubItems << " stubs, " << edges << " edges (" << static_cast<long long>(layout.width) << " x "
           << static_cast<long long>(layout.height) << " points)\n";
    return kExitOk;
}

#endif

}  // namespace fxl::cli
