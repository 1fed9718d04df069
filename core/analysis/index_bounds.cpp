#include "core/analysis/index_bounds.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/op_registry.hpp"

namespace fxl {
namespace {

// Ops whose output holds (some of) the values of their first tensor argument.
bool keepsValues(std::string_view op)
{
    static const std::vector<std::string_view> kOps = {"aten.view",
                                                       "aten.reshape",
                                                       "aten._unsafe_view",
                                                       "aten.unsqueeze",
                                                       "aten.squeeze",
                                                       "aten.clone",
                                                       "aten._to_copy",
                                                       "aten.expand",
                                                       "aten.permute",
                                                       "aten.t",
                                                       "aten.transpose",
                                                       "aten.flatten",
                                                       "aten.slice",
                                                       "aten.select",
                                                       "aten.alias",
                                                       "aten.contiguous",
                                                       "aten.lift_fresh_copy",
                                                       "aten.detach",
                                                       "aten.to",
                                                       "prims.convert_element_type",
                                                       "aten.repeat",
                                                       "aten.cat",
                                                       "aten.narrow",
                                                       "aten.unbind",
                                                       "aten.split",
                                                       "aten.chunk",
                                                       "aten.split_with_sizes",
                                                       "aten.flip",
                                                       "aten.roll",
                                                       "aten.index_select"};
    for (std::string_view k : kOps)
        if (op.size() > k.size() && op.substr(0, k.size()) == k && op[k.size()] == '.') return true;
    return false;
}

std::optional<int64_t> sizeOf(const Graph& g, const Arg& a, int64_t dim)
{
    if (!a.isNode()) return std::nullopt;
    const ValueMeta& m = g.node(a.node).val;
    if (!m.isTensor()) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(m.tensor.sizes.size());
    if (dim < 0) dim += rank;
    if (dim < 0 || dim >= rank) return std::nullopt;
    return m.tensor.sizes[static_cast<size_t>(dim)].maybeValue();
}

std::optional<int64_t> intOf(const Arg& a)
{
    if (a.kind == Arg::Kind::Int) return a.i;
    return std::nullopt;
}

bool refersTo(const Arg& a, NodeId id) { return a.isNode() && a.node == id; }

// The bound consumer `u` puts on its operand `id` (nullopt: none from this consumer).
std::optional<int64_t> boundFrom(const Graph& g, NodeId id, const std::vector<Arg>& b, const OpInfo& op)
{
    const std::string& t = op.qualifiedName;
    auto arg = [&](std::string_view name) -> const Arg* {
        for (size_t i = 0; i < op.schema.args.size() && i < b.size(); ++i)
            if (op.schema.args[i].name == name) return &b[i];
        return nullptr;
    };
    auto is = [&](std::string_view name) {
        const Arg* a = arg(name);
        return a && refersTo(*a, id);
    };
    if (t == "aten.embedding.default" && is("indices")) return sizeOf(g, *arg("weight"), 0);
    if (t == "aten.embedding_dense_backward.default" && is("indices")) return intOf(*arg("num_weights"));
    if ((t == "aten.index_select.default" || t == "aten.gather.default" || t.rfind("aten.scatter", 0) == 0
         || t == "aten.index_add.default" || t == "aten.index_copy.default" || t == "aten.index_fill.int_Scalar")
        && is("index")) {
        const Arg* dim = arg("dim");
        const Arg* self = arg("self");
        if (dim && self && intOf(*dim)) return sizeOf(g, *self, *intOf(*dim));
        return std::nullopt;
    }
    if ((t == "aten.index.Tensor" || t.rfind("aten.index_put", 0) == 0 || t.rfind("aten._unsafe_index", 0) == 0)) {
        const Arg* idx = arg("indices");
        const Arg* self = arg("self");
        if (!idx || !self) return std::nullopt;
        std::optional<int64_t> out;
        for (size_t k = 0; k < idx->items.size(); ++k)
            if (refersTo(idx->items[k], id)) {
                const auto s = sizeOf(g, *self, static_cast<int64_t>(k));
                if (s) out = out ? std::min(*out, *s) : *s;
            }
        return out;
    }
    if (t.rfind("aten.nll_loss", 0) == 0 && is("target")) {
        const Arg* self = arg("self");
        if (!self || !self->isNode() || !g.node(self->node).val.isTensor()) return std::nullopt;
        return sizeOf(g, *self, g.node(self->node).val.tensor.sizes.size() == 1 ? 0 : 1);
    }
    if (t == "aten.one_hot.default" && is("self")) {
        const auto n = intOf(*arg("num_classes"));
        if (n && *n > 0) return n;
    }
    return std::nullopt;
}

}  // namespace

std::unordered_map<NodeId, int64_t> indexUpperBounds(const Graph& g)
{
    const OpRegistry& reg = OpRegistry::instance();
    std::unordered_map<NodeId, int64_t> out;
    auto tighten = [&](NodeId id, int64_t b) {
        auto [it, fresh] = out.try_emplace(id, b);
        if (!fresh) it->second = std::min(it->second, b);
    };
    const auto& order = g.order();
    std::vector<Arg> bound;
    // users come after their operands: walking backwards, a node's bound is complete before
    // its operands read it
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const Node& u = g.node(*it);
        if (u.op != NodeOp::CallFunction) continue;
        if (u.isGetitem()) {  // an item of split / unbind: its values are the tuple's
            auto own = out.find(u.id);
            if (own != out.end() && !u.args.empty() && u.args[0].isNode()) tighten(u.args[0].node, own->second);
            continue;
        }
        const OpInfo* op = reg.find(OpRegistry::normalizeTarget(u.target));
        if (!op) continue;
        bound.clear();
        if (reg.bind(*op, u, bound)) continue;  // an error message: arguments do not bind
        if (keepsValues(op->qualifiedName) && !bound.empty()) {
            auto own = out.find(u.id);
            if (own != out.end()) {
                if (bound[0].isNode()) tighten(bound[0].node, own->second);
                for (const Arg& a : bound[0].items)  // cat's list of tensors
                    if (a.isNode()) tighten(a.node, own->second);
            }
        }
        for (const Arg& a : bound) {
            std::vector<NodeId> ids;
            if (a.isNode()) ids.push_back(a.node);
            for (const Arg& x : a.items)
                if (x.isNode()) ids.push_back(x.node);
            for (NodeId id : ids)
                if (const auto b = boundFrom(g, id, bound, *op)) tighten(id, *b);
        }
    }
    return out;
}

}  // namespace fxl
