#include "viewer/render/scene_draw.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fxl::viewer {

std::string Rgb::hex() const
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
    return buf;
}

Rgb phaseColour(PhaseClass p, bool dark)
{
    if (dark) {
        switch (p) {
        case PhaseClass::Input: return {58, 58, 62};
        case PhaseClass::Forward: return {32, 58, 92};
        case PhaseClass::Loss: return {92, 72, 28};
        case PhaseClass::Backward: return {96, 40, 40};
        case PhaseClass::Recomputed: return {68, 50, 100};
        case PhaseClass::Output: return {36, 80, 44};
        }
    }
    switch (p) {
    case PhaseClass::Input: return {238, 238, 238};
    case PhaseClass::Forward: return {222, 235, 250};
    case PhaseClass::Loss: return {250, 236, 204};
    case PhaseClass::Backward: return {250, 224, 222};
    case PhaseClass::Recomputed: return {232, 222, 248};
    case PhaseClass::Output: return {224, 240, 224};
    }
    return {255, 255, 255};
}

Rgb opClassColour(OpClass c)
{
    switch (c) {
    case OpClass::Matmul: return {31, 119, 180};
    case OpClass::Pointwise: return {150, 150, 150};
    case OpClass::View: return {200, 200, 200};
    case OpClass::Reduction: return {44, 160, 44};
    case OpClass::Collective: return {214, 39, 40};
    case OpClass::Random: return {227, 119, 194};
    case OpClass::Opaque: return {140, 86, 75};
    case OpClass::Input: return {90, 90, 90};
    case OpClass::Output: return {23, 190, 207};
    }
    return {0, 0, 0};
}

namespace {

const Theme kLight{{255, 255, 255}, {30, 30, 30},  {90, 90, 90},  {120, 120, 120}, {110, 110, 110},
                   {255, 140, 0},   {214, 39, 40}, {0, 170, 220}, {255, 255, 255}};
const Theme kDark{{30, 31, 34},   {230, 230, 230}, {170, 170, 175}, {140, 140, 148}, {150, 150, 158},
                  {255, 160, 40}, {255, 90, 90},   {60, 200, 255},  {45, 46, 50}};

Rgb mix(Rgb a, Rgb b, int wa, int wb)
{
    const int t = wa + wb;
    return {static_cast<uint8_t>((a.r * wa + b.r * wb) / t), static_cast<uint8_t>((a.g * wa + b.g * wb) / t),
            static_cast<uint8_t>((a.b * wa + b.b * wb) / t)};
}

std::string clip(const std::string& s, double width, double charWidth)
{
    const size_t fit = static_cast<size_t>(std::max(1.0, width / charWidth));
    if (s.size() <= fit) return s;
    return s.substr(0, fit > 1 ? fit - 1 : 0) + "…";
}

// A zoomed-out box's title alone, `opts.titleScale` times its size (at most three quarters of
// the box's height), centred in the box's height; it may run one box width past the box's right
// edge (dot leaves at least that much between the boxes of a rank only where the rank is
// sparse, the usual case when zoomed out this far).
void scaledTitle(Canvas& c, const Box& b, double left, const std::string& title, double size, Rgb colour,
                 const DrawOptions& opts)
{
    const double s = std::min(size * opts.titleScale, 0.75 * b.h);
    c.text(b.x + left, b.y + b.h / 2 + s * 0.35, clip(title, 2 * b.w - left - 4, 0.62 * s), s, colour, true);
}

}  // namespace

double labelScale(double viewScale)
{
    constexpr double kBoxHeight = 38, kMinBoxPixels = 9, kMinTextPixels = 7, kTitleSize = 10;
    if (viewScale * kBoxHeight < kMinBoxPixels) return -1;
    if (viewScale >= 0.7) return 1;
    return std::max(1.0, kMinTextPixels / (kTitleSize * viewScale));
}

const Theme& theme(bool dark) { return dark ? kDark : kLight; }

void setHighlights(const GroupTree& tree, const std::vector<NodeId>& nodes, DrawOptions& opts)
{
    opts.highlightNodes.clear();
    opts.highlightGroups.clear();
    if (nodes.empty()) return;
    size_t ids = 0;
    for (NodeId id : tree.graph().order()) ids = std::max(ids, static_cast<size_t>(id) + 1);
    opts.highlightNodes.assign(ids, 0);
    opts.highlightGroups.assign(tree.groups().size(), 0);
    for (NodeId id : nodes) {
        opts.highlightNodes[static_cast<size_t>(id)] = 1;
        for (int k = tree.groupOf(id); k >= 0 && !opts.highlightGroups[static_cast<size_t>(k)];
             k = tree.group(k).parent)
            opts.highlightGroups[static_cast<size_t>(k)] = 1;
    }
}

