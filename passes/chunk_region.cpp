// chunk_region: the pass object (options, guardrails, the region loop) and its change log. The
// planning (which nodes form a region's body, its live-ins and live-outs) is in
// chunk_region_plan.cpp, the rewrite (split, duplicate, materialize) in chunk_region_rewrite.cpp.
#include "passes/chunk_region.hpp"

#include <algorithm>
#include <sstream>

#include "core/ops/shape_prop.hpp"
#include "passes/chunk_region_impl.hpp"

namespace fxl {
namespace {

std::map<std::string, int64_t> parseHints(const std::vector<std::string>& items)
{
    std::map<std::string, int64_t> out;
    for (const auto& it : items) {
        auto eq = it.find('=');
        if (eq == std::string::npos || eq == 0) throw PassError("option 'hints': expected SYMBOL=N, got '" + it + "'");
        try {
            out[it.substr(0, eq)] = std::stoll(it.substr(eq + 1));
        } catch (const std::exception&) {
            throw PassError("option 'hints': expected SYMBOL=N with an integer N, got '" + it + "'");
        }
    }
    return out;
}

class ChunkRegionPass : public Pass
{
public:
    std::string name() const override { return "chunk_region"; }
    std::string summary() const override
    {
        return "run module regions once per chunk of their activations along batch or sequence";
    }
    std::string description() const override
    {
        return "Region chunking, as eager module-level chunking would run it: for every module path a pattern of "
               "`regions` selects (\"blocks.*\" gives blocks.0, blocks.1, ...), the forward and then the backward "
               "part of the region run once per chunk of the data along `dim` (batch: dim 0 of the data inputs, "
               "seq: dim 1), in `chunks` pieces with torch.tensor_split sizes. Activation live-ins are split "
               "(split_with_sizes, a contiguous clone only when a piece is not contiguous), the nodes that "
               "depend on the activations are duplicated (named <node>_chunk<k>), parameter-derived nodes stay "
               "shared. Live-outs are concatenated along the axis, or summed in chunk order when a proof allows "
               "it (parameter gradients: backward_partial_sum; graph outputs such as a tokens-per-expert count: "
               "graph_output_partial_sum); forward values the same region's backward reads go to it chunk by "
               "chunk. Mutations of a live-in buffer are chained chunk after chunk. Literal shape arguments "
               "(view, expand, zeros, slice_backward...) are rewritten with each chunk's extent; a graph with "
               "a symbolic chunk dimension must not bake it as a literal. Errors: sequence chunking through "
               "attention, collectives in a body, an axis shorter than the chunk count, a forward region reading "
               "a backward value, live-outs that cannot be rebuilt.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"regions", OptionType::StringList, "layers.*", {}, "module-path patterns; '*' matches one component"},
            {"dim", OptionType::Enum, "batch", {"batch", "seq"}, "chunk along batch (dim 0) or sequence (dim 1)"},
            {"chunks", OptionType::Int, "2", {}, "number of chunks (tensor_split sizes: uneven when not dividing)"},
            {"inputs",
             OptionType::StringList,
             "",
             {},
             "data placeholders (default: those described PlainAOTInput, else those with a symbolic chunk dim)"},
            {"hints", OptionType::StringList, "", {}, "values of symbols without a hint: u0=4"},
        };
    }
    void checkOptions(const PassOptions& o) const override
    {
        if (o.getInt("chunks") < 1) throw std::invalid_argument("option 'chunks': expected an integer >= 1");
        if (o.getList("regions").empty())
            throw std::invalid_argument("option 'regions': expected at least one module-path pattern");
    }
    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        chunkreg::Config cfg;
        cfg.spec.regions = opts.getList("regions");
        cfg.spec.axis = opts.getString("dim") == "seq" ? ChunkAxis::Seq : ChunkAxis::Batch;
        cfg.spec.chunks = static_cast<int>(opts.getInt("chunks"));
        cfg.spec.split = ChunkSplit::TensorSplit;
        cfg.spec.inputs = opts.getList("inputs");
        cfg.hints = parseHints(opts.getList("hints"));
        chunkreg::chunkRegions(g, cfg, ctx);
    }
};

}  // namespace

std::unique_ptr<Pass> makeChunkRegionPass() { return std::make_unique<ChunkRegionPass>(); }

}  // namespace fxl
