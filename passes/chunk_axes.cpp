#include "passes/chunk_axes.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "passes/pass.hpp"

namespace fxl {

const AxisInfo& AxisAnalysis::of(NodeId id, size_t item) const
{
    static const AxisInfo kFree;
    if (id < 0 || static_cast<size_t>(id) >= byNode.size()) return kFree;
    const auto& v = byNode[static_cast<size_t>(id)];
    if (item >= v.size()) return kFree;
    return v[item];
}

bool AxisAnalysis::influenced(NodeId id) const
{
    if (id < 0 || static_cast<size_t>(id) >= byNode.size()) return false;
    for (const auto& a : byNode[static_cast<size_t>(id)])
        if (!a.isFree()) return true;
    return false;
}

bool AxisAnalysis::anyAxis(NodeId id) const
{
    if (id < 0 || static_cast<size_t>(id) >= byNode.size()) return false;
    for (const auto& a : byNode[static_cast<size_t>(id)])
        if (a.isAxis()) return true;
    return false;
}

std::vector<int64_t> valSizes(const ValueMeta& v, size_t item)
{
    const ValueMeta* m = &v;
    if (v.kind == ValueMeta::Kind::Tuple) {
        if (item >= v.elems.size()) return {};
        m = &v.elems[item];
    }
    if (!m->isTensor()) return {};
    std::vector<int64_t> s;
    for (const auto& x : m->tensor.sizes) s.push_back(x.maybeValue().value_or(-1));
    return s;
}

std::string axisText(const AxisInfo& a)
{
    switch (a.kind) {
    case AxisKind::Free: return "free";
    case AxisKind::Partial: return "partial sum";
    case AxisKind::Mixed: return "mixed (" + a.why + ")";
    case AxisKind::Axis: {
        std::string s = "dim " + std::to_string(a.dim);
        if (a.outer != 1) s += " outer " + std::to_string(a.outer);
        if (a.inner != 1) s += " inner " + std::to_string(a.inner);
        if (a.dim2 >= 0) s += " and dim " + std::to_string(a.dim2);
        return s;
    }
    }
    return "";
}

namespace {

// "aten.add_.Tensor" -> "add_"; "operator.getitem" -> "getitem"
std::string baseName(const std::string& target)
{
    std::string t = target;
    if (t.rfind("aten.", 0) == 0)
        t = t.substr(5);
    else if (t.rfind("prims.", 0) == 0)
        t = t.substr(6);
    else if (t.rfind("_c10d_functional.", 0) == 0)
        t = t.substr(17);
    else if (t.rfind("c10d_functional.", 0) == 0)
        t = t.substr(16);
    else if (t.rfind("operator.", 0) == 0 || t.rfind("_operator.", 0) == 0)
        t = t.substr(t.find('.') + 1);
    auto dot = t.find('.');
    if (dot != std::string::npos) t = t.substr(0, dot);
    return t;
}

int64_t prod(const std::vector<int64_t>& s, size_t from, size_t to)
{
    int64_t p = 1;
    for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
    return p;
}

std::optional<int64_t> intOf(const Arg& a)
{
    if (a.kind == Arg::Kind::Int) return a.i;
    if (a.kind == Arg::Kind::Bool) return a.b ? 1 : 0;
    return std::nullopt;
}

std::optional<int64_t> intOf(const Arg* a) { return a ? intOf(*a) : std::nullopt; }

std::vector<int64_t> intList(const Arg& a)
{
    std::vector<int64_t> out;
    if (a.isSequence()) {
        for (const auto& x : a.items) out.push_back(intOf(x).value_or(-1));
    } else if (auto v = intOf(a)) {
        out.push_back(*v);
    }
    return out;
}

int normDim(int64_t d, size_t rank)
{
    if (d < 0) d += static_cast<int64_t>(rank);
    return static_cast<int>(d);
}

const std::set<std::string>& factoryOps()
{
    static const std::set<std::string> k{"zeros",     "ones",     "full",      "empty",    "empty_strided",
                                         "new_zeros", "new_ones", "new_empty", "new_full", "scalar_tensor"};
    return k;
}

const std::set<std::string>& unaryLinear()
{
    static const std::set<std::string> k{"view",
                                         "_unsafe_view",
                                         "reshape",
                                         "_reshape_alias",
                                         "t",
                                         "permute",
                                         "transpose",
                                         "clone",
                                         "alias",
                                         "detach",
                                         "contiguous",
                                         "unsqueeze",
                                         "squeeze",
                                         "expand",
                                         "_to_copy",
                                         "to",
                                         "neg",
                                         "lift_fresh_copy",
                                         "all_reduce",
                                         "all_reduce_",
                                         "reduce_scatter_tensor",
                                         "wait_tensor",
                                         "getitem",
                                         "slice",
                                         "select",
                                         "split",
                                         "split_with_sizes"};
    return k;
}

class Inference
{
public:
    Inference(const Graph& g, AxisAnalysis& a, const OpRegistry& reg)
        : g_(g)
        , a_(a)
        , reg_(reg)
    { }