void setMarks(const GroupTree& tree, std::vector<uint8_t> nodeMarks, std::vector<Rgb> colours, DrawOptions& opts)
{
    opts.groupMarks.assign(tree.groups().size(), 0);
    for (NodeId id : tree.graph().order()) {
        if (static_cast<size_t>(id) >= nodeMarks.size()) continue;
        const uint8_t m = nodeMarks[static_cast<size_t>(id)];
        if (!m) continue;
        for (int k = tree.groupOf(id); k >= 0 && opts.groupMarks[static_cast<size_t>(k)] < m; k = tree.group(k).parent)
            opts.groupMarks[static_cast<size_t>(k)] = m;
    }
    opts.nodeMarks = std::move(nodeMarks);
    opts.markColours = std::move(colours);
}

std::vector<uint8_t> diffMarks(const GraphDiff& d, const Graph& g, bool sideB)
{
    size_t ids = 0;
    for (NodeId id : g.order()) ids = std::max(ids, static_cast<size_t>(id) + 1);
    std::vector<uint8_t> out(ids, 0);
    for (const NodeDiff& n : d.nodes) {
        const NodeId id = sideB ? n.b : n.a;
        if (id == kNoNode || static_cast<size_t>(id) >= ids) continue;
        uint8_t m = MarkNone;
        switch (n.cls) {
        case DiffClass::Unchanged: break;
        case DiffClass::Added: m = MarkAdded; break;
        case DiffClass::Removed: m = MarkRemoved; break;
        case DiffClass::Changed:
            m = n.fields.size() == 1 && n.fields.front() == "inputs" ? MarkRewired : MarkChanged;
            break;
        }
        out[static_cast<size_t>(id)] = m;
    }
    return out;
}

std::vector<Rgb> diffMarkColours() { return {{0, 0, 0}, {40, 110, 220}, {225, 150, 0}, {30, 160, 60}, {210, 40, 40}}; }

const char* diffMarkName(DiffMark m)
{
    switch (m) {
    case MarkNone: return "";
    case MarkRewired: return "rewired";
    case MarkChanged: return "changed";
    case MarkAdded: return "added";
    case MarkRemoved: return "removed";
    }
    return "";
}

std::vector<uint8_t> ulpMarks(const Graph& g, const std::map<std::string, uint64_t>& ulpByName)
{
    size_t ids = 0;
    for (NodeId id : g.order()) ids = std::max(ids, static_cast<size_t>(id) + 1);
    std::vector<uint8_t> out(ids, 0);
    for (NodeId id : g.order()) {
        const auto it = ulpByName.find(g.node(id).name);
        if (it == ulpByName.end()) continue;
        const uint64_t u = it->second;
        out[static_cast<size_t>(id)] = u == 0 ? 1 : u <= 4 ? 2 : u <= 1024 ? 3 : 4;
    }
    return out;
}

// teal, lavender, magenta, plum: hues none of the diff's colours (blue, orange, green, red) has,
// so a graph coloured by a run is never read as one coloured by a diff
std::vector<Rgb> ulpMarkColours() { return {{0, 0, 0}, {0, 150, 160}, {150, 110, 230}, {200, 60, 200}, {105, 25, 95}}; }

const char* ulpMarkName(uint8_t m)
{
    switch (m) {
    case 1: return "bitwise";
    case 2: return "\u2264 4 ULP";
    case 3: return "\u2264 1024 ULP";
    case 4: return "> 1024 ULP";
    default: return "";
    }
}

Box drawDiffLegend(Canvas& c, double x, double y, bool dark)
{
    const Theme& th = theme(dark);
    const auto colours = diffMarkColours();
    const Box size{x, y, 4 * 80.0 + 8, 22};
    c.beginItem("legend", "diff-legend");
    c.rect(size, th.background, th.border, 1.0, 4);
    double cx = x + 8;
    for (DiffMark m : {MarkAdded, MarkRemoved, MarkChanged, MarkRewired}) {
        c.rect({cx, y + 6, 12, 10}, colours[m], colours[m], 0, 2);
        c.text(cx + 16, y + 15, diffMarkName(m), 9, th.text);
        cx += 80;
    }
    c.endItem();
    return size;
}

