#include "viewer/layout/graph_layout.hpp"

#include <cstring>
#include <tuple>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace fxl::viewer {

namespace {

std::mutex& graphvizLock()
{
    static std::mutex m;
    return m;
}

// One node of a container's layout: a view item or a child container (an expanded group).
struct Member
{
    int item = -1;  // view item, or -1
    int container = -1;  // index into ViewGraph::containers, or -1
    double w = 0, h = 0;
    Point local;  // top-left inside the container's content area
};

struct ContainerLayout
{
    std::vector<Member> members;
    std::vector<std::pair<int, std::vector<Point>>> edges;  // edge index, local points
    double w = 0, h = 0;  // content size
};

// Layers by longest path over the container's edges (members in graph order), straight edges.
void layered(ContainerLayout& c, const std::vector<std::pair<int, int>>& memberEdges, const std::vector<int>& edgeIds)
{
    std::vector<int> layer(c.members.size(), 0);
    for (const auto& [a, b] : memberEdges)
        if (a < b)
            layer[static_cast<size_t>(b)] = std::max(layer[static_cast<size_t>(b)], layer[static_cast<size_t>(a)] + 1);
    const int layers = c.members.empty() ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
    std::vector<double> rowHeight(static_cast<size_t>(layers), 0), rowWidth(static_cast<size_t>(layers), 0);
    for (size_t k = 0; k < c.members.size(); ++k)
        rowHeight[static_cast<size_t>(layer[k])] = std::max(rowHeight[static_cast<size_t>(layer[k])], c.members[k].h);
    std::vector<double> rowY(static_cast<size_t>(layers), 0);
    double y = 0;
    for (int r = 0; r < layers; ++r) {
        rowY[static_cast<size_t>(r)] = y;
        y += rowHeight[static_cast<size_t>(r)] + 36;
    }
    for (size_t k = 0; k < c.members.size(); ++k) {
        const size_t r = static_cast<size_t>(layer[k]);
        c.members[k].local = {rowWidth[r], rowY[r]};
        rowWidth[r] += c.members[k].w + 18;
    }
    c.w = 0;
    for (double w : rowWidth) c.w = std::max(c.w, w > 0 ? w - 18 : 0);
    c.h = y > 0 ? y - 36 : 0;
    for (size_t e = 0; e < memberEdges.size(); ++e) {
        const Member &a = c.members[static_cast<size_t>(memberEdges[e].first)],
                     &b = c.members[static_cast<size_t>(memberEdges[e].second)];
        const Point p0{a.local.x + a.w / 2, a.local.y + a.h}, p3{b.local.x + b.w / 2, b.local.y};
        c.edges.push_back({edgeIds[e], {p0, {p0.x, (p0.y + p3.y) / 2}, {p3.x, (p0.y + p3.y) / 2}, p3}});
    }
}

// Graphviz dot on the container's members (fixed-size boxes, no labels).
bool dot(ContainerLayout& c, const std::vector<std::pair<int, int>>& memberEdges, const std::vector<int>& edgeIds,
         const std::vector<std::pair<int, int>>& orderEdges)
{
    std::lock_guard<std::mutex> lock(graphvizLock());
    GVC_t* gvc = gvContext();
    if (!gvc) return false;
    Agraph_t* g = agopen(const_cast<char*>("view"), Agdirected, nullptr);
    agattr(g, AGRAPH, const_cast<char*>("rankdir"), const_cast<char*>("TB"));
    agattr(g, AGRAPH, const_cast<char*>("nodesep"), const_cast<char*>("0.25"));
    agattr(g, AGRAPH, const_cast<char*>("ranksep"), const_cast<char*>("0.4"));
    agattr(g, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
    agattr(g, AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
    agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
    agattr(g, AGNODE, const_cast<char*>("width"), const_cast<char*>("1"));
    agattr(g, AGNODE, const_cast<char*>("height"), const_cast<char*>("0.5"));
    std::vector<Agnode_t*> nodes;
    for (size_t k = 0; k < c.members.size(); ++k) {
        std::string name = "n" + std::to_string(k);
        Agnode_t* n = agnode(g, name.data(), 1);
        std::string w = std::to_string(c.members[k].w / 72.0), h = std::to_string(c.members[k].h / 72.0);
        agset(n, const_cast<char*>("width"), w.data());
        agset(n, const_cast<char*>("height"), h.data());
        nodes.push_back(n);
    }
    std::vector<Agedge_t*> edges;
    for (const auto& [a, b] : memberEdges)
        edges.push_back(agedge(g, nodes[static_cast<size_t>(a)], nodes[static_cast<size_t>(b)], nullptr, 1));
    // invisible edges that keep an expanded group between its neighbours in graph order
    agattr(g, AGEDGE, const_cast<char*>("style"), const_cast<char*>(""));
    for (const auto& [a, b] : orderEdges) {
        Agedge_t* e = agedge(g, nodes[static_cast<size_t>(a)], nodes[static_cast<size_t>(b)], nullptr, 1);
        agset(e, const_cast<char*>("style"), const_cast<char*>("invis"));
    }
    const bool ok = gvLayout(gvc, g, "dot") == 0;
    if (ok) {
        const boxf bb = GD_bb(g);
        c.w = bb.UR.x - bb.LL.x;
        c.h = bb.UR.y - bb.LL.y;
        auto flip = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
        for (size_t k = 0; k < c.members.size(); ++k) {
            const Point centre = flip(ND_coord(nodes[k]));
            c.members[k].local = {centre.x - c.members[k].w / 2, centre.y - c.members[k].h / 2};
        }
        for (size_t e = 0; e < edges.size(); ++e) {
            std::vector<Point> pts;
            const splines* spl = edges[e] ? ED_spl(edges[e]) : nullptr;
            if (spl && spl->size > 0) {
                const bezier& bz = spl->list[0];
                for (int i = 0; i < bz.size; ++i) pts.push_back(flip(bz.list[i]));
                if (bz.eflag) {  // the arrow head ends at ep: finish the curve there
                    const Point ep = flip(bz.ep), last = pts.back();
                    pts.push_back(last);
                    pts.push_back(ep);
                    pts.push_back(ep);
                }
            }
            if (pts.size() < 4) {
                const Member &a = c.members[static_cast<size_t>(memberEdges[e].first)],
                             &b = c.members[static_cast<size_t>(memberEdges[e].second)];
                const Point p0{a.local.x + a.w / 2, a.local.y + a.h}, p3{b.local.x + b.w / 2, b.local.y};
                pts = {p0, p0, p3, p3};
            }
            c.edges.push_back({edgeIds[e], std::move(pts)});
        }
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    gvFreeContext(gvc);
    return ok;
}

}  // namespace

Box itemSize(const ViewItem& item, const LayoutOptions& opts)
{
    const double title = static_cast<double>(item.title.size()) * opts.charWidth;
    const double sub = static_cast<double>(item.subtitle.size()) * opts.charWidth * 0.8;
    switch (item.kind) {
    case ItemKind::Stub: return {0, 0, std::max(60.0, title * 0.9 + 14), 20};
    case ItemKind::Group: return {0, 0, std::max(120.0, std::max(title, sub) + 24), 42};
    case ItemKind::Node: break;
    }
    return {0, 0, std::max(80.0, std::max(title, sub) + 16), 34};
}

std::shared_ptr<const LayoutCache::Entry> LayoutCache::find(const std::string& key)
{
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) {
        ++misses_;
        return nullptr;
    }
    ++hits_;
    it->second.first = ++tick_;
    return it->second.second;
}

void LayoutCache::insert(const std::string& key, std::shared_ptr<const Entry> entry)
{
    std::lock_guard<std::mutex> lock(mutex_);
    entries_[key] = {++tick_, std::move(entry)};
    while (entries_.size() > maxEntries_) {
        auto oldest = entries_.begin();
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->second.first < oldest->second.first) oldest = it;
        entries_.erase(oldest);
    }
}

size_t LayoutCache::hits() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return hits_;
}

