#include "passes/partition.hpp"

#include "passes/partitioner.hpp"

namespace fxl {

nlohmann::json PartitionResult::stats() const
{
    nlohmann::json j = nlohmann::json::object();
    j["saved"] = saved;
    j["saved_bytes"] = savedBytes;
    j["saved_activations"] = savedActivations;
    j["saved_activation_bytes"] = savedActivationBytes;
    j["saved_inputs"] = savedInputs;
    j["saved_symbols"] = savedSymbols;
    j["forward_nodes"] = forward.size();
    j["backward_nodes"] = backward.size();
    j["recomputed"] = recomputed;
    j["num_fwd_outputs"] = numFwdOutputs;
    j["banned"] = banned.size();
    return j;
}

namespace {

// ------------------------------------------------------------------ the pass

class PartitionPass : public Pass
{
public:
    std::string name() const override { return "partition"; }
    std::string summary() const override
    {
        return "split a joint graph into forward and backward graphs (save_all, tagged or mincut saves)";
    }
    std::string description() const override
    {
        return "Splits one joint training graph (AOT primals/tangents, or fwd+loss+bwd seeded by ones_like(loss)) into "
               "a 'forward' graph (inputs -> forward outputs + saved values) and a 'backward' graph (saved values + "
               "tangents -> gradients). The ones_like(loss) seed becomes the backward placeholder tangents_1. "
               "mode=save_all saves every forward value the backward reads (PyTorch's default_partition); "
               "mode=tagged saves only MUST_SAVE / custom.ap_must_save nodes, placeholders and symbols and recomputes "
               "the rest (AutoParallel's replay partitioner); mode=mincut chooses the saves by a minimum cut over "
               "memory sizes with PyTorch's bans (min_cut_rematerialization_partition, budget 1.0). Collectives "
               "(force_save_collectives) and, in tagged mode, side effects and unknown ops are saved unless tagged "
               "MUST_RECOMPUTE on purpose. A graph without a backward, or one that is all backward, is refused.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"mode", OptionType::Enum, "save_all", {"save_all", "tagged", "mincut"}, "how the saved values are chosen"},
            {"num_fwd_outputs",
             OptionType::Int,
             "-1",
             {},
             "forward outputs among the joint outputs (-1: the items before the first gradient)"},
            {"aggressive",
             OptionType::Bool,
             "false",
             {},
             "mincut: turn off the used-far-apart, long-chain, materialized-backward and allowlist bans"},
            {"ban_used_far_apart",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban fusible users far after an unfusible one"},
            {"ban_long_fusible_chains",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban the end of fusible chains longer than 100 nodes"},
            {"ban_materialized_backward",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban values the backward materializes anyway"},
            {"ban_not_in_allowlist",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban ops outside the recomputable list (false: ban only random and compute-intensive ops)"},
            {"ban_reduction",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban reductions (output 4x smaller than the inputs)"},
            {"recompute_views", OptionType::Bool, "false", {}, "mincut: never save views (always recompute them)"},
            {"cleanup_tags",
             OptionType::Bool,
             "true",
             {},
             "tagged/mincut: cleanup_recompute_tags first (AC region boundaries -> MUST_SAVE)"},
            {"force_save_collectives",
             OptionType::Bool,
             "true",
             {},
             "tagged/mincut: collectives not tagged MUST_RECOMPUTE -> MUST_SAVE"},
            {"reorder_backward",
             OptionType::Bool,
             "true",
             {},
             "place recomputation right before its first use in the backward"},
        };
    }

    void run(Graph&, const PassOptions&, PassContext&) const override
    {
        throw PassError(
            "partition turns one joint graph into a forward and a backward graph: it runs on a whole step (runAll)");
    }

    std::vector<RoleGraph> runAll(std::vector<RoleGraph> graphs, const PassOptions& opts,
                                  PassContext& ctx) const override
    {
        if (graphs.size() != 1 || (graphs[0].role != "" && graphs[0].role != "joint")) {
            std::string roles;
            for (const auto& g : graphs) roles += (roles.empty() ? "'" : ", '") + g.role + "'";
            throw PassError("partition needs exactly one joint graph (role '' or 'joint'); this step has "
                            + std::to_string(graphs.size()) + " graph(s)" + (roles.empty() ? "" : ": " + roles));
        }
        const PartitionOptions options = optionsFrom(opts, ctx);
        refuseWithoutJoint(graphs[0].graph, options.numFwdOutputs);
        // runAll owns its input: the partitioner works on it directly, no copy
        partitioning::Partitioner partitioner(std::move(graphs[0].graph), options, &ctx);
        PartitionResult result = partitioner.run();
        std::vector<RoleGraph> out(2);
        out[0].role = "forward";
        out[0].graph = std::move(result.forward);
        out[1].role = "backward";
        out[1].graph = std::move(result.backward);
        return out;
    }

private:
    // The pass splits a joint forward+backward graph. Given a graph with no backward, or one that
    // is all backward, it says what the graph is instead of writing an empty half (the library
    // function partitionJointGraph keeps PyTorch's default partition for the first case).
    static void refuseWithoutJoint(const Graph& g, int numFwdOutputs)
    {
        const partitioning::ClassifiedJoint c = partitioning::classifyJoint(g, numFwdOutputs);
        if (c.classes.tangents.empty())
            throw PassError("partition splits a joint forward+backward graph; this graph has no backward (no tangent "
                            "placeholder, no ones_like(loss) seed, no backward phase meta): a forward-only, "
                            "inference, post-grad or Dynamo graph has nothing to split");
        bool forwardOutput = false;
        for (NodeId id : c.classes.fwdOutputs) forwardOutput = forwardOutput || id != kNoNode;
        if (!forwardOutput && numFwdOutputs < 0)
            throw PassError("partition splits a joint forward+backward graph; every output of this graph is a "
                            "gradient (each depends on the backward seed '"
                            + g.node(c.classes.tangents.front()).name
                            + "'): an AOT backward graph, already partitioned");
    }

    static PartitionOptions optionsFrom(const PassOptions& opts, const PassContext& ctx)
    {
        PartitionOptions o;
        const std::string& mode = opts.getString("mode");
        o.mode = mode == "tagged" ? PartitionMode::Tagged
            : mode == "mincut"    ? PartitionMode::MinCut
                                  : PartitionMode::SaveAll;
        o.numFwdOutputs = static_cast<int>(opts.getInt("num_fwd_outputs"));
        o.aggressive = opts.getBool("aggressive");
        o.banUsedFarApart = opts.getBool("ban_used_far_apart");
        o.banLongFusibleChains = opts.getBool("ban_long_fusible_chains");
        o.banMaterializedBackward = opts.getBool("ban_materialized_backward");
        o.banNotInAllowlist = opts.getBool("ban_not_in_allowlist");
        o.banReduction = opts.getBool("ban_reduction");
        o.recomputeViews = opts.getBool("recompute_views");
        o.cleanupTags = opts.getBool("cleanup_tags");
        o.forceSaveCollectives = opts.getBool("force_save_collectives");
        o.reorderBackward = opts.getBool("reorder_backward");
        o.registry = &ctx.registry;
        return o;
    }
};

}  // namespace

PartitionResult partitionJointGraph(const Graph& joint, const PartitionOptions& opts, PassContext* ctx)
{
    partitioning::Partitioner partitioner(joint.clone(), opts, ctx);
    return partitioner.run();
}

std::unique_ptr<Pass> makePartitionPass() { return std::make_unique<PartitionPass>(); }

}  // namespace fxl