std::vector<Point> arrowHead(const std::vector<Point>& pts)
{
    // along the last control segment (dot repeats the end point when it finishes at the head)
    const Point& tip = pts.back();
    const Point& from = pts.size() >= 4 && pts[pts.size() - 2].x == tip.x && pts[pts.size() - 2].y == tip.y
        ? pts[pts.size() - 4]
        : pts[pts.size() - 2];
    double dx = tip.x - from.x, dy = tip.y - from.y;
    const double len = std::max(1e-6, std::sqrt(dx * dx + dy * dy));
    dx /= len;
    dy /= len;
    return {tip,
            {tip.x - 7 * dx + 3.5 * dy, tip.y - 7 * dy - 3.5 * dx},
            {tip.x - 7 * dx - 3.5 * dy, tip.y - 7 * dy + 3.5 * dx}};
}

namespace {

bool litNode(const DrawOptions& opts, NodeId id)
{
    return id >= 0 && static_cast<size_t>(id) < opts.highlightNodes.size()
        && opts.highlightNodes[static_cast<size_t>(id)];
}

uint8_t markOf(const std::vector<uint8_t>& marks, long k)
{
    return k >= 0 && static_cast<size_t>(k) < marks.size() ? marks[static_cast<size_t>(k)] : 0;
}

// The mark's band at the foot of a box, and the colour of its outline.
void drawMark(Canvas& c, const Box& b, uint8_t m, const DrawOptions& opts)
{
    if (!m || m >= opts.markColours.size()) return;
    const Rgb col = opts.markColours[m];
    c.rect({b.x + 1, b.y + b.h - 5, b.w - 2, 4}, col, col, 0, 1);
}

bool litGroup(const DrawOptions& opts, int k)
{
    return k >= 0 && static_cast<size_t>(k) < opts.highlightGroups.size()
        && opts.highlightGroups[static_cast<size_t>(k)];
}

// A colour three quarters of the way to the background: outside a traced cone.
Rgb dimmed(Rgb c, const DrawOptions& opts) { return mix(c, theme(opts.dark).background, 1, 3); }

}  // namespace

void drawFrame(Canvas& c, const GroupTree& tree, const Layout& l, size_t k, const DrawOptions& opts)
{
    const Theme& th = theme(opts.dark);
    const GroupInfo& g = tree.group(l.containers[k].group);
    const Box& b = l.containers[k].box;
    c.beginItem("frame", g.key);
    const Rgb fill = mix(phaseColour(g.phase, opts.dark), th.background, 1, 2);
    c.rect(b, fill, g.differs ? th.differs : th.border, g.differs ? 2.0 : 1.0, 6);
    if (opts.labels) c.text(b.x + 8, b.y + 14, clip(g.label, b.w - 16, 6.2), 10, th.text, true);
    c.endItem();
}

void drawEdge(Canvas& c, const EdgePath& e, const DrawOptions& opts)
{
    if (e.points.size() < 4) return;
    c.beginItem("edge", std::to_string(e.edge));
    c.bezier(e.points, theme(opts.dark).edge, 1.0);
    c.endItem();
}