    void run(const std::vector<NodeId>& data)
    {
        std::set<NodeId> dataSet(data.begin(), data.end());
        const int ad = chunkAxisDim(a_.axis);
        for (int round = 0; round < 8; ++round) {
            changed_ = false;
            a_.coSplit.assign(a_.byNode.size(), {});
            for (NodeId id : g_.order()) {
                const Node& n = g_.node(id);
                auto& slot = a_.byNode[static_cast<size_t>(id)];
                if (n.op == NodeOp::Placeholder) {
                    slot.assign(1, dataSet.count(id) ? AxisInfo::axis(ad) : AxisInfo());
                    continue;
                }
                if (n.op != NodeOp::CallFunction) {
                    slot.assign(1, AxisInfo());
                    continue;
                }
                auto f = forced_.find(id);
                if (f != forced_.end()) {
                    slot.assign(1, f->second);
                    continue;
                }
                cur_ = &n;
                slot = rule(n);
            }
            if (!changed_) break;
        }
    }

private:
    const Graph& g_;
    AxisAnalysis& a_;
    const OpRegistry& reg_;
    std::map<NodeId, AxisInfo> forced_;
    bool changed_ = false;
    const Node* cur_ = nullptr;

    size_t items(const Node& n) const
    {
        return n.val.kind == ValueMeta::Kind::Tuple ? std::max<size_t>(1, n.val.elems.size()) : 1;
    }
    std::vector<AxisInfo> all(const Node& n, const AxisInfo& a) const { return std::vector<AxisInfo>(items(n), a); }
    std::vector<AxisInfo> mixed(const Node& n, const std::string& why) const
    {
        return all(n, AxisInfo::mixed("node '" + n.name + "' (" + n.target + "): " + why));
    }
    const AxisInfo& ax(const Arg& a) const
    {
        static const AxisInfo kFree;
        return a.isNode() ? a_.of(a.node) : kFree;
    }
    std::vector<int64_t> sizes(NodeId id, size_t item = 0) const { return valSizes(g_.node(id).val, item); }
    std::vector<int64_t> outSizes(size_t item = 0) const { return valSizes(cur_->val, item); }
    const Arg* argAt(const Node& n, size_t i, std::string_view kw) const
    {
        if (i < n.args.size()) return &n.args[i];
        return n.kwarg(kw);
    }

    // Asks a Free operand to carry the axis. Factories (and fills / clones of them) take it;
    // anything else must be split at the region boundary (a co-split).
    void require(NodeId id, const AxisInfo& want, int /*operandDim*/)
    {
        const Node& n = g_.node(id);
        if (n.op == NodeOp::CallFunction) {
            const std::string b = baseName(n.target);
            if (factoryOps().count(b)) {
                auto it = forced_.find(id);
                if (it == forced_.end() || !(it->second == want)) {
                    forced_[id] = want;
                    changed_ = true;
                }
                return;
            }
            if ((b == "fill_" || b == "zero_" || b == "clone" || b == "alias" || b == "detach") && !n.args.empty()
                && n.args[0].isNode() && a_.of(n.args[0].node).isFree()) {
                require(n.args[0].node, want, 0);
                return;
            }
            // expand of a value broadcast along the wanted dim (cls.expand(B, -1, -1)): it takes
            // the chunk's extent there, like a factory
            if (b == "expand" && want.dim2 < 0 && n.args.size() >= 2 && n.args[0].isNode()) {
                const auto in = sizes(n.args[0].node);
                const auto out = valSizes(n.val);
                const int shift = static_cast<int>(out.size()) - static_cast<int>(in.size());
                const int di = want.dim - shift;
                if (static_cast<size_t>(want.dim) < out.size()
                    && out[static_cast<size_t>(want.dim)] == want.outer * a_.n * want.inner
                    && (di < 0 || in[static_cast<size_t>(di)] == 1)) {
                    auto it = forced_.find(id);
                    if (it == forced_.end() || !(it->second == want)) {
                        forced_[id] = want;
                        changed_ = true;
                    }
                    return;
                }
            }
        }
        a_.coSplit[static_cast<size_t>(cur_->id)].push_back({id, want});
    }