size_t LayoutCache::misses() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return misses_;
}

size_t LayoutCache::size() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
}

std::vector<std::pair<std::string, std::shared_ptr<const LayoutCache::Entry>>> LayoutCache::entries() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::tuple<uint64_t, std::string, std::shared_ptr<const Entry>>> all;
    for (const auto& [key, v] : entries_) all.emplace_back(v.first, key, v.second);
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    std::vector<std::pair<std::string, std::shared_ptr<const Entry>>> out;
    for (auto& [tick, key, e] : all) out.emplace_back(std::move(key), std::move(e));
    return out;
}

namespace {

void putU64(std::string& out, uint64_t v)
{
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void putDouble(std::string& out, double d)
{
    uint64_t v;
    std::memcpy(&v, &d, sizeof v);
    putU64(out, v);
}

struct Reader
{
    const std::string& s;
    size_t at = 0;
    bool ok = true;
    uint64_t u64()
    {
        if (s.size() - at < 8) {
            ok = false;
            return 0;
        }
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
        at += 8;
        return v;
    }
    double real()
    {
        const uint64_t v = u64();
        double d;
        std::memcpy(&d, &v, sizeof d);
        return d;
    }
    // a count of items of `bytes` each that the rest can hold
    size_t count(size_t bytes)
    {
        const uint64_t n = u64();
        if (!ok || n > (s.size() - at) / bytes) {
            ok = false;
            return 0;
        }
        return static_cast<size_t>(n);
    }
};

constexpr uint64_t kEntryMagic = 0x31544c4c58465855ull;  // "UXFXLLT1": a layout entry, version 1

}  // namespace

std::string LayoutCache::encode(const Entry& e)
{
    std::string out;
    putU64(out, kEntryMagic);
    putDouble(out, e.w);
    putDouble(out, e.h);
    putU64(out, e.dot ? 1 : 0);
    putU64(out, e.positions.size());
    for (const Point& p : e.positions) {
        putDouble(out, p.x);
        putDouble(out, p.y);
    }
    putU64(out, e.edges.size());
    for (const auto& edge : e.edges) {
        putU64(out, edge.size());
        for (const Point& p : edge) {
            putDouble(out, p.x);
            putDouble(out, p.y);
        }
    }
    return out;
}

std::shared_ptr<const LayoutCache::Entry> LayoutCache::decode(const std::string& bytes)
{
    Reader r{bytes};
    if (r.u64() != kEntryMagic) return nullptr;
    auto e = std::make_shared<Entry>();
    e->w = r.real();
    e->h = r.real();
    const uint64_t dot = r.u64();
    e->dot = dot == 1;
    if (dot > 1) return nullptr;
    e->positions.resize(r.count(16));
    for (Point& p : e->positions) {
        p.x = r.real();
        p.y = r.real();
    }
    e->edges.resize(r.count(8));
    for (auto& edge : e->edges) {
        edge.resize(r.count(16));
        for (Point& p : edge) {
            p.x = r.real();
            p.y = r.real();
        }
    }
    if (!r.ok || r.at != bytes.size()) return nullptr;
    for (const Point& p : e->positions)
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) return nullptr;
    if (!std::isfinite(e->w) || !std::isfinite(e->h)) return nullptr;
    return e;
}