void drawItem(Canvas& c, const GroupTree& tree, const ViewGraph& v, const Layout& l, size_t k, const DrawOptions& opts)
{
    const Theme& th = theme(opts.dark);
    const ViewItem& it = v.items[k];
    const Box& b = l.items[k];
    switch (it.kind) {
    case ItemKind::Node: {
        const bool sel = !opts.selected.empty() && it.title == opts.selected;
        const bool lit = litNode(opts, it.node);
        const uint8_t mark = markOf(opts.nodeMarks, it.node);
        // a traced cone in front: what is outside it fades
        const bool dim = !opts.highlightNodes.empty() && !lit && !sel;
        c.beginItem("node", it.title);
        const Rgb stroke = sel                       ? th.selected
            : lit                                    ? th.highlight
            : mark && mark < opts.markColours.size() ? opts.markColours[mark]
                                                     : th.border;
        c.rect(b, dim ? dimmed(phaseColour(it.phase, opts.dark), opts) : phaseColour(it.phase, opts.dark),
               dim ? dimmed(stroke, opts) : stroke, sel || lit || mark ? 2.5 : 1.0, 3);
        drawMark(c, b, mark, opts);
        c.rect({b.x, b.y, 5, b.h}, opClassColour(it.opClass), opClassColour(it.opClass), 0, 0);
        if (opts.labels && opts.titleScale > 1) {
            scaledTitle(c, b, 9, it.title, 10, th.text, opts);
        } else if (opts.labels) {
            c.text(b.x + 9, b.y + 14, clip(it.title, b.w - 12, 6.2), 10, th.text, true);
            c.text(b.x + 9, b.y + 27, clip(it.subtitle, b.w - 12, 5.0), 8, th.subText);
        }
        c.endItem();
        break;
    }
    case ItemKind::Group: {
        const GroupInfo& g = tree.group(it.group);
        c.beginItem("group", g.key);
        const bool lit = litGroup(opts, it.group);
        const bool dim = !opts.highlightNodes.empty() && !lit;
        const Rgb fill = dim ? dimmed(phaseColour(it.phase, opts.dark), opts) : phaseColour(it.phase, opts.dark);
        if (it.folded > 1) c.rect({b.x + 4, b.y + 4, b.w, b.h}, fill, th.border, 1.0, 4);  // a stack: several
        c.rect({b.x + 4, b.y - 4, b.w * 0.4, 6}, fill, th.border, 1.0, 2);  // folder tab
        const uint8_t mark = markOf(opts.groupMarks, it.group);
        c.rect(b, fill,
               g.differs                                    ? th.differs
                   : lit                                    ? th.highlight
                   : mark && mark < opts.markColours.size() ? opts.markColours[mark]
                                                            : th.border,
               g.differs || lit || mark ? 2.5 : 1.5, 4);
        drawMark(c, b, mark, opts);
        if (opts.labels && opts.titleScale > 1) {
            scaledTitle(c, b, 8, it.title, 10, th.text, opts);
        } else if (opts.labels) {
            c.text(b.x + 8, b.y + 17, clip(it.title, b.w - 16, 6.2), 10, th.text, true);
            c.text(b.x + 8, b.y + 32, clip(it.subtitle, b.w - 16, 5.0), 8, g.differs ? th.differs : th.subText);
        }
        c.endItem();
        break;
    }
    case ItemKind::Stub: {
        c.beginItem(it.incoming ? "stub-in" : "stub-out", it.title);
        c.rect(b, th.stubFill, th.border, 1.0, 9, true);
        if (opts.labels && opts.titleScale > 1)
            scaledTitle(c, b, 7, it.title, 9, th.subText, opts);
        else if (opts.labels)
            c.text(b.x + 7, b.y + 14, clip(it.title, b.w - 10, 5.6), 9, th.subText);
        c.endItem();
        break;
    }
    }
}

void drawScene(Canvas& c, const GroupTree& tree, const ViewGraph& v, const Layout& l, const DrawOptions& opts,
               bool finish)
{
    c.begin(l.width, l.height, theme(opts.dark).background);
    // frames of the expanded groups (the root has none), then edges, then boxes
    for (size_t k = 1; k < l.containers.size(); ++k) drawFrame(c, tree, l, k, opts);
    for (const EdgePath& e : l.edges) drawEdge(c, e, opts);
    for (size_t k = 0; k < v.items.size(); ++k) drawItem(c, tree, v, l, k, opts);
    if (finish) c.end();
}

Box legendSize()
{
    // phases, operator classes, outlines, diff marks, run marks: a heading and rows each
    return {0, 0, 250, 16 + 6 * 16 + 8 + 16 + 7 * 16 + 8 + 16 + 4 * 16 + 8 + 16 + 4 * 16 + 8 + 16 + 4 * 16 + 8};
}

