// Drawing a laid-out view graph: one drawing routine over a small canvas interface, so the
// window, `fxlens render --out x.svg` and `--out x.png` draw the same boxes, colours, texts and
// edges. The colours (one place): fill by phase (forward, loss, backward, recomputed, input,
// output), a stripe on the left by operator class (matmul, pointwise, view, reduction,
// collective, random, opaque); groups are drawn as folders with their node count, stubs as
// small tags that name the far end, expanded groups as frames with their title. Two themes,
// light and dark (the window follows the desktop's palette; `fxlens render --dark`); the same
// hues in both, so a legend learned in one reads in the other.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/graph_diff.hpp"
#include "viewer/layout/graph_layout.hpp"
#include "viewer/model/view_graph.hpp"

namespace fxl::viewer {

struct Rgb
{
    uint8_t r = 0, g = 0, b = 0;
    std::string hex() const;  // "#rrggbb"
};

Rgb phaseColour(PhaseClass p, bool dark = false);  // box fill
Rgb opClassColour(OpClass c);  // stripe

struct Theme
{
    Rgb background, text, subText, border, edge, selected, differs, highlight, stubFill;
};
const Theme& theme(bool dark);

// What a canvas draws. Class and id name the drawn thing for exports (SVG groups carry them).
class Canvas
{
public:
    virtual ~Canvas() = default;
    virtual void begin(double width, double height, Rgb background) = 0;
    virtual void beginItem(const std::string& cls, const std::string& id) = 0;
    virtual void endItem() = 0;
    virtual void rect(const Box& b, Rgb fill, Rgb stroke, double strokeWidth, double radius, bool dashed = false) = 0;
    // text with its baseline's left end at (x, y)
    virtual void text(double x, double y, const std::string& s, double size, Rgb colour, bool bold = false) = 0;
    virtual void bezier(const std::vector<Point>& pts, Rgb colour, double width) = 0;  // with an arrow head
    virtual void end() = 0;
};

struct DrawOptions
{
    std::string selected;  // node name drawn selected
    bool labels = true;  // titles and subtitles (level of detail)
    // Above 1: the view is zoomed out, and boxes show their titles alone, this many times their
    // size, so that a fitted view that has room keeps its names readable (labelScale()).
    double titleScale = 1;
    bool dark = false;  // theme
    // Traced nodes (upstream / downstream cones): by NodeId, and the groups holding one.
    std::vector<char> highlightNodes, highlightGroups;
    // Marks (diff classes, ULP distances of a run): a coloured outline and a band at the foot
    // of a box, by NodeId, and for each group the largest mark of its nodes; 0 = none.
    // markColours[m] is mark m's colour.
    std::vector<uint8_t> nodeMarks, groupMarks;
    std::vector<Rgb> markColours;
};

// How labels are drawn at a view scale (screen pixels per drawing unit): -1 none (a box is
// under 9 pixels high on screen), 1 titles and subtitles as drawn (from 0.7 up), else titles
// alone at this scale, so that they are at least 7 pixels high on screen.
double labelScale(double viewScale);

// Fills opts.highlightNodes / highlightGroups for these nodes (empty: no highlight).
void setHighlights(const GroupTree& tree, const std::vector<NodeId>& nodes, DrawOptions& opts);

// Fills opts.nodeMarks / groupMarks from marks by NodeId (a group: the largest of its nodes').
void setMarks(const GroupTree& tree, std::vector<uint8_t> nodeMarks, std::vector<Rgb> colours, DrawOptions& opts);

// The marks of a diff on one side: 1 rewired (only inputs changed), 2 changed, 3 added (side b),
// 4 removed (side a); larger is stronger. diffMarkColours() are their colours, diffMarkName()
// their names ("rewired", "changed", "added", "removed").
enum DiffMark : uint8_t
{
    MarkNone,
    MarkRewired,
    MarkChanged,
    MarkAdded,
    MarkRemoved,
};
std::vector<uint8_t> diffMarks(const GraphDiff& d, const Graph& g, bool sideB);
std::vector<Rgb> diffMarkColours();
const char* diffMarkName(DiffMark m);
// Marks by the ULP distance of each node's value in a run (runtime/check/localize.hpp): 1 bitwise
// equal, 2 up to 4 ULP, 3 up to 1024 ULP, 4 more (or a shape / dtype mismatch); nodes not
// compared are unmarked. ulpMarkColours() and ulpMarkName() ("bitwise", "≤ 4 ULP", ...).
std::vector<uint8_t> ulpMarks(const Graph& g, const std::map<std::string, uint64_t>& ulpByName);
std::vector<Rgb> ulpMarkColours();  // no hue within 30 degrees of a diffMarkColours() hue
const char* ulpMarkName(uint8_t m);

// The legend of the diff marks (one line), top-left at (x, y); returns its size.
Box drawDiffLegend(Canvas& c, double x, double y, bool dark);

// The legend: phase fills and operator class stripes, top-left at (x, y); returns its size.
Box drawLegend(Canvas& c, double x, double y, bool dark);
Box legendSize();

// The arrow head at the end of a Bezier path: tip, then the two back corners.
std::vector<Point> arrowHead(const std::vector<Point>& pts);

// One element each: an expanded group's frame (containers[k], k >= 1), an edge, a box
// (node, group, stub). drawScene draws them all in that order (frames under edges under boxes).
void drawFrame(Canvas& c, const GroupTree& tree, const Layout& l, size_t k, const DrawOptions& opts);
void drawEdge(Canvas& c, const EdgePath& e, const DrawOptions& opts);
void drawItem(Canvas& c, const GroupTree& tree, const ViewGraph& v, const Layout& l, size_t k, const DrawOptions& opts);

// Draws the scene; `finish` = false leaves the canvas open (c.end() not called) for more.
void drawScene(Canvas& c, const GroupTree& tree, const ViewGraph& v, const Layout& l, const DrawOptions& opts = {},
               bool finish = true);

// An SVG document of the drawing (texts escaped; every item a <g class="node|group|stub|frame"
// data-id="...">, every edge a <path class="edge">).
class SvgCanvas : public Canvas
{
public:
    void begin(double width, double height, Rgb background) override;
    void beginItem(const std::string& cls, const std::string& id) override;
    void endItem() override;
    void rect(const Box& b, Rgb fill, Rgb stroke, double strokeWidth, double radius, bool dashed) override;
    void text(double x, double y, const std::string& s, double size, Rgb colour, bool bold) override;
    void bezier(const std::vector<Point>& pts, Rgb colour, double width) override;
    void end() override;
    const std::string& svg() const { return out_; }

private:
    std::string out_;
};

}  // namespace fxl::viewer