    // Broadcasting pointwise rule over the tensor args.
    std::vector<AxisInfo> pointwise(const Node& n)
    {
        const auto out = outSizes();
        const size_t r = out.size();
        std::vector<std::pair<NodeId, AxisInfo>> tens;
        auto visit = [&](const Arg& a) {
            if (a.isNode() && g_.node(a.node).val.isTensor()) tens.push_back({a.node, a_.of(a.node)});
        };
        for (const auto& a : n.args) visit(a);
        for (const auto& kv : n.kwargs) visit(kv.second);
        std::optional<AxisInfo> res;
        for (const auto& [id, a] : tens) {
            if (!a.isAxis()) continue;
            const int shift = static_cast<int>(r) - static_cast<int>(sizes(id).size());
            AxisInfo o = a;
            o.dim += shift;
            if (o.dim2 >= 0) o.dim2 += shift;
            if (res && !(*res == o)) {
                // a value with the axis in two dims absorbs one with it in one of them
                if (res->dim2 >= 0 && o.dim2 < 0 && (o.dim == res->dim || o.dim == res->dim2)) continue;
                if (o.dim2 >= 0 && res->dim2 < 0 && (res->dim == o.dim || res->dim == o.dim2)) {
                    res = o;
                    continue;
                }
                return mixed(n,
                             "operands carry the axis in different dims (" + axisText(*res) + ", " + axisText(o) + ")");
            }
            res = o;
        }
        if (!res) return all(n, AxisInfo());
        for (const auto& [id, a] : tens) {
            if (!a.isFree()) continue;
            const auto s = sizes(id);
            const int shift = static_cast<int>(s.size()) - static_cast<int>(r);
            std::vector<std::pair<int, std::pair<int64_t, int64_t>>> want;
            for (auto [dd, oi] : {std::make_pair(res->dim, std::make_pair(res->outer, res->inner)),
                                  std::make_pair(res->dim2, std::make_pair(res->outer2, res->inner2))}) {
                if (dd < 0) continue;
                const int di = dd + shift;
                if (di < 0 || s[static_cast<size_t>(di)] == 1) continue;  // broadcast along the axis
                want.push_back({di, oi});
            }
            if (want.empty()) continue;
            AxisInfo w = AxisInfo::axis(want[0].first, want[0].second.first, want[0].second.second);
            if (want.size() > 1) {
                w.dim2 = want[1].first;
                w.outer2 = want[1].second.first;
                w.inner2 = want[1].second.second;
            }
            require(id, w, w.dim);
        }
        return all(n, *res);
    }

    // view / reshape: the axis is a run of flat-index digits (stride A, count N); find the output
    // dim that holds the run whole.
    std::vector<AxisInfo> viewRule(const Node& n, const AxisInfo& in, const std::vector<int64_t>& inS,
                                   const std::vector<int64_t>& outS)
    {
        const int64_t A = in.inner * prod(inS, static_cast<size_t>(in.dim) + 1, inS.size());
        const int64_t span = A * a_.n;
        for (int j = static_cast<int>(outS.size()) - 1; j >= 0; --j) {
            const int64_t R = prod(outS, static_cast<size_t>(j) + 1, outS.size());
            const int64_t S = outS[static_cast<size_t>(j)];
            if (S == 1 && a_.n != 1) continue;
            if (R <= A && A % R == 0 && R * S >= span && (R * S) % span == 0)
                return all(n, AxisInfo::axis(j, (R * S) / span, A / R));
        }
        return mixed(n, "the view splits the chunk axis across dims");
    }

    std::vector<AxisInfo> partialRule(const Node& n, const std::string& b)
    {
        bool anyAxis = false, allPartial = true;
        auto visit = [&](const Arg& a) {
            if (!a.isNode() || !g_.node(a.node).val.isTensor()) return;
            const AxisInfo& x = a_.of(a.node);
            if (x.isAxis()) anyAxis = true;
            if (x.kind != AxisKind::Partial) allPartial = false;
        };
        for (const auto& a : n.args) visit(a);
        for (const auto& kv : n.kwargs) visit(kv.second);
        if (!anyAxis) {
            if (unaryLinear().count(b) || b == "mul" || b == "div" || b == "sum" || b == "mm" || b == "bmm")
                return all(n, AxisInfo::partial());
            if ((b == "add" || b == "sub") && allPartial) return all(n, AxisInfo::partial());
        }
        return mixed(n, "a partial sum over the chunk axis meets a non-linear use");
    }

