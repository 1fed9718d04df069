// chunk_region's parts (internal to passes/): the configuration, the region plan and the rewrite.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/chunk_spec.hpp"
#include "core/ir/graph.hpp"
#include "passes/chunk_axes.hpp"
#include "passes/pass.hpp"

namespace fxl::chunkreg {

struct Config
{
    ChunkSpec spec;  // regions, axis, chunks, inputs (tensor_split sizes)
    std::map<std::string, int64_t> hints;
};

// Whether a node belongs to the backward (autograd_backward flag, else its phase).
bool isBackwardNode(const Node& n);
// "blocks.0" -> "blocks"; "moe" -> "".
std::string parentPath(const std::string& root);

// The state shared by the regions of one run.
struct State
{
    State(Graph& graph, PassContext& context, Config config, AxisAnalysis axes)
        : g(graph)
        , ctx(context)
        , cfg(std::move(config))
        , ax(std::move(axes))
    { }
    Graph& g;
    PassContext& ctx;
    Config cfg;
    AxisAnalysis ax;
    std::vector<int64_t> sizes;  // chunkSizes(n, chunks)
    // per-chunk values a region's backward reads directly: (root, node) -> one node per chunk
    std::map<std::pair<std::string, NodeId>, std::vector<NodeId>> perChunk;
    // grad-output suffix (stays outside bodies) and grad escape boundaries, by node id
    std::set<NodeId> suffix, boundary;
    nlohmann::json regionStats = nlohmann::json::array();
    std::vector<std::string> notes;
    int splits = 0, cats = 0, sums = 0, clones = 0, duplicated = 0;
    // kept from the regions' rewrites until finish()
    struct Pending
    {
        std::map<NodeId, ValueMeta> originalVal;  // materialization -> the value it must equal
        std::map<NodeId, ValueMeta> fixedVal;  // copies of data-dependent ops whose val is kept
        std::set<NodeId> stridesFromView;  // _reshape_alias copies whose strides are recomputed
        std::set<NodeId> provisional;  // chunk-0 copies standing in for a forward value until the backward
    } pending;

    const AxisInfo& axisOf(NodeId id, size_t item = 0) const { return ax.of(id, item); }
    // New node ids inherit the axis info of the node they stand for.
    void inherit(NodeId newId, NodeId from);
    void setAxis(NodeId newId, std::vector<AxisInfo> a);
};

struct Plan
{
    std::string root;
    bool backward = false;
    std::vector<NodeId> body;  // in graph order
    std::vector<NodeId> liveIns;  // in first-use order
    std::vector<NodeId> liveOuts;  // body nodes with users outside the body, in order
};

// Region planning (chunk_region_plan.cpp). nullopt-like: an empty body means nothing to do.
Plan planRegion(State& st, const std::string& root, bool backward);
// The grad-output suffix and the grad escape boundaries of the graph's outputs.
void findGradSuffix(State& st);

// The rewrite of one planned region (chunk_region_rewrite.cpp).
void lowerRegion(State& st, const Plan& plan);
// After every region: drop unused materializations, restore a topological order, recompute
// the value meta of every new node (literal shapes rewritten, _reshape_alias strides redone).
void finish(State& st);

// The whole pass.
void chunkRegions(Graph& g, const Config& cfg, PassContext& ctx);

}  // namespace fxl::chunkreg
