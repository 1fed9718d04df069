// Maximum s-t flow / minimum s-t cut (Dinic's algorithm) for the min-cut partitioner.
//
// Capacities are int64_t or double, with an "infinite" capacity (kInfinite) that is never
// used up. After solve(), the source side of the minimum cut is every vertex still reachable
// from the source in the residual graph: with equal-cost cuts this picks the one nearest the
// source (what networkx's minimum_cut returns, which the partitioner's tie-breaking relies on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace fxl {

template<class Cap>
class MaxFlow
{
public:
    // int64_t: INT64_MAX; double: +infinity. An edge with this capacity is never saturated.
    static constexpr Cap kInfinite =
        std::numeric_limits<Cap>::has_infinity ? std::numeric_limits<Cap>::infinity() : std::numeric_limits<Cap>::max();

    explicit MaxFlow(int numVertices = 0)
        : adj_(static_cast<size_t>(numVertices))
    { }

    int addVertex();
    int numVertices() const { return static_cast<int>(adj_.size()); }
    // Adds a directed edge; capacity must be >= 0 (negative counts as 0). Returns its id.
    int addEdge(int from, int to, Cap capacity);
    int numEdges() const { return static_cast<int>(edges_.size() / 2); }

    // Computes a maximum flow from `source` to `sink` and the residual reachability. Returns
    // the flow value, or kInfinite when a path of infinite edges joins source and sink (then
    // no finite cut exists: onSourceSide() marks what that path reaches and cutEdges() is empty).
    Cap solve(int source, int sink);

    // After solve(): vertex reachable from the source in the residual graph.
    bool onSourceSide(int v) const
    {
        return v >= 0 && static_cast<size_t>(v) < reach_.size() && reach_[static_cast<size_t>(v)];
    }
    std::vector<int> sourceSide() const;
    // After solve(): ids of the edges that go from the source side to the sink side, in id order.
    std::vector<int> cutEdges() const;

    int edgeFrom(int e) const { return edges_[static_cast<size_t>(2 * e + 1)].to; }
    int edgeTo(int e) const { return edges_[static_cast<size_t>(2 * e)].to; }
    Cap capacity(int e) const { return edges_[static_cast<size_t>(2 * e)].cap; }
    Cap flow(int e) const { return edges_[static_cast<size_t>(2 * e)].flow; }

private:
    struct Half
    {
        int to = 0;
        Cap cap = 0;  // capacity of this half (0 for the reverse half)
        Cap flow = 0;  // flow on this half (the reverse half holds -flow)
    };
    std::vector<std::vector<int>> adj_;  // vertex -> half-edge indices
    std::vector<Half> edges_;  // 2e: forward half, 2e+1: reverse half
    std::vector<int> level_;
    std::vector<size_t> next_;  // current-arc pointer per vertex
    std::vector<char> reach_;
    Cap eps_ = 0;  // double: residuals at or below this count as zero

    static bool isInf(Cap c) { return c == kInfinite; }
    Cap residual(const Half& h) const { return isInf(h.cap) ? kInfinite : h.cap - h.flow; }
    bool positive(Cap c) const;
    bool bfs(int source, int sink);
    Cap augment(int source, int sink);
    void markReachable(int source);
};

extern template class MaxFlow<int64_t>;
extern template class MaxFlow<double>;

}  // namespace fxl
