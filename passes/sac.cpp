// sac: per-op selective activation-checkpoint tagging of a fwd+loss+bwd graph (docs/passes.md section 7):
// writes meta.recompute and meta.ac_graph_id on forward call nodes by a policy.
#include "passes/sac.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "core/analysis/phases.hpp"
#include "core/ops/op_writes.hpp"
#include "passes/node_kinds.hpp"
#include "passes/pass.hpp"

#include "core/util/strings.hpp"

namespace fxl {

// ---------------------------------------------------------------- helpers

std::optional<int> acRegionId(const Node& n)
{
    if (!n.meta.custom.is_object()) return std::nullopt;
    auto it = n.meta.custom.find("ac_region_id");
    if (it == n.meta.custom.end() || !it->is_number_integer()) return std::nullopt;
    int64_t v = it->get<int64_t>();
    if (v < 0 || v > INT32_MAX) return std::nullopt;
    return static_cast<int>(v);
}

void setAcRegionId(Node& n, int id)
{
    if (!n.meta.custom.is_object()) n.meta.custom = nlohmann::json::object();
    n.meta.custom["ac_region_id"] = id;
}

namespace {

// "a, b, c, ..." (at most three names)
std::string firstNames(const std::vector<std::string>& names)
{
    std::string out;
    for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > 3) out += ", ...";
    return out;
}

struct OpName
{
    std::string ns, name, overload;
};

OpName splitTarget(std::string_view target)
{
    if (const OpInfo* op = OpRegistry::instance().find(target))
        return {op->schema.ns, op->schema.name, op->schema.overload};
    std::string t(target);
    OpName o;
    auto last = t.rfind('.');
    if (last == std::string::npos) return {"", t, ""};
    auto prev = t.rfind('.', last - 1);
    // "ns.name.overload" only for the op namespaces; else "module.path.function"
    static const std::set<std::string> kOpNs = {
        "aten", "prims", "higher_order", "_c10d_functional", "c10d_functional", "_c10d", "quantized", "_quantized"};
    if (prev != std::string::npos && prev != 0) {
        std::string ns = t.substr(0, prev);
        // a custom op the registry does not know (torch.ops.tg.log_tensor.default): "ns.name.default"
        const bool customOp = ns.find('.') == std::string::npos && t.substr(last + 1) == "default";
        if (kOpNs.count(ns) || t.rfind("aten.", 0) == 0 || customOp)
            return {ns, t.substr(prev + 1, last - prev - 1), t.substr(last + 1)};
    }
    return {t.substr(0, last), t.substr(last + 1), ""};
}

}  // namespace

std::string opPacket(std::string_view target)
{
    OpName o = splitTarget(target);
    return o.ns.empty() ? o.name : o.ns + "." + o.name;
}

std::string opBaseName(std::string_view target) { return splitTarget(target).name; }

bool targetMatches(std::string_view target, std::string_view pattern)
{
    if (pattern.empty()) return false;
    if (target == pattern) return true;
    OpName o = splitTarget(target);
    std::string packet = o.ns.empty() ? o.name : o.ns + "." + o.name;
    if (pattern == packet || pattern == o.name) return true;
    return !o.overload.empty() && pattern == o.name + "." + o.overload;
}

bool inheritsTag(const Node& n)
{
    if (n.op != NodeOp::CallFunction || n.args.empty() || !n.args[0].isNode()) return false;
    if (n.isGetitem()) return true;
    std::string p = opPacket(n.target);
    return p == "_c10d_functional.wait_tensor" || p == "c10d_functional.wait_tensor" || p == "aten.detach"
        || p == "aten.alias";
}

