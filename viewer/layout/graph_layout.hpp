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
// Cache (LayoutCache): a container's layout is a pure function of what goes into the layout
// engine (its members' sizes in order, its edges and its order edges, the engine's choice), so
// it is kept under that key: expanding a group lays out only the containers whose input
// changed (the group and the containers around it), and collapsing or re-expanding what was
// laid out before costs no engine call.
//
// Coordinates are points, y down, (0, 0) the top-left of the whole drawing.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/util/progress.hpp"

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
    size_t cachedContainers = 0;  // taken from the cache
};

// Laid-out containers by their engine input (see the top of this file). Thread-safe; keeps
// at most maxEntries, dropping the least recently used.
class LayoutCache
{
public:
    explicit LayoutCache(size_t maxEntries = 2048)
        : maxEntries_(maxEntries)
    { }
    struct Entry
    {
        std::vector<Point> positions;  // top-left of each member, in member order
        std::vector<std::vector<Point>> edges;  // per engine edge, in input order
        double w = 0, h = 0;
        bool dot = false;
    };
    std::shared_ptr<const Entry> find(const std::string& key);
    void insert(const std::string& key, std::shared_ptr<const Entry> entry);
    size_t hits() const;
    size_t misses() const;
    size_t size() const;
    // Every entry (key, entry), most recently used last: what a workspace keeps.
    std::vector<std::pair<std::string, std::shared_ptr<const Entry>>> entries() const;
    // An entry as bytes and back (little-endian counts and doubles); decode gives null for bytes
    // that are not one (a damaged or foreign row), never a half entry.
    static std::string encode(const Entry& e);
    static std::shared_ptr<const Entry> decode(const std::string& bytes);

private:
    mutable std::mutex mutex_;
    size_t maxEntries_;
    size_t hits_ = 0, misses_ = 0;
    uint64_t tick_ = 0;
    std::map<std::string, std::pair<uint64_t, std::shared_ptr<const Entry>>> entries_;
};

// The size an item is drawn at (points).
Box itemSize(const ViewItem& item, const LayoutOptions& opts = {});

// With a cache, containers laid out before are taken from it. Progress counts containers;
// a cancelled layout throws CancelledError.
Layout layoutView(const ViewGraph& v, const GroupTree& tree, const LayoutOptions& opts = {},
                  LayoutCache* cache = nullptr, const Progress& progress = {});

// Title bar height of an expanded group's frame, and the padding inside it.
inline constexpr double kFrameTitle = 20, kFramePad = 10;

}  // namespace fxl::viewer