    std::vector<AxisInfo> rule(const Node& n)
    {
        const std::string b = baseName(n.target);
        if (n.isGetitem()) {
            if (n.args.size() < 2 || !n.args[0].isNode()) return all(n, AxisInfo());
            return {a_.of(n.args[0].node, static_cast<size_t>(intOf(n.args[1]).value_or(0)))};
        }
        // inputs
        bool anyMixed = false, anyPartial = false, anyAxis = false;
        std::string why;
        auto visit = [&](const Arg& a) {
            a.forEachNode([&](NodeId id) {
                for (const auto& x : a_.byNode[static_cast<size_t>(id)]) {
                    if (x.kind == AxisKind::Mixed) {
                        anyMixed = true;
                        if (why.empty()) why = x.why;
                    }
                    if (x.kind == AxisKind::Partial) anyPartial = true;
                    if (x.isAxis()) anyAxis = true;
                }
            });
        };
        for (const auto& a : n.args) visit(a);
        for (const auto& kv : n.kwargs) visit(kv.second);
        const bool like = b.size() > 5 && b.compare(b.size() - 5, 5, "_like") == 0;
        if (like) {
            const AxisInfo& x = n.args.empty() ? AxisInfo() : ax(n.args[0]);
            return all(n, x.isAxis() ? x : AxisInfo());
        }
        if (!anyMixed && !anyPartial && !anyAxis) return all(n, AxisInfo());
        if (anyPartial && !anyAxis) return anyMixed ? all(n, AxisInfo::mixed(why)) : partialRule(n, b);
        if (anyPartial) return mixed(n, "a partial sum meets a value that carries the axis");
        if (!anyAxis) return all(n, AxisInfo::mixed(why));
        // from here some input carries the axis; mixed inputs are whole values every chunk reads

        const AxisInfo& x0 = n.args.empty() ? AxisInfo() : ax(n.args[0]);
        const auto inS = n.args.empty() || !n.args[0].isNode() ? std::vector<int64_t>() : sizes(n.args[0].node);
        const auto outS = outSizes();
        const int d = x0.dim;
        // a shape op: the axis dims of the first input mapped by f (-1: the dim goes away)
        auto same = [&](auto f) -> std::vector<AxisInfo> {
            if (!x0.isAxis()) return mixed(n, "the first operand does not carry the axis");
            AxisInfo r = x0;
            r.dim = f(x0.dim);
            if (x0.dim2 >= 0) r.dim2 = f(x0.dim2);
            if (r.dim < 0 || (x0.dim2 >= 0 && r.dim2 < 0)) return mixed(n, "removes the chunk axis");
            return all(n, r);
        };
        auto isAxisDim = [&](int k) { return k == x0.dim || (x0.dim2 >= 0 && k == x0.dim2); };

        if (b == "view" || b == "_unsafe_view" || b == "reshape" || b == "_reshape_alias") {
            if (!x0.isAxis()) return mixed(n, "a view of a value without the axis");
            auto r = viewRule(n, x0, inS, outS);
            if (x0.dim2 < 0 || !r[0].isAxis()) return r;
            auto r2 = viewRule(n, AxisInfo::axis(x0.dim2, x0.outer2, x0.inner2), inS, outS);
            if (!r2[0].isAxis()) return r2;
            for (auto& x : r) {
                x.dim2 = r2[0].dim;
                x.outer2 = r2[0].outer;
                x.inner2 = r2[0].inner;
            }
            return r;
        }
        if (b == "clone" || b == "alias" || b == "detach" || b == "contiguous" || b == "lift_fresh_copy" || b == "to"
            || b == "_to_copy" || b == "wait_tensor" || b == "all_reduce" || b == "all_reduce_")
            return same([](int dd) { return dd; });
        if (b == "permute") {
            auto dims = intList(n.args.at(1));
            return same([&](int dd) {
                for (size_t j = 0; j < dims.size(); ++j)
                    if (normDim(dims[j], inS.size()) == dd) return static_cast<int>(j);
                return -1;
            });
        }
        if (b == "transpose") {
            int a0 = normDim(intOf(n.args.at(1)).value_or(0), inS.size());
            int a1 = normDim(intOf(n.args.at(2)).value_or(0), inS.size());
            return same([&](int dd) { return dd == a0 ? a1 : dd == a1 ? a0 : dd; });
        }
        if (b == "t") return same([&](int dd) { return inS.size() == 2 ? 1 - dd : dd; });
        if (b == "unsqueeze") {
            int u = normDim(intOf(n.args.at(1)).value_or(0), inS.size() + 1);
            return same([&](int dd) { return u <= dd ? dd + 1 : dd; });
        }
        if (b == "squeeze") {
            std::vector<int> sq;
            if (n.args.size() > 1) {
                for (auto v : intList(n.args[1])) sq.push_back(normDim(v, inS.size()));
            } else {
                for (size_t i = 0; i < inS.size(); ++i)
                    if (inS[i] == 1) sq.push_back(static_cast<int>(i));
            }
            return same([&](int dd) {
                int nd = dd;
                for (int q : sq) {
                    if (inS[static_cast<size_t>(q)] != 1) continue;
                    if (q == dd) return -1;
                    if (q < dd) --nd;
                }
                return nd;
            });
        }
        if (b == "expand")
            return same([&](int dd) { return dd + static_cast<int>(outS.size()) - static_cast<int>(inS.size()); });
        if (b == "slice") {
            int sd = normDim(intOf(argAt(n, 1, "dim")).value_or(0), inS.size());
            if (isAxisDim(sd) && outS != inS) return mixed(n, "slices the chunk axis");
            return same([](int dd) { return dd; });
        }
        if (b == "select") {
            int sd = normDim(intOf(n.args.at(1)).value_or(0), inS.size());
            if (isAxisDim(sd)) return mixed(n, "selects along the chunk axis");
            return same([&](int dd) { return sd < dd ? dd - 1 : dd; });
        }
        if (b == "split" || b == "split_with_sizes" || b == "unbind" || b == "chunk" || b == "unsafe_split"
            || b == "unsafe_split_with_sizes" || b == "unsafe_chunk") {
            const Arg* da = argAt(n, b == "unbind" ? 1 : 2, "dim");
            int sd = normDim(da ? intOf(*da).value_or(0) : 0, inS.size());
            if (isAxisDim(sd)) return mixed(n, "splits along the chunk axis");
            return same([&](int dd) { return b == "unbind" && sd < dd ? dd - 1 : dd; });
        }
        if (b == "cat" || b == "stack") {
            const Arg& list = n.args.at(0);
            const Arg* da = argAt(n, 1, "dim");
            const size_t rank = b == "cat" ? outS.size() : outS.size() - 1;
            int cd = normDim(da ? intOf(*da).value_or(0) : 0, rank);
            std::optional<AxisInfo> res;
            std::vector<NodeId> free;
            for (const auto& it : list.items) {
                const AxisInfo& x = ax(it);
                if (x.isFree() && it.isNode()) {
                    free.push_back(it.node);  // a parameter expanded over the batch (a cls token)
                    continue;
                }
                if (!x.isAxis()) return mixed(n, "concatenates values with and without the axis");
                if (res && !(*res == x)) return mixed(n, "concatenates values with the axis in different dims");
                res = x;
            }
            if (!res || (b == "cat" && res->dim == cd)) return mixed(n, "concatenates along the chunk axis");
            for (NodeId f : free) {
                if (b == "stack") return mixed(n, "stacks values with and without the axis");
                require(f, *res, res->dim);
            }
            return all(
                n, AxisInfo::axis(b == "stack" && cd <= res->dim ? res->dim + 1 : res->dim, res->outer, res->inner));
        }
        if (b == "mm" || b == "addmm" || b == "bmm") {
            const size_t o = b == "addmm" ? 1 : 0;
            const NodeId an = n.args.at(o).node, bn = n.args.at(o + 1).node;
            const AxisInfo& A = ax(n.args.at(o));
            const AxisInfo& B = ax(n.args.at(o + 1));
            if (b == "addmm" && ax(n.args.at(0)).isAxis()) return mixed(n, "addmm's bias carries the axis");
            const int bd = b == "bmm" ? 1 : 0;  // leading batch dim
            const int mDim = bd, kA = bd + 1, kB = bd, nDim = bd + 1;
            // the axis dims of an operand, with their factors
            struct D
            {
                int dim;
                int64_t outer, inner;
            };
            auto dimsOf = [](const AxisInfo& x) {
                std::vector<D> v;
                if (!x.isAxis()) return v;
                v.push_back({x.dim, x.outer, x.inner});
                if (x.dim2 >= 0) v.push_back({x.dim2, x.outer2, x.inner2});
                return v;
            };
            auto find = [](const std::vector<D>& v, int k) -> const D* {
                for (const auto& x : v)
                    if (x.dim == k) return &x;
                return nullptr;
            };
            const auto da = dimsOf(A), db = dimsOf(B);
            const D* aK = find(da, kA);
            const D* bK = find(db, kB);
            const D* aM = find(da, mDim);
            const D* bN = find(db, nDim);
            const D* aB = bd ? find(da, 0) : nullptr;
            const D* bB = bd ? find(db, 0) : nullptr;
            // batch dim of bmm
            std::vector<D> outD;
            if (aB || bB) {
                if (aB && bB && (aB->outer != bB->outer || aB->inner != bB->inner))
                    return mixed(n, "bmm operands carry the axis differently in the batch dim");
                if (aB && B.isFree()) require(bn, AxisInfo::axis(0, aB->outer, aB->inner), 0);
                if (bB && A.isFree()) require(an, AxisInfo::axis(0, bB->outer, bB->inner), 0);
                const D* x = aB ? aB : bB;
                outD.push_back({0, x->outer, x->inner});
            }
            if (aM) outD.push_back({mDim, aM->outer, aM->inner});
            if (bN) outD.push_back({nDim, bN->outer, bN->inner});
            bool contracted = false;
            if (aK || bK) {
                if (aK && bK) {
                    if (aK->outer != bK->outer || aK->inner != bK->inner)
                        return mixed(n, "matmul operands carry the axis differently in the contracted dim");
                } else if (aK && B.isFree()) {
                    require(bn, AxisInfo::axis(kB, aK->outer, aK->inner), kB);
                } else if (bK && A.isFree()) {
                    require(an, AxisInfo::axis(kA, bK->outer, bK->inner), kA);
                } else {
                    return mixed(n, "matmul contracts the axis of one operand only");
                }
                contracted = true;
            }
            if (outD.empty()) {
                if (!contracted) return mixed(n, "matmul of values without the axis");
                if (b == "addmm") return mixed(n, "addmm contracts over the chunk axis (bias added per chunk)");
                return all(n, AxisInfo::partial());
            }
            if (outD.size() > 2) return mixed(n, "matmul carries the axis in three dims");
            AxisInfo r = AxisInfo::axis(outD[0].dim, outD[0].outer, outD[0].inner);
            if (outD.size() == 2) {
                r.dim2 = outD[1].dim;
                r.outer2 = outD[1].outer;
                r.inner2 = outD[1].inner;
            }
            return all(n, r);
        }
        if (b == "sum" || b == "mean" || b == "amax" || b == "amin" || b == "var" || b == "std" || b == "logsumexp"
            || b == "prod" || b == "any" || b == "all" || b == "argmax" || b == "argmin") {
            std::vector<int> rd;
            bool keep = false;
            if (n.args.size() > 1 && n.args[1].isSequence()) {
                for (auto v : intList(n.args[1])) rd.push_back(normDim(v, inS.size()));
                if (n.args.size() > 2) keep = intOf(n.args[2]).value_or(0) != 0;
            } else if (n.args.size() > 1 && intOf(n.args[1]) && b != "sum" && b != "mean") {
                rd.push_back(normDim(*intOf(n.args[1]), inS.size()));
                if (n.args.size() > 2) keep = intOf(n.args[2]).value_or(0) != 0;
            } else if (n.args.size() > 1 && intOf(n.args[1])) {
                rd.push_back(normDim(*intOf(n.args[1]), inS.size()));
                if (n.args.size() > 2) keep = intOf(n.args[2]).value_or(0) != 0;
            } else {
                for (size_t i = 0; i < inS.size(); ++i) rd.push_back(static_cast<int>(i));
            }
            if (const Arg* k = n.kwarg("keepdim")) keep = intOf(*k).value_or(0) != 0;
            const bool r1 = std::find(rd.begin(), rd.end(), d) != rd.end();
            const bool r2 = x0.dim2 >= 0 && std::find(rd.begin(), rd.end(), x0.dim2) != rd.end();
            auto shift = [&](int dd) {
                int nd = dd;
                if (!keep)
                    for (int r : rd)
                        if (r < dd) --nd;
                return nd;
            };
            if (x0.dim2 >= 0 && r1 != r2) {  // one of two axis dims reduced: the other stays
                AxisInfo r = r1 ? AxisInfo::axis(shift(x0.dim2), x0.outer2, x0.inner2)
                                : AxisInfo::axis(shift(d), x0.outer, x0.inner);
                return all(n, r);
            }
            if (r1) {
                if (b == "sum" && x0.dim2 < 0) return all(n, AxisInfo::partial());
                return mixed(n, "reduces over the chunk axis");
            }
            return same(shift);
        }
        if (b == "_softmax" || b == "_log_softmax" || b == "_softmax_backward_data"
            || b == "_log_softmax_backward_data") {
            const size_t di = b[1] == 's' || b[1] == 'l' ? (b.find("backward") != std::string::npos ? 2 : 1) : 1;
            int sd = normDim(intOf(n.args.at(di)).value_or(0), inS.size());
            if (isAxisDim(sd) && x0.dim2 < 0) return mixed(n, "normalizes over the chunk axis");
            return pointwise(n);
        }
        if (b == "native_layer_norm") {
            const size_t k = intList(n.args.at(1)).size();
            if (static_cast<size_t>(d) + k >= inS.size()) return mixed(n, "normalizes over the chunk axis");
            return same([](int dd) { return dd; });
        }
        if (b == "native_layer_norm_backward") {
            const AxisInfo& x1 = ax(n.args.at(1));
            if (!x0.isAxis() || !(x0 == x1)) return mixed(n, "grad and input carry the axis differently");
            return {x0, AxisInfo::partial(), AxisInfo::partial()};
        }
        if (b == "embedding") {
            const AxisInfo& ix = ax(n.args.at(1));
            if (!x0.isFree() || !ix.isAxis()) return mixed(n, "embedding table carries the axis");
            return all(n, ix);
        }
        if (b == "embedding_dense_backward") return all(n, AxisInfo::partial());
        if (b == "nll_loss_forward" || b == "mse_loss") {
            const Arg* r = argAt(n, b == "mse_loss" ? 2 : 3, "reduction");
            const int64_t red = r ? intOf(*r).value_or(1) : 1;
            if (red == 0 && b == "mse_loss") return pointwise(n);
            if (red == 2) return all(n, AxisInfo::partial());
            return mixed(n, "a loss reduced over the chunk axis");
        }
        if (b == "nll_loss_backward") return all(n, ax(n.args.at(1)));
        if (b == "topk" || b == "sort") {
            const Arg* da = argAt(n, b == "topk" ? 2 : 1, "dim");
            int sd = normDim(da ? intOf(*da).value_or(-1) : -1, inS.size());
            if (sd == d) return mixed(n, "sorts along the chunk axis");
            return same([](int dd) { return dd; });
        }
        if (b == "scatter" || b == "scatter_add" || b == "gather") {
            const int sd = normDim(intOf(n.args.at(1)).value_or(0), inS.size());
            std::optional<AxisInfo> res;
            for (size_t i : {size_t(0), size_t(2), size_t(3)}) {
                if (i >= n.args.size() || !n.args[i].isNode()) continue;
                const AxisInfo& x = ax(n.args[i]);
                if (!x.isAxis()) continue;
                if (x.dim == sd) return mixed(n, "scatters / gathers along the chunk axis");
                if (res && !(*res == x)) return mixed(n, "operands carry the axis differently");
                res = x;
            }
            if (!res) return mixed(n, "no operand carries the axis");
            for (size_t i : {size_t(0), size_t(2), size_t(3)}) {
                if (i >= n.args.size() || !n.args[i].isNode()) continue;
                if (!g_.node(n.args[i].node).val.isTensor()) continue;
                if (ax(n.args[i]).isFree()) require(n.args[i].node, *res, res->dim);
            }
            return all(n, *res);
        }
        if (b == "index_select") {
            int sd = normDim(intOf(n.args.at(1)).value_or(0), inS.size());
            if (!x0.isAxis() || sd == d || !ax(n.args.at(2)).isFree()) return mixed(n, "indexes along the chunk axis");
            return same([](int dd) { return dd; });
        }
        if (b == "bincount") return all(n, AxisInfo::partial());
        if (b == "slice_backward") {
            // slice_backward(grad, input_sizes, dim, start, end, step)
            int sd = normDim(intOf(n.args.at(2)).value_or(0), outS.size());
            const auto full = intList(n.args.at(1));
            const bool identity = intOf(argAt(n, 3, "start")).value_or(-1) == 0 && static_cast<size_t>(sd) < full.size()
                && intOf(argAt(n, 4, "end")).value_or(0) >= full[static_cast<size_t>(sd)]
                && intOf(argAt(n, 5, "step")).value_or(0) == 1;
            if (sd == d && !identity) return mixed(n, "slice_backward of a part of the chunk axis");
            return same([](int dd) { return dd; });
        }
        if (b == "select_backward") {
            int sd = normDim(intOf(n.args.at(2)).value_or(0), outS.size());
            return same([&](int dd) { return sd <= dd ? dd + 1 : dd; });
        }
        if (b == "triu" || b == "tril") return same([](int dd) { return dd; });
        if (b == "softmax" || b == "log_softmax" || b == "cumsum" || b == "cumprod" || b == "logcumsumexp") {
            int sd = normDim(intOf(n.args.at(1)).value_or(0), inS.size());
            if (isAxisDim(sd) && x0.dim2 < 0) return mixed(n, "normalizes or accumulates over the chunk axis");
            return same([](int dd) { return dd; });
        }
        if (b == "linear") {  // x [..., in] @ w^T: the axis is never the last dim of a batch of rows
            if (!x0.isAxis() || static_cast<size_t>(x0.dim) + 1 == inS.size() || x0.dim2 >= 0
                || (n.args.size() > 1 && !ax(n.args[1]).isFree()))
                return mixed(n, "linear over the chunk axis");
            return same([](int dd) { return dd; });
        }
        if (b == "scaled_dot_product_attention") {  // q [B, H, Tq, D]: out follows q (batch, heads, queries)
            if (!x0.isAxis() || static_cast<size_t>(x0.dim) + 1 == inS.size())
                return mixed(n, "attention over the chunk axis");
            return same([](int dd) { return dd; });
        }
        // [N, C, spatial...] ops: the axis must be in a leading (sample) dim, before the channels
        const auto inLeading = [&](int channels) { return x0.isAxis() && x0.dim2 < 0 && x0.dim < channels; };
        if (b == "convolution" || b == "_convolution") {
            for (size_t i : {size_t(1), size_t(2)})
                if (i < n.args.size() && !ax(n.args[i]).isFree())
                    return mixed(n, "the weight or bias carries the axis");
            if (!inLeading(1)) return mixed(n, "convolves over the chunk axis (it is not the batch dim)");
            return same([](int dd) { return dd; });
        }
        if (b == "convolution_backward") {
            // (grad_output, input, weight, ...) -> (grad_input, grad_weight, grad_bias)
            const AxisInfo& xi = ax(n.args.at(1));
            if (!inLeading(1) || !(xi == x0))
                return mixed(n, "grad and input carry the axis differently, or not in the batch dim");
            return {x0, AxisInfo::partial(), AxisInfo::partial()};
        }
        if (b.find("pool") != std::string::npos || b.rfind("upsample_", 0) == 0) {
            const int spatial = b.find("1d") != std::string::npos ? 1 : b.find("3d") != std::string::npos ? 3 : 2;
            if (!inLeading(static_cast<int>(inS.size()) - spatial))
                return mixed(n, "pools or resamples over the chunk axis (it is a spatial dim)");
            return same([](int dd) { return dd; });
        }
        if (b == "native_group_norm") {  // per sample: out [N, C, ...], mean and rstd [N, G]
            if (!inLeading(1)) return mixed(n, "normalizes a sample's groups over the chunk axis");
            return {x0, AxisInfo::axis(0), AxisInfo::axis(0)};
        }
        if (b == "native_group_norm_backward") {  // (grad, input, mean, rstd, weight, ...)
            if (!inLeading(1) || !(ax(n.args.at(1)) == x0))
                return mixed(n, "grad and input carry the axis differently");
            return {x0, AxisInfo::partial(), AxisInfo::partial()};
        }
        if (b == "native_batch_norm" || b == "_native_batch_norm_legit" || b == "_native_batch_norm_legit_functional") {
            if (intOf(argAt(n, 5, "training")).value_or(1) != 0)
                return mixed(n, "normalizes with batch statistics (training mode): it needs the whole batch");
            if (!inLeading(1)) return mixed(n, "normalizes over the chunk axis");
            std::vector<AxisInfo> r(items(n), AxisInfo());
            r[0] = x0;
            return r;
        }
        if (b == "native_batch_norm_backward") {
            if (intOf(argAt(n, 7, "train")).value_or(1) != 0)
                return mixed(n, "is the backward of batch statistics (training mode): it needs the whole batch");
            if (!inLeading(1)) return mixed(n, "normalizes over the chunk axis");
            return {x0, AxisInfo::partial(), AxisInfo::partial()};
        }
        if (b == "reduce_scatter_tensor" || b == "all_gather_into_tensor" || b == "all_to_all_single")
            return mixed(n, "a collective over a value that carries the axis");
        const OpInfo* op = reg_.find(n.target);
        if (op && op->has(kTraitPointwise)) return pointwise(n);
        if (b == "where" || b == "masked_fill" || b == "fill_" || b == "copy_" || b == "index_put" || b == "index_put_")
            return pointwise(n);
        return mixed(n, "no chunk-axis rule for this operator");
    }
};

}  // namespace

AxisAnalysis inferChunkAxes(const Graph& g, const std::vector<NodeId>& dataInputs, ChunkAxis axis,
                            const std::map<std::string, int64_t>& hints, const OpRegistry& reg)
{
    AxisAnalysis a;
    a.axis = axis;
    a.inputs = dataInputs;
    const int ad = chunkAxisDim(axis);
    NodeId maxId = -1;
    for (NodeId id : g.order()) maxId = std::max(maxId, id);
    a.byNode.assign(static_cast<size_t>(maxId + 1), {});
    a.coSplit.assign(static_cast<size_t>(maxId + 1), {});
    std::string firstName;
    for (NodeId id : dataInputs) {
        const Node& p = g.node(id);
        if (!p.val.isTensor() || p.val.tensor.sizes.size() <= static_cast<size_t>(ad))
            throw PassError("chunk_region: data input '" + p.name + "' has no dimension " + std::to_string(ad) + " ("
                            + std::string(chunkAxisName(axis)) + " axis); its value is " + formatAnnotation(p.val));
        const SymInt& s = p.val.tensor.sizes[static_cast<size_t>(ad)];
        int64_t len = 0;
        std::string sym;
        if (s.isConcrete()) {
            len = *s.maybeValue();
        } else {
            auto syms = s.expr().symbols();
            if (syms.size() == 1 && s.expr().isSymbol()) sym = syms[0];
            auto it = sym.empty() ? hints.end() : hints.find(sym);
            if (it != hints.end())
                len = it->second;
            else if (s.hint())
                len = *s.hint();
            else
                throw PassError("chunk_region: the " + std::string(chunkAxisName(axis)) + " size of data input '"
                                + p.name + "' is the symbol " + s.str()
                                + " without a hint; give one with hints=" + s.str() + "=N");
        }
        if (a.n == 0) {
            a.n = len;
            a.symbol = sym;
            firstName = p.name;
        } else if (a.n != len) {
            throw PassError("chunk_region: data inputs disagree on the " + std::string(chunkAxisName(axis))
                            + " length: '" + firstName + "' has " + std::to_string(a.n) + ", '" + p.name + "' has "
                            + std::to_string(len));
        }
    }
    Inference inf(g, a, reg);
    inf.run(dataInputs);
    return a;
}

}  // namespace fxl