bool isRngNode(const Node& n, const OpRegistry& reg)
{
    if (n.op != NodeOp::CallFunction) return false;
    if (const OpInfo* op = reg.find(n.target); op && op->has(kTraitRandom)) return true;
    static const std::set<std::string> kRandom = {"rand",
                                                  "randn",
                                                  "rand_like",
                                                  "randn_like",
                                                  "randint",
                                                  "randint_like",
                                                  "randperm",
                                                  "bernoulli",
                                                  "bernoulli_",
                                                  "native_dropout",
                                                  "dropout",
                                                  "feature_dropout",
                                                  "alpha_dropout",
                                                  "normal",
                                                  "normal_",
                                                  "uniform",
                                                  "uniform_",
                                                  "multinomial",
                                                  "exponential_",
                                                  "geometric_",
                                                  "cauchy_",
                                                  "log_normal_",
                                                  "random_",
                                                  "poisson",
                                                  "rrelu_with_noise",
                                                  "inductor_random",
                                                  "inductor_randint",
                                                  "inductor_seeds",
                                                  "philox_rand",
                                                  "run_and_save_rng_state",
                                                  "run_with_rng_state"};
    return kRandom.count(opBaseName(n.target)) != 0;
}

bool isSaveOp(const Node& n)
{
    if (n.op != NodeOp::CallFunction) return false;
    static const std::set<std::string> kSave = {"aten.mm",
                                                "aten.addmm",
                                                "aten.bmm",
                                                "aten.convolution",
                                                "aten.convolution_backward",
                                                "aten._scaled_dot_product_flash_attention",
                                                "aten._scaled_dot_product_flash_attention_for_cpu",
                                                "aten._scaled_dot_product_efficient_attention",
                                                "aten._flash_attention_forward",
                                                "aten._efficient_attention_forward",
                                                "aten.upsample_bilinear2d",
                                                "aten._scaled_mm",
                                                "aten._scaled_dot_product_cudnn_attention",
                                                "aten._scaled_dot_product_attention_math",
                                                "aten._scaled_dot_product_fused_attention_overrideable",
                                                "aten.linear",
                                                "higher_order.flex_attention",
                                                "higher_order.inductor_compiled_code",
                                                "_c10d_functional.reduce_scatter_tensor",
                                                "_c10d_functional.all_to_all_single",
                                                "c10d_functional.reduce_scatter_tensor",
                                                "c10d_functional.all_to_all_single"};
    OpName o = splitTarget(n.target);
    std::string packet = o.ns.empty() ? o.name : o.ns + "." + o.name;
    if (kSave.count(packet)) return true;
    if (packet == "aten.max" && (o.overload == "default" || o.overload.empty())) return true;  // amax for fp8 scaling
    if (o.name.find("varlen_attn") != std::string::npos) return true;
    if ((o.ns == "deepep" || o.ns == "hybridep")
        && (o.name.find("dispatch") != std::string::npos || o.name.find("combine") != std::string::npos))
        return true;
    return false;
}

bool isSymNode(const Node& n, const OpRegistry& reg)
{
    auto k = n.val.kind;
    if (k == ValueMeta::Kind::SymInt || k == ValueMeta::Kind::SymFloat || k == ValueMeta::Kind::SymBool) return true;
    if (n.op != NodeOp::CallFunction) return false;
    const OpInfo* op = reg.find(n.target);
    return op && op->has(kTraitSym);
}

// ---------------------------------------------------------------- the pass