Layout layoutView(const ViewGraph& v, const GroupTree& tree, const LayoutOptions& opts, LayoutCache* cache,
                  const Progress& progress)
{
    ProgressMeter meter(progress, static_cast<int64_t>(v.containers.size()));
    Layout out;
    out.items.resize(v.items.size());
    out.edges.resize(v.edges.size());
    std::map<int, size_t> containerIndex;  // group -> index in v.containers
    for (size_t k = 0; k < v.containers.size(); ++k) containerIndex[v.containers[k]] = k;
    std::vector<ContainerLayout> cl(v.containers.size());
    // members: items of the container, and child containers, in graph order
    for (size_t k = 0; k < v.items.size(); ++k) {
        const auto it = containerIndex.find(v.items[k].container);
        if (it == containerIndex.end()) continue;
        const Box b = itemSize(v.items[k], opts);
        cl[it->second].members.push_back({static_cast<int>(k), -1, b.w, b.h, {}});
    }
    // innermost first: v.containers has parents before children
    for (size_t r = v.containers.size(); r-- > 0;) {
        ContainerLayout& c = cl[r];
        for (size_t k = r + 1; k < v.containers.size(); ++k)
            if (tree.group(v.containers[k]).parent == v.containers[r])
                c.members.push_back(
                    {-1, static_cast<int>(k), cl[k].w + 2 * kFramePad, cl[k].h + 2 * kFramePad + kFrameTitle, {}});
        std::map<int, int> memberOfItem;
        for (size_t m = 0; m < c.members.size(); ++m)
            if (c.members[m].item >= 0) memberOfItem[c.members[m].item] = static_cast<int>(m);
        std::vector<std::pair<int, int>> memberEdges;
        std::vector<int> edgeIds;
        for (size_t e = 0; e < v.edges.size(); ++e) {
            auto a = memberOfItem.find(v.edges[e].from), b = memberOfItem.find(v.edges[e].to);
            if (a == memberOfItem.end() || b == memberOfItem.end()) continue;
            memberEdges.push_back({a->second, b->second});
            edgeIds.push_back(static_cast<int>(e));
        }
        // graph-order neighbours of each child container (it has no edges of its own)
        std::vector<std::pair<int, int>> orderEdges;
        auto orderKey = [&](const Member& m) -> long long {
            if (m.container >= 0)
                return static_cast<long long>(tree.group(v.containers[static_cast<size_t>(m.container)]).firstPosition);
            const ViewItem& it = v.items[static_cast<size_t>(m.item)];
            if (it.kind == ItemKind::Group) return static_cast<long long>(tree.group(it.group).firstPosition);
            if (it.kind == ItemKind::Node) return static_cast<long long>(tree.graph().positionOf(it.node));
            return -1;  // stubs follow their edges
        };
        for (size_t m = 0; m < c.members.size(); ++m) {
            if (c.members[m].container < 0) continue;
            const long long key = orderKey(c.members[m]);
            int before = -1, after = -1;
            long long bestBefore = -1, bestAfter = 0;
            for (size_t o = 0; o < c.members.size(); ++o) {
                if (o == m) continue;
                const long long k = orderKey(c.members[o]);
                if (k < 0) continue;
                if (k < key && k > bestBefore) {
                    bestBefore = k;
                    before = static_cast<int>(o);
                }
                if (k > key && (after < 0 || k < bestAfter)) {
                    bestAfter = k;
                    after = static_cast<int>(o);
                }
            }
            if (before >= 0) orderEdges.push_back({before, static_cast<int>(m)});
            if (after >= 0) orderEdges.push_back({static_cast<int>(m), after});
        }
        const bool wantDot = c.members.size() <= opts.maxDotItems;
        std::string key;
        if (cache) {
            // the engine's input: member sizes in order, edges, order edges (rounded to 1/100 pt)
            key.reserve(c.members.size() * 12 + (memberEdges.size() + orderEdges.size()) * 8 + 8);
            key += wantDot ? 'D' : 'L';
            auto put = [&](long long v) {
                key += std::to_string(v);
                key += ',';
            };
            for (const Member& m : c.members) {
                put(std::llround(m.w * 100));
                put(std::llround(m.h * 100));
            }
            key += '|';
            for (const auto& [a, b] : memberEdges) {
                put(a);
                put(b);
            }
            key += '|';
            for (const auto& [a, b] : orderEdges) {
                put(a);
                put(b);
            }
            if (auto hit = cache->find(key)) {
                for (size_t m = 0; m < c.members.size(); ++m) c.members[m].local = hit->positions[m];
                for (size_t e = 0; e < edgeIds.size(); ++e) c.edges.push_back({edgeIds[e], hit->edges[e]});
                c.w = hit->w;
                c.h = hit->h;
                ++out.cachedContainers;
                meter.report(static_cast<int64_t>(v.containers.size() - r), "layout");
                continue;
            }
        }
        bool usedDot = false;
        if (wantDot && dot(c, memberEdges, edgeIds, orderEdges)) {
            ++out.dotContainers;
            usedDot = true;
        } else {
            c.edges.clear();
            layered(c, memberEdges, edgeIds);
            ++out.layeredContainers;
        }
        if (cache) {
            auto entry = std::make_shared<LayoutCache::Entry>();
            for (const Member& m : c.members) entry->positions.push_back(m.local);
            for (auto& e : c.edges) entry->edges.push_back(e.second);
            entry->w = c.w;
            entry->h = c.h;
            entry->dot = usedDot;
            cache->insert(key, std::move(entry));
        }
        meter.report(static_cast<int64_t>(v.containers.size() - r), "layout");
    }
    // absolute positions, outermost first
    std::vector<Point> origin(v.containers.size());
    out.containers.resize(v.containers.size());
    out.containers[0] = {v.containers[0], {0, 0, cl[0].w + 2 * kFramePad, cl[0].h + 2 * kFramePad}};
    origin[0] = {kFramePad, kFramePad};
    for (size_t r = 0; r < v.containers.size(); ++r) {
        for (const Member& m : cl[r].members) {
            const Point at{origin[r].x + m.local.x, origin[r].y + m.local.y};
            if (m.item >= 0) {
                out.items[static_cast<size_t>(m.item)] = {at.x, at.y, m.w, m.h};
            } else {
                const size_t k = static_cast<size_t>(m.container);
                out.containers[k] = {v.containers[k], {at.x, at.y, m.w, m.h}};
                origin[k] = {at.x + kFramePad, at.y + kFrameTitle + kFramePad};
            }
        }
        for (auto& [e, pts] : cl[r].edges) {
            EdgePath p;
            p.edge = e;
            for (const Point& q : pts) p.points.push_back({origin[r].x + q.x, origin[r].y + q.y});
            out.edges[static_cast<size_t>(e)] = std::move(p);
        }
    }
    out.width = out.containers[0].box.w;
    out.height = out.containers[0].box.h;
    return out;
}

}  // namespace fxl::viewer
