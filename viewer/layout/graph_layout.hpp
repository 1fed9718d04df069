// Layout of a view graph (viewer/model/view_graph.hpp): each container (the root, then every
// expanded group) is laid out on its own, innermost first, and an expanded group sits in its
// parent's layout as one box of its laid-out size, so only the visible level goes to the layout
// engine and no edge leaves its container. Graphviz `dot` lays out containers of up to
// LayoutOptions::maxDotItems items (boxes of fixed size, no labels: dot never measures text;
// the positions and splines are read from its structs and copied out); larger ones get a
// layered layout computed here (layers by longest path, order by graph order, straight
// edges), as dot grows super-linearly. Graphviz is not thread-safe: every call holds one
// process-wide lock, so layouts may run in worker threads.
//
// Coordinates are points, y down, (0, 0) the top-left of the whole drawing.
#pragma once

#include <string>
#include <vector>

#include "viewer/model/view_graph.hpp"

namespace fxl::viewer {

struct LayoutOptions
{
    size_t maxDotItems = 300;
    double charWidth = 6.2;  // points per character of a 10 pt title (DejaVu Sans, average)
};

struct Point
{
    double x = 0, y = 0;
};

struct Box
{
    double x = 0, y = 0, w = 0, h = 0;  // top-left, size
};

struct ContainerBox
{
    int group = 0;  // GroupTree index (0 = root)
    Box box;  // the frame (title bar included); the root's is the whole drawing
};

struct EdgePath
{
    int edge = 0;  // index into ViewGraph::edges
    std::vector<Point> points;  // cubic Bezier: first point, then 3 per segment
};

struct Layout
{
    std::vector<Box> items;  // per ViewGraph item
    std::vector<ContainerBox> containers;  // per ViewGraph container, in its order
    std::vector<EdgePath> edges;  // per ViewGraph edge
    double width = 0, height = 0;
    size_t dotContainers = 0, layeredContainers = 0;  // which engine laid out how many
};

// The size an item is drawn at (points).
Box itemSize(const ViewItem& item, const LayoutOptions& opts = {});

Layout layoutView(const ViewGraph& v, const GroupTree& tree, const LayoutOptions& opts = {});

// Title bar height of an expanded group's frame, and the padding inside it.
inline constexpr double kFrameTitle = 20, kFramePad = 10;

}  // namespace fxl::viewer