namespace {

std::string idText(const std::optional<int>& v) { return v ? std::to_string(*v) : std::string(); }

class SacPass : public Pass
{
public:
    std::string name() const override { return "sac"; }
    std::string summary() const override
    {
        return "selective activation checkpointing: tag forward ops MUST_SAVE / PREFER_RECOMPUTE by a policy";
    }
    std::string description() const override
    {
        return "Tags every forward call node of a fwd+loss+bwd graph with meta.recompute and meta.ac_graph_id "
               "(= custom.ac_region_id, default 0), as torchtitan's apply_sac_pass does; remat then realises "
               "the tags.\n"
               "Policies: save_list (SAVE_OPS saved: mm, addmm, bmm, convolution, attention kinds, linear, "
               "aten.max, reduce_scatter / all_to_all outputs, ...; the rest PREFER_RECOMPUTE); alternate_mm "
               "(torchtitan #2766: odd aten.mm saved, even mm recomputed, other SAVE_OPS saved, the rest "
               "recomputed; reset_per_layer restarts the count in each AC region as #3397 does); issue178935 "
               "(mm PREFER_RECOMPUTE, everything else MUST_SAVE); recompute_all (vanilla AC: every forward node "
               "of an AC region PREFER_RECOMPUTE; nodes outside the regions saved; a graph without region ids is "
               "one region); user (ops in `save` saved, the rest recomputed).\n"
               "Always: backward nodes and placeholders are not touched; getitem, wait_tensor, detach and alias "
               "inherit their producer's tag; the loss and the loss / lm_head epilogue (see phases.hpp) are "
               "MUST_SAVE so ones_like(loss) never drags the forward back in; symbolic scalars are MUST_SAVE; RNG "
               "ops are MUST_SAVE unless save_rng=false (remat cannot replay RNG state); side effects and mutations "
               "(in-place, out=, auto_functionalized, with_effects, logging), collectives and ops the registry "
               "does not know are MUST_SAVE (running them again in the backward would log, mutate or communicate "
               "twice) unless `recompute` names them on purpose (an FSDP all-gather), which tags them "
               "MUST_RECOMPUTE.\n"
               "Refused: a graph with no backward (forward-only, inference, post-grad, Dynamo) and an AOT backward "
               "graph: there is nothing to recompute in.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"policy",
             OptionType::Enum,
             "alternate_mm",
             {"save_list", "alternate_mm", "issue178935", "recompute_all", "user"},
             "the tagging policy"},
            {"reset_per_layer",
             OptionType::Bool,
             "true",
             {},
             "alternate_mm: restart the mm count in every AC region (torchtitan #3397); false counts over the "
             "whole graph (#2766)"},
            {"save",
             OptionType::StringList,
             "",
             {},
             "user policy: ops saved (\"mm;aten.bmm.default;addmm\"), the rest recomputed"},
            {"save_rng", OptionType::Bool, "true", {}, "tag RNG ops MUST_SAVE whatever the policy"},
            {"recompute",
             OptionType::StringList,
             "",
             {},
             "ops recomputed on purpose, whatever the policy (MUST_RECOMPUTE), side effects, collectives and "
             "unknown ops included (\"all_gather_into_tensor\")"},
        };
    }

    void checkOptions(const PassOptions& opts) const override
    {
        const std::string policy = opts.getString("policy");
        if (policy != "user" && opts.isGiven("save"))
            throw std::invalid_argument("option 'save' is read by policy=user only (policy is " + policy
                                        + "): drop it, or write policy=user");
        if (policy == "user" && opts.getList("save").empty())
            throw std::invalid_argument("option 'save' is empty: policy=user saves the ops it lists "
                                        "(save=mm;addmm); to recompute everything write policy=recompute_all");
        for (const std::string& item : opts.getList("save")) checkSaveItem(item, "save");
        for (const std::string& item : opts.getList("recompute")) checkSaveItem(item, "recompute");
    }

    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        const std::string policy = opts.getString("policy");
        const bool resetPerLayer = opts.getBool("reset_per_layer");
        const bool saveRng = opts.getBool("save_rng");
        const std::vector<std::string> saveList = opts.getList("save");
        const std::vector<std::string> recomputeList = opts.getList("recompute");
        checkOptions(opts);
        for (const auto& [option, list] : {std::pair{"save", &saveList}, std::pair{"recompute", &recomputeList}})
            for (const std::string& item : *list) {
                bool matched = false;
                for (NodeId id : g.order()) matched = matched || targetMatches(g.node(id).target, item);
                if (!matched) ctx.note(std::string(option) + ": '" + item + "' matches no node of this graph");
            }

        PhaseInfo ph = classifyPhases(g);
        if (const std::string why = noBackwardGraph(g, ph, "sac"); !why.empty()) throw PassError(why);
        if (const std::string why = backwardOnlyGraph(g, ph, "sac"); !why.empty()) throw PassError(why);
        bool hasRegions = false;
        for (NodeId id : g.order())
            if (acRegionId(g.node(id))) {
                hasRegions = true;
                break;
            }

        std::map<int, int> mmCount;  // region key -> mms seen
        struct Counts
        {
            int64_t save = 0, recompute = 0;
        };
        std::map<int, Counts> byRegion;
        std::map<std::string, Counts> byOp;
        std::map<std::string, int64_t> reasons;
        UnreplayableCounts kept;  // saved whatever the policy: side effects, collectives, unknown ops
        UnreplayableCounts onPurpose;  // the same, named in `recompute`
        std::vector<std::string> writers;  // named in `recompute` but saved: they write in place
        int64_t changed = 0;

        for (NodeId id : g.order()) {
            Node& n = g.node(id);
            if (n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod && n.op != NodeOp::CallModule) continue;
            if (!ph.isForward(id)) continue;

            Recompute tag = Recompute::None;
            int gid = 0;
            if (inheritsTag(n)) {
                const Node& p = g.node(n.args[0].node);
                if (p.meta.recompute == Recompute::None) continue;  // producer untagged (e.g. an input)
                tag = p.meta.recompute;
                gid = p.meta.acGraphId.value_or(0);
                ++reasons["inherited"];
            } else {
                std::optional<int> region = acRegionId(n);
                gid = region.value_or(0);
                if (ph.isEpilogue(id)) {
                    tag = Recompute::MustSave;
                    ++reasons["loss/epilogue"];
                } else if (isSymNode(n, ctx.registry)) {
                    tag = Recompute::MustSave;
                    ++reasons["symbolic"];
                } else if (saveRng && isRngNode(n, ctx.registry)) {
                    tag = Recompute::MustSave;
                    ++reasons["rng"];
                } else if (named(n, recomputeList) && !writesInPlace(n, ctx.registry)) {
                    tag = Recompute::MustRecompute;
                    ++reasons["named in recompute"];
                    onPurpose.add(unreplayableKind(n, ctx.registry), n.name);
                } else if (const Unreplayable k = unreplayableKind(n, ctx.registry); k != Unreplayable::None) {
                    tag = Recompute::MustSave;
                    ++reasons[std::string(unreplayableName(k))];
                    kept.add(k, n.name);
                    // not even on purpose: running it again in the backward writes its inputs
                    // twice (batch norm's running stats: momentum applied twice)
                    if (named(n, recomputeList)) writers.push_back(n.name);
                } else {
                    tag = decide(policy, n, region, hasRegions, resetPerLayer, saveList, mmCount);
                    ++reasons["policy"];
                }
            }

            if (n.meta.recompute != tag) {
                ctx.tagSet(n.name, "recompute", std::string(recomputeName(n.meta.recompute)),
                           std::string(recomputeName(tag)));
                n.meta.recompute = tag;
                ++changed;
            }
            if (n.meta.acGraphId != gid) {
                ctx.tagSet(n.name, "ac_graph_id", idText(n.meta.acGraphId), std::to_string(gid));
                n.meta.acGraphId = gid;
            }
            Counts& r = byRegion[gid];
            Counts& o = byOp[n.target];
            if (isRecomputeTag(tag)) {
                ++r.recompute;
                ++o.recompute;
            } else {
                ++r.save;
                ++o.save;
            }
        }

        nlohmann::json regions = nlohmann::json::object(), ops = nlohmann::json::object();
        int64_t save = 0, recompute = 0;
        for (const auto& [k, c] : byRegion) {
            regions[std::to_string(k)] = {{"save", c.save}, {"recompute", c.recompute}};
            save += c.save;
            recompute += c.recompute;
        }
        for (const auto& [k, c] : byOp) ops[k] = {{"save", c.save}, {"recompute", c.recompute}};
        ctx.log.stats["policy"] = policy;
        ctx.log.stats["phases"] = ph.method();
        ctx.log.stats["save"] = save;
        ctx.log.stats["recompute"] = recompute;
        ctx.log.stats["regions"] = regions;
        ctx.log.stats["ops"] = ops;
        ctx.log.stats["reasons"] = reasons;
        ctx.note("sac(policy=" + policy + "): " + std::to_string(save) + " saved, " + std::to_string(recompute)
                 + " recompute over " + std::to_string(byRegion.size()) + " AC region(s); phases from " + ph.method());
        if (kept.total())
            ctx.note("sac: saved whatever the policy, as they must not run twice: " + kept.text()
                     + "; name an op in recompute=... to recompute it on purpose");
        if (onPurpose.total()) ctx.note("sac: MUST_RECOMPUTE on purpose (named in recompute): " + onPurpose.text());
        if (!writers.empty())
            ctx.note("sac: not recomputing " + std::to_string(writers.size())
                     + " node(s) named in recompute=... that write their inputs in place (running them again would "
                       "write twice), saved: "
                     + firstNames(writers));
        ctx.log.stats["kept_saved"] = {{"side_effect", kept.sideEffect.size()},
                                       {"collective", kept.collective.size()},
                                       {"unknown_op", kept.unknown.size()}};
        std::vector<std::string> regionLines;
        for (const auto& [region, c] : byRegion)
            regionLines.push_back("region " + std::to_string(region) + ": " + std::to_string(c.save) + " saved, "
                                  + std::to_string(c.recompute) + " recompute");
        ctx.noteList(regionLines, "regions", "all in the step's stats \"regions\", with --json");
    }