Box drawLegend(Canvas& c, double x, double y, bool dark)
{
    const Theme& th = theme(dark);
    const Box size = legendSize();
    c.beginItem("legend", "legend");
    c.rect({x, y, size.w, size.h}, th.background, th.border, 1.0, 4);
    double at = y + 14;
    c.text(x + 8, at, "phase (fill)", 10, th.text, true);
    at += 4;
    for (PhaseClass p : {PhaseClass::Input, PhaseClass::Forward, PhaseClass::Loss, PhaseClass::Backward,
                         PhaseClass::Recomputed, PhaseClass::Output}) {
        c.rect({x + 8, at, 22, 12}, phaseColour(p, dark), th.border, 1.0, 2);
        c.text(x + 38, at + 10, phaseClassName(p), 9, th.text);
        at += 16;
    }
    at += 8 + 10;
    c.text(x + 8, at, "operator class (left stripe)", 10, th.text, true);
    at += 4;
    for (OpClass k : {OpClass::Matmul, OpClass::Pointwise, OpClass::View, OpClass::Reduction, OpClass::Collective,
                      OpClass::Random, OpClass::Opaque}) {
        c.rect({x + 8, at, 6, 12}, opClassColour(k), opClassColour(k), 0, 0);
        c.text(x + 38, at + 10, opClassName(k), 9, th.text);
        at += 16;
    }
    // every other colour on screen: outlines, the diff's marks, a run's marks
    auto section = [&](const char* title, const std::vector<std::pair<Rgb, std::string>>& rows) {
        at += 8 + 10;
        c.text(x + 8, at, title, 10, th.text, true);
        at += 4;
        for (const auto& [colour, name] : rows) {
            c.rect({x + 8, at, 22, 12}, th.background, colour, 2.5, 2);
            c.text(x + 38, at + 10, name, 9, th.text);
            at += 16;
        }
    };
    section("outline",
            {{th.selected, "selected"},
             {th.highlight, "traced cone (Ctrl+U / Ctrl+D; the rest fades)"},
             {th.differs, "differs from its identical siblings"},
             {th.border, "a stub: an edge to a far node"}});
    const auto diff = diffMarkColours();
    section("diff (Diff tab)",
            {{diff[MarkAdded], "added"},
             {diff[MarkRemoved], "removed"},
             {diff[MarkChanged], "changed"},
             {diff[MarkRewired], "rewired (inputs only)"}});
    const auto ulp = ulpMarkColours();
    section("a run's values (colour by ULP)",
            {{ulp[1], ulpMarkName(1)}, {ulp[2], ulpMarkName(2)}, {ulp[3], ulpMarkName(3)}, {ulp[4], ulpMarkName(4)}});
    c.endItem();
    return {x, y, size.w, size.h};
}

// ------------------------------------------------------------------ SVG

namespace {

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string escape(const std::string& s)
{
    std::string out;
    for (char ch : s) {
        switch (ch) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += ch;
        }
    }
    return out;
}

}  // namespace

void SvgCanvas::begin(double width, double height, Rgb background)
{
    out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width)
        + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height)
        + "\" font-family=\"DejaVu Sans, sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\""
        + num(height) + "\" fill=\"" + background.hex() + "\"/>\n";
}

void SvgCanvas::beginItem(const std::string& cls, const std::string& id)
{
    out_ += "<g class=\"" + cls + "\" data-id=\"" + escape(id) + "\">";
}

void SvgCanvas::endItem() { out_ += "</g>\n"; }

void SvgCanvas::rect(const Box& b, Rgb fill, Rgb stroke, double strokeWidth, double radius, bool dashed)
{
    out_ += "<rect x=\"" + num(b.x) + "\" y=\"" + num(b.y) + "\" width=\"" + num(b.w) + "\" height=\"" + num(b.h)
        + "\" rx=\"" + num(radius) + "\" fill=\"" + fill.hex() + "\"";
    if (strokeWidth > 0) out_ += " stroke=\"" + stroke.hex() + "\" stroke-width=\"" + num(strokeWidth) + "\"";
    if (dashed) out_ += " stroke-dasharray=\"3,2\"";
    out_ += "/>";
}

void SvgCanvas::text(double x, double y, const std::string& s, double size, Rgb colour, bool bold)
{
    out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" fill=\"" + colour.hex()
        + "\"" + (bold ? " font-weight=\"bold\"" : "") + ">" + escape(s) + "</text>";
}

void SvgCanvas::bezier(const std::vector<Point>& pts, Rgb colour, double width)
{
    std::string d = "M" + num(pts[0].x) + "," + num(pts[0].y);
    for (size_t i = 1; i + 2 < pts.size(); i += 3)
        d += " C" + num(pts[i].x) + "," + num(pts[i].y) + " " + num(pts[i + 1].x) + "," + num(pts[i + 1].y) + " "
            + num(pts[i + 2].x) + "," + num(pts[i + 2].y);
    out_ += "<path class=\"edge\" d=\"" + d + "\" fill=\"none\" stroke=\"" + colour.hex() + "\" stroke-width=\""
        + num(width) + "\"/>";
    const std::vector<Point> head = arrowHead(pts);
    out_ += "<path d=\"M" + num(head[0].x) + "," + num(head[0].y) + " L" + num(head[1].x) + "," + num(head[1].y) + " L"
        + num(head[2].x) + "," + num(head[2].y) + " Z\" fill=\"" + colour.hex() + "\"/>";
}

void SvgCanvas::end() { out_ += "</svg>\n"; }

}  // namespace fxl::viewer
