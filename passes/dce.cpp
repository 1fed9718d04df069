// dce: removes unused nodes that have no effect, keeping mutations, side effects,
// collectives and random ops (each removable by option where that is safe to ask for).
#include "passes/dce.hpp"
#include "passes/graph_edit.hpp"

namespace fxl {
namespace {

class DcePass : public Pass
{
public:
    std::string name() const override { return "dce"; }
    std::string summary() const override { return "remove unused nodes that have no side effect"; }
    std::string description() const override
    {
        return "Dead-code elimination: removes call nodes whose value nobody uses, newest first, so whole dead "
               "chains go. Never removes the output, in-place / mutating ops (kind inplace or a '!' in the "
               "schema), ops with side effects, or operators the registry does not know. Collectives and "
               "wait_tensor are kept unless collectives_pure=true; random ops are kept unless "
               "random_pure=true, because removing one shifts the RNG stream of every later random op. "
               "Unused graph inputs are kept unless remove_unused_inputs=true.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"collectives_pure",
             OptionType::Bool,
             "false",
             {},
             "treat unused collectives and wait_tensor as removable"},
            {"random_pure",
             OptionType::Bool,
             "false",
             {},
             "treat unused random ops as removable (shifts the RNG stream)"},
            {"remove_unused_inputs", OptionType::Bool, "false", {}, "also remove placeholders nobody uses"},
        };
    }
    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        DceOptions o;
        o.collectivesPure = opts.getBool("collectives_pure");
        o.randomPure = opts.getBool("random_pure");
        o.removeUnusedInputs = opts.getBool("remove_unused_inputs");
        const size_t firstNote = ctx.log.notes.size();
        const size_t removed = eliminateDeadCode(g, o, &ctx);
        const std::string key = ctx.graphRole.empty() ? "removed" : "removed_" + ctx.graphRole;
        ctx.log.stats[key] = ctx.log.stats.value(key, size_t{0}) + removed;
        // The summary goes before the per-reason "kept" notes eliminateDeadCode wrote.
        ctx.log.notes.insert(ctx.log.notes.begin() + static_cast<std::ptrdiff_t>(firstNote),
                             (ctx.graphRole.empty() ? "" : ctx.graphRole + ": ") + "removed " + std::to_string(removed)
                                 + " dead node" + (removed == 1 ? "" : "s"));
    }
};

}  // namespace

std::unique_ptr<Pass> makeDcePass() { return std::make_unique<DcePass>(); }

}  // namespace fxl