private:
    // The node's target matches an item of `list` (targetMatches).
    static bool named(const Node& n, const std::vector<std::string>& list)
    {
        for (const auto& s : list)
            if (targetMatches(n.target, s)) return true;
        return false;
    }

    // An item of `save` or `recompute` must name an operator of the registry, in any of the
    // spellings that targetMatches accepts (mm, aten.mm, aten.mm.default, mm.default), unless it
    // is in a namespace the registry does not know (a custom op: mylib.fused_linear). A typo gets
    // the nearest spelling.
    static void checkSaveItem(const std::string& item, const std::string& option)
    {
        const auto ops = OpRegistry::instance().all();
        for (const OpInfo* op : ops)
            if (targetMatches(op->qualifiedName, item)) return;
        std::set<std::string> namespaces, names;
        for (const OpInfo* op : ops) {
            namespaces.insert(op->schema.ns);
            names.insert(op->schema.name);
        }
        const size_t dot = item.find('.');
        const std::string first = item.substr(0, dot);
        if (dot != std::string::npos && !namespaces.count(first) && !names.count(first)) return;  // custom op
        const size_t dots = static_cast<size_t>(std::count(item.begin(), item.end(), '.'));
        std::set<std::string> spellings;  // the registry's names written like the item
        for (const OpInfo* op : ops) {
            const Schema& sc = op->schema;
            if (dot == std::string::npos)
                spellings.insert(sc.name);
            else if (!namespaces.count(first))
                spellings.insert(sc.name + "." + sc.overload);
            else
                spellings.insert(dots == 1 ? sc.ns + "." + sc.name : op->qualifiedName);
        }
        const std::string nearest = nearestSpelling(item, {spellings.begin(), spellings.end()});
        throw std::invalid_argument("option '" + option + "': '" + item + "' names no operator"
                                    + (nearest.empty() ? std::string(" (spell it as in the graph: aten.mm.default)")
                                                       : " (did you mean '" + nearest + "'?)"));
    }

    static Recompute decide(const std::string& policy, const Node& n, std::optional<int> region, bool hasRegions,
                            bool resetPerLayer, const std::vector<std::string>& saveList, std::map<int, int>& mmCount)
    {
        const bool isMm = opPacket(n.target) == "aten.mm";
        if (policy == "save_list") return isSaveOp(n) ? Recompute::MustSave : Recompute::PreferRecompute;
        if (policy == "alternate_mm") {
            if (isMm) {
                int key = resetPerLayer ? region.value_or(-1) : 0;
                int c = ++mmCount[key];
                return c % 2 == 1 ? Recompute::MustSave : Recompute::PreferRecompute;
            }
            return isSaveOp(n) ? Recompute::MustSave : Recompute::PreferRecompute;
        }
        if (policy == "issue178935") return isMm ? Recompute::PreferRecompute : Recompute::MustSave;
        if (policy == "recompute_all") return hasRegions && !region ? Recompute::MustSave : Recompute::PreferRecompute;
        // user
        for (const auto& s : saveList)
            if (targetMatches(n.target, s)) return Recompute::MustSave;
        return Recompute::PreferRecompute;
    }
};

}  // namespace

std::unique_ptr<Pass> makeSacPass() { return std::make_unique<SacPass>(); }

}  // namespace fxl
