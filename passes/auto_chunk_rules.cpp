// auto_chunk's per-op rules and the two propagations (docs/passes.md, auto_chunk).
#include "passes/auto_chunk_rules.hpp"

#include <algorithm>
#include <deque>

#include "passes/pass.hpp"

namespace fxl::autochunk {

std::string opBase(const std::string& target)
{
    std::string t = OpRegistry::normalizeTarget(target);
    const size_t a = t.find('.');
    if (a == std::string::npos) return t;
    const size_t b = t.find('.', a + 1);
    return t.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

std::vector<int64_t> staticSizes(const Graph& g, NodeId id, const char* why)
{
    const Node& n = g.node(id);
    if (!n.val.isTensor())
        throw PassError("auto_chunk: '" + n.name + "' (" + n.target + ") has no tensor meta; " + why);
    std::vector<int64_t> out;
    for (const SymInt& s : n.val.tensor.sizes) {
        if (!s.isConcrete())
            throw PassError("auto_chunk: '" + n.name + "' has a dynamic shape (" + formatAnnotation(n.val)
                            + "); auto_chunk needs static shapes (" + why + ")");
        out.push_back(s.valueOrHint());
    }
    return out;
}

int64_t numelOf(const Graph& g, NodeId id)
{
    const Node& n = g.node(id);
    if (!n.val.isTensor()) return -1;
    int64_t e = 1;
    for (const SymInt& s : n.val.tensor.sizes) {
        auto v = s.maybeValue();
        if (!v) return -1;
        e *= *v;
    }
    return e;
}

namespace {

// "f32[64, 512]" (no strides or device)
std::string shapeOf(const ValueMeta& v)
{
    if (!v.isTensor()) return formatAnnotation(v);
    std::string t = std::string(dtypeAbbr(v.tensor.dtype)) + "[";
    for (size_t k = 0; k < v.tensor.sizes.size(); ++k) t += (k ? ", " : "") + v.tensor.sizes[k].str();
    return t + "]";
}

int rankOf(const Graph& g, NodeId id)
{
    const Node& n = g.node(id);
    return n.val.isTensor() ? static_cast<int>(n.val.tensor.sizes.size()) : -1;
}

int64_t sizeAt(const Graph& g, NodeId id, int d)
{
    auto v = g.node(id).val.tensor.sizes.at(static_cast<size_t>(d)).maybeValue();
    return v ? *v : -1;
}

int normDim(int64_t d, int rank) { return static_cast<int>(d < 0 ? d + std::max(rank, 1) : d); }

std::vector<int64_t> intList(const Arg& a)
{
    std::vector<int64_t> out;
    if (a.kind == Arg::Kind::Int) out.push_back(a.i);
    for (const Arg& x : a.items)
        if (x.kind == Arg::Kind::Int) out.push_back(x.i);
    return out;
}

const char* const kIdentity[] = {"detach", "clone", "alias", "lift_fresh_copy", "_to_copy", "convert_element_type"};

bool isIdentityOp(const std::string& base)
{
    return std::find(std::begin(kIdentity), std::end(kIdentity), base) != std::end(kIdentity);
}

}  // namespace

Analysis::Analysis(Graph& g, const OpRegistry& reg, std::set<NodeId> tangents)
    : g_(g)
    , reg_(reg)
    , tangents_(std::move(tangents))
{
    size_t cap = 0;
    for (NodeId id : g_.order()) cap = std::max(cap, static_cast<size_t>(id) + 1);
    info.assign(cap, ChunkInfo{});
}

std::string Analysis::describe(NodeId n) const
{
    const Node& x = g_.node(n);
    std::string s = "'" + x.name + "'";
    if (x.op == NodeOp::CallFunction) s += " (" + x.target + ")";
    return s;
}

void Analysis::fail(NodeId n, const std::string& why) const
{
    throw PassError("auto_chunk: cannot chunk at " + describe(n) + ": " + why);
}

std::vector<Arg> Analysis::bound(NodeId n) const
{
    const Node& x = g_.node(n);
    const OpInfo* op = reg_.find(OpRegistry::normalizeTarget(x.target));
    if (!op) fail(n, "the op registry does not know this op");
    std::vector<Arg> b;
    if (auto err = reg_.bind(*op, x, b)) fail(n, "its arguments do not fit the schema: " + *err);
    return b;
}

std::vector<NodeId> Analysis::tensorArgs(NodeId n) const
{
    std::vector<NodeId> out;
    const Node& x = g_.node(n);
    auto add = [&](const Arg& a) {
        if (a.isNode() && g_.node(a.node).val.isTensor()) out.push_back(a.node);
    };
    for (const Arg& a : x.args) add(a);
    for (const auto& kv : x.kwargs) add(kv.second);
    return out;
}

// Every operand evaluated (each sets meta), then whether any changed something.
template<class... B>
bool orAll(B... changed)
{
    return (changed || ...);
}

bool Analysis::set(NodeId a, int dim, bool needSum, NodeId by)
{
    ChunkInfo& m = info[static_cast<size_t>(a)];
    if (isTangent(a)) {
        if (dim >= 0 || needSum)
            fail(by,
                 "it would split the tangent " + describe(a)
                     + "; only a tangent that multiplies the whole region can be factored out");
        return setNop(a, by);
    }
    if (!m.present) {
        m.present = true;
        m.dim = dim;
        m.needSum = needSum;
        return true;
    }
    if (m.dim == dim && m.needSum == needSum) return false;
    auto text = [](int d, bool s) {
        return s ? std::string("a partial sum") : d >= 0 ? "chunk dim " + std::to_string(d) : std::string("unsplit");
    };
    fail(by,
         "conflicting chunk metadata for " + describe(a) + ": " + text(m.dim, m.needSum) + " vs " + text(dim, needSum));
}

bool Analysis::setNop(NodeId a, NodeId by)
{
    ChunkInfo& m = info[static_cast<size_t>(a)];
    if (!m.present) {
        m.present = true;
        if (isTangent(a)) m.scaleBy = a;
        return true;
    }
    if (m.dim >= 0 || m.needSum)
        fail(by,
             describe(a) + " must be passed unsplit here but is " + (m.needSum ? "a partial sum" : "chunked")
                 + " elsewhere");
    return false;
}

bool Analysis::copyMeta(NodeId a, const ChunkInfo& m, NodeId by)
{
    if (!m.present) return false;
    if (m.nop()) return setNop(a, by);
    return set(a, m.dim, m.needSum, by);
}

// ------------------------------------------------------------------ rules

bool Analysis::rulePointwise(NodeId n, bool linearOnly)
{
    const std::string base = opBase(g_.node(n).target);
    const int R = rankOf(g_, n);
    if (R < 0) fail(n, "its value is not a tensor");
    const auto args = tensorArgs(n);
    auto isScalar = [&](NodeId a) { return numelOf(g_, a) == 1 && R > 0; };
    // the meta to spread: the first split or summed non-scalar argument, else the output's
    const ChunkInfo* src = nullptr;
    NodeId srcNode = kNoNode;
    for (NodeId a : args) {
        const ChunkInfo& m = info[static_cast<size_t>(a)];
        if (isScalar(a)) {
            if (m.present && !m.nop()) fail(n, "its one-element argument " + describe(a) + " is split or summed");
            continue;
        }
        if (m.present && !m.nop()) {
            src = &m;
            srcNode = a;
            break;
        }
    }
    int dim = -1;
    bool needSum = false;
    if (src) {
        needSum = src->needSum;
        if (!needSum) dim = src->dim + (R - rankOf(g_, srcNode));
    } else if (info[static_cast<size_t>(n)].present && !info[static_cast<size_t>(n)].nop()) {
        dim = info[static_cast<size_t>(n)].dim;
        needSum = info[static_cast<size_t>(n)].needSum;
    } else {
        // all unsplit: keep the walk going toward the tangents (a scalar factor of the seed)
        if (!info[static_cast<size_t>(n)].present) return false;
        bool changed = false;
        for (NodeId a : args) changed |= setNop(a, n);
        return changed;
    }
    if (needSum) {
        // only a linear op keeps a sum of chunk values a sum: unary copies, mul / div by an unsplit value
        const bool unary = isIdentityOp(base) || base == "neg";
        const bool scaled = base == "mul" || base == "div";
        const bool additive = base == "add" || base == "sub";
        if (!(unary || scaled || additive) || linearOnly)
            fail(n,
                 "a partial sum (" + describe(src ? srcNode : n) + ") cannot pass through " + base
                     + ", which is not linear");
        bool changed = set(n, -1, true, n);
        int summed = 0;
        for (size_t k = 0; k < args.size(); ++k) {
            NodeId a = args[k];
            const ChunkInfo& m = info[static_cast<size_t>(a)];
            if (additive) {
                if (!m.present || !m.needSum)
                    fail(n,
                         "adds the partial sum to " + describe(a) + ", which is not a partial sum of the same chunks");
                ++summed;
                continue;
            }
            if (m.present && m.needSum) {
                if (++summed > 1) fail(n, "multiplies two partial sums");
                if (base == "div" && k > 0) fail(n, "divides by a partial sum");
                continue;
            }
            changed |= setNop(a, n);
        }
        return changed;
    }
    bool changed = set(n, dim, false, n);
    const auto& outSizes = g_.node(n).val.tensor.sizes;
    for (NodeId a : args) {
        if (isScalar(a)) {
            changed |= setNop(a, n);
            continue;
        }
        const int r = rankOf(g_, a);
        const int ad = dim - (R - r);
        if (ad < 0 || (sizeAt(g_, a, ad) == 1 && outSizes[static_cast<size_t>(dim)] != 1)) {
            changed |= setNop(a, n);  // broadcast along the chunk dim: the whole of it in every chunk
            continue;
        }
        changed |= set(a, ad, false, n);
    }
    return changed;
}

bool Analysis::ruleMm(NodeId n)
{
    const Node& x = g_.node(n);
    if (x.args.size() < 2 || !x.args[0].isNode() || !x.args[1].isNode()) fail(n, "expected mm(A, B)");
    const NodeId A = x.args[0].node, B = x.args[1].node;
    const ChunkInfo ma = info[static_cast<size_t>(A)], mb = info[static_cast<size_t>(B)],
                    mo = info[static_cast<size_t>(n)];
    auto nopOrAbsent = [](const ChunkInfo& m) { return !m.present || m.nop(); };
    if (ma.chunked() && ma.dim == 0 && nopOrAbsent(mb)) return orAll(set(n, 0, false, n), setNop(B, n));
    if ((ma.chunked() && ma.dim == 1) || (mb.chunked() && mb.dim == 0))
        return orAll(set(n, -1, true, n), set(A, 1, false, n), set(B, 0, false, n));
    if (mb.chunked() && mb.dim == 1 && nopOrAbsent(ma)) return orAll(set(n, 1, false, n), setNop(A, n));
    if (ma.needSum && nopOrAbsent(mb)) return orAll(set(n, -1, true, n), setNop(B, n));
    if (mb.needSum && nopOrAbsent(ma)) return orAll(set(n, -1, true, n), setNop(A, n));
    if (!nopOrAbsent(ma) || !nopOrAbsent(mb)) fail(n, "its operands are split in a way mm cannot combine");
    // backward half: from the output
    if (mo.chunked() && mo.dim == 0) return orAll(set(A, 0, false, n), setNop(B, n));
    if (mo.chunked() && mo.dim == 1) return orAll(setNop(A, n), set(B, 1, false, n));
    if (mo.needSum) return orAll(set(A, 1, false, n), set(B, 0, false, n));
    return false;
}

bool Analysis::ruleBmm(NodeId n)
{
    const Node& x = g_.node(n);
    if (x.args.size() < 2 || !x.args[0].isNode() || !x.args[1].isNode()) fail(n, "expected bmm(A, B)");
    const NodeId A = x.args[0].node, B = x.args[1].node;
    const ChunkInfo ma = info[static_cast<size_t>(A)], mb = info[static_cast<size_t>(B)],
                    mo = info[static_cast<size_t>(n)];
    auto nopOrAbsent = [](const ChunkInfo& m) { return !m.present || m.nop(); };
    if ((ma.chunked() && ma.dim == 0) || (mb.chunked() && mb.dim == 0) || (mo.chunked() && mo.dim == 0))
        return orAll(set(n, 0, false, n), set(A, 0, false, n), set(B, 0, false, n));
    if ((ma.chunked() && ma.dim == 1) || (mo.chunked() && mo.dim == 1))
        return orAll(set(n, 1, false, n), set(A, 1, false, n), setNop(B, n));
    if ((ma.chunked() && ma.dim == 2) || (mb.chunked() && mb.dim == 1) || mo.needSum)
        return orAll(set(n, -1, true, n), set(A, 2, false, n), set(B, 1, false, n));
    if (!nopOrAbsent(ma) || !nopOrAbsent(mb)) fail(n, "its operands are split in a way bmm cannot combine");
    return false;
}

bool Analysis::ruleAddmm(NodeId n)
{
    const auto b = bound(n);
    if (!b[0].isNode() || !b[1].isNode() || !b[2].isNode()) fail(n, "expected addmm(bias, A, W)");
    const NodeId bias = b[0].node, A = b[1].node, W = b[2].node;
    const ChunkInfo ma = info[static_cast<size_t>(A)], mo = info[static_cast<size_t>(n)];
    const bool fromA = ma.chunked() && ma.dim == 0;
    const bool fromOut = mo.chunked() && mo.dim == 0;
    if (!fromA && !fromOut) {
        if (ma.present && !ma.nop()) fail(n, "only a split of mat1's rows (dim 0) can pass through addmm");
        if (mo.present && !mo.nop()) fail(n, "only a split of the rows (dim 0) can pass through addmm");
        return false;
    }
    bool changed = orAll(set(n, 0, false, n), set(A, 0, false, n), setNop(W, n));
    if (rankOf(g_, bias) < 2 || sizeAt(g_, bias, 0) == 1)
        changed |= setNop(bias, n);
    else
        changed |= set(bias, 0, false, n);
    return changed;
}

bool Analysis::rulePermuteLike(NodeId n, const std::vector<int64_t>& perm)
{
    // out dim j is input dim perm[j]
    const NodeId in = g_.node(n).args.at(0).node;
    const ChunkInfo mi = info[static_cast<size_t>(in)], mo = info[static_cast<size_t>(n)];
    if (mi.present && !mi.nop()) {
        if (mi.needSum) return set(n, -1, true, n);
        for (size_t j = 0; j < perm.size(); ++j)
            if (perm[j] == mi.dim) return set(n, static_cast<int>(j), false, n);
        fail(n, "its permutation loses the chunk dim");
    }
    if (mo.present && !mo.nop()) {
        if (mo.needSum) return set(in, -1, true, n);
        return set(in, static_cast<int>(perm.at(static_cast<size_t>(mo.dim))), false, n);
    }
    if (mi.present && !mo.present) return setNop(n, n);
    if (mo.present && !mi.present) return setNop(in, n);
    return false;
}

// A reshape keeps the chunk dim when it maps to an output dim of the same size with the same
// product of sizes before it (the dims after it may be regrouped freely).
static int mapReshapeDim(const std::vector<int64_t>& from, const std::vector<int64_t>& to, int d)
{
    int64_t prefix = 1;
    for (int k = 0; k < d; ++k) prefix *= from[static_cast<size_t>(k)];
    int64_t p = 1;
    for (size_t j = 0; j < to.size(); ++j) {
        if (p == prefix && to[j] == from[static_cast<size_t>(d)]) return static_cast<int>(j);
        p *= to[j];
        if (p > prefix) break;
    }
    return -1;
}

bool Analysis::ruleView(NodeId n)
{
    const NodeId in = g_.node(n).args.at(0).node;
    const ChunkInfo mi = info[static_cast<size_t>(in)], mo = info[static_cast<size_t>(n)];
    const auto inSizes = staticSizes(g_, in, "reshape rule"), outSizes = staticSizes(g_, n, "reshape rule");
    if (mi.present && !mi.nop()) {
        if (mi.needSum) return set(n, -1, true, n);
        const int d = mapReshapeDim(inSizes, outSizes, mi.dim);
        if (d < 0)
            fail(n,
                 "the reshape from " + shapeOf(g_.node(in).val) + " to " + shapeOf(g_.node(n).val)
                     + " does not keep chunk dim " + std::to_string(mi.dim) + " as a dimension of its own");
        return set(n, d, false, n);
    }
    if (mo.present && !mo.nop()) {
        if (mo.needSum) return set(in, -1, true, n);
        const int d = mapReshapeDim(outSizes, inSizes, mo.dim);
        if (d < 0)
            fail(n,
                 "the reshape from " + shapeOf(g_.node(in).val) + " to " + shapeOf(g_.node(n).val)
                     + " does not keep chunk dim " + std::to_string(mo.dim) + " as a dimension of its own");
        return set(in, d, false, n);
    }
    if (mi.present && !mo.present) return setNop(n, n);
    if (mo.present && !mi.present) return setNop(in, n);
    return false;
}

bool Analysis::ruleReduce(NodeId n, bool isSum)
{
    const Node& x = g_.node(n);
    const std::string& t = x.target;
    const NodeId in = x.args.at(0).node;
    const int r = rankOf(g_, in);
    const ChunkInfo mi = info[static_cast<size_t>(in)], mo = info[static_cast<size_t>(n)];
    const bool full = t == "aten.sum.default";
    std::vector<int> dims;
    bool keep = false;
    if (!full) {
        const auto b = bound(n);
        for (int64_t d : intList(b.at(1))) dims.push_back(normDim(d, r));
        if (dims.empty())  // sum(x, []) reduces everything
            for (int d = 0; d < r; ++d) dims.push_back(d);
        keep = b.size() > 2 && b[2].kind == Arg::Kind::Bool && b[2].b;
    } else {
        for (int d = 0; d < r; ++d) dims.push_back(d);
    }
    auto reduced = [&](int d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
    auto outDim = [&](int d) {
        if (keep) return d;
        int k = d;
        for (int rd : dims) k -= rd < d ? 1 : 0;
        return k;
    };
    if (mi.present && !mi.nop()) {
        if (mi.needSum) {
            if (!isSum) fail(n, "amax of a partial sum is not the max of the chunk maxima of sums");
            return set(n, -1, true, n);
        }
        if (!reduced(mi.dim)) return set(n, outDim(mi.dim), false, n);
        if (!isSum) fail(n, "it takes the max along the chunk dim " + std::to_string(mi.dim));
        return set(n, -1, true, n);
    }
    if (mo.present && !mo.nop()) {
        if (mo.chunked()) {
            for (int d = 0; d < r; ++d)
                if (!reduced(d) && outDim(d) == mo.dim) return set(in, d, false, n);
            fail(n, "cannot map the chunk dim back through the reduction");
        }
        if (isSum && dims.size() == 1) return set(in, dims[0], false, n);
        fail(n, "a partial sum over several dims cannot be traced back to one chunk dim");
    }
    if (mi.present && !mo.present) return setNop(n, n);
    return false;
}

bool Analysis::ruleSoftmax(NodeId n)
{
    const auto b = bound(n);
    const NodeId in = b.at(0).node;
    const int dim = normDim(b.at(1).i, rankOf(g_, in));
    const ChunkInfo mi = info[static_cast<size_t>(in)], mo = info[static_cast<size_t>(n)];
    const ChunkInfo& m = (mi.present && !mi.nop()) ? mi : mo;
    if (m.needSum) fail(n, "softmax of a partial sum");
    if (m.chunked() && m.dim == dim) fail(n, "the softmax dim " + std::to_string(dim) + " is the chunk dim");
    if (!m.present) return false;
    return orAll(copyMeta(n, m, n), copyMeta(in, m, n));
}

bool Analysis::ruleSoftmaxBackward(NodeId n)
{
    // (grad_output, output, dim, input_dtype): all three tensors have the same shape
    const auto b = bound(n);
    const NodeId go = b.at(0).node, out = b.at(1).node;
    const int dim = normDim(b.at(2).i, rankOf(g_, n));
    const ChunkInfo* m = nullptr;
    for (NodeId a : {n, go, out})
        if (info[static_cast<size_t>(a)].present && !info[static_cast<size_t>(a)].nop()) {
            m = &info[static_cast<size_t>(a)];
            break;
        }
    if (!m) return false;
    const ChunkInfo c = *m;
    if (c.needSum) fail(n, "softmax backward of a partial sum");
    if (c.dim == dim) fail(n, "the softmax dim " + std::to_string(dim) + " is the chunk dim");
    return orAll(copyMeta(n, c, n), copyMeta(go, c, n), copyMeta(out, c, n));
}

bool Analysis::ruleNllForward(NodeId n)
{
    // (self, target, weight, reduction, ignore_index) -> (output, total_weight); the node's meta
    // is its output's (getitem 0); the total weight is rebuilt globally (auto_chunk.cpp)
    const auto b = bound(n);
    const NodeId self = b.at(0).node, target = b.at(1).node;
    if (rankOf(g_, self) != 2) fail(n, "only a batched [N, C] input can be chunked");
    const int64_t reduction = b.at(3).i;
    if (reduction == 0) fail(n, "reduction='none' is not supported (only mean and sum)");
    const ChunkInfo mi = info[static_cast<size_t>(self)], mt = info[static_cast<size_t>(target)],
                    mo = info[static_cast<size_t>(n)];
    const bool split = (mi.chunked() && mi.dim == 0) || (mt.chunked() && mt.dim == 0) || mo.needSum;
    if (!split) {
        if ((mi.present && !mi.nop()) || (mt.present && !mt.nop()))
            fail(n, "only a split of the rows (dim 0) of its input and target can pass through nll_loss_forward");
        return false;
    }
    bool changed = orAll(set(n, -1, true, n), set(self, 0, false, n), set(target, 0, false, n));
    if (b.at(2).isNode()) changed |= setNop(b.at(2).node, n);
    return changed;
}

bool Analysis::ruleNllBackward(NodeId n)
{
    // (grad_output, self, target, weight, reduction, ignore_index, total_weight)
    const auto b = bound(n);
    const NodeId go = b.at(0).node, self = b.at(1).node, target = b.at(2).node;
    const int64_t reduction = b.at(4).i;
    const ChunkInfo mo = info[static_cast<size_t>(n)], mi = info[static_cast<size_t>(self)],
                    mt = info[static_cast<size_t>(target)];
    const bool split = (mo.chunked() && mo.dim == 0) || (mi.chunked() && mi.dim == 0) || (mt.chunked() && mt.dim == 0);
    if (!split) {
        if ((mo.present && !mo.nop()) || (mi.present && !mi.nop()))
            fail(n, "only a split of the rows (dim 0) can pass through nll_loss_backward");
        return false;
    }
    if (rankOf(g_, self) != 2) fail(n, "only a batched [N, C] input can be chunked");
    bool changed = orAll(set(n, 0, false, n), set(self, 0, false, n), set(target, 0, false, n));
    changed |= reduction == 0 ? set(go, 0, false, n) : setNop(go, n);
    if (b.at(3).isNode()) changed |= setNop(b.at(3).node, n);
    if (b.at(6).isNode()) changed |= setNop(b.at(6).node, n);
    return changed;
}

bool Analysis::ruleGetitem(NodeId n)
{
    const Node& x = g_.node(n);
    const NodeId p = x.args.at(0).node;
    const int64_t idx = x.args.at(1).i;
    const Node& prod = g_.node(p);
    if (prod.isOp("aten.nll_loss_forward.default")) {
        if (idx == 1) return setNop(n, n);  // the total weight: replaced by the global one
        const ChunkInfo mp = info[static_cast<size_t>(p)], mo = info[static_cast<size_t>(n)];
        if (mp.present) return copyMeta(n, mp, n);
        if (mo.present) return copyMeta(p, mo, n);
        return false;
    }
    fail(n, "getitem of " + describe(p) + ": no chunking rule for the elements of this op's result");
}

bool Analysis::ruleExpand(NodeId n)
{
    const NodeId in = g_.node(n).args.at(0).node;
    const int R = rankOf(g_, n), r = rankOf(g_, in);
    const ChunkInfo mi = info[static_cast<size_t>(in)], mo = info[static_cast<size_t>(n)];
    if (numelOf(g_, in) == 1) {
        bool changed = setNop(in, n);
        if (mi.needSum) fail(n, "expands a partial sum");
        return changed;
    }
    if (mi.present && !mi.nop()) {
        if (mi.needSum) fail(n, "expands a partial sum");
        return set(n, mi.dim + (R - r), false, n);
    }
    if (mo.present && !mo.nop()) {
        if (mo.needSum) fail(n, "an expand cannot produce a partial sum");
        const int ad = mo.dim - (R - r);
        if (ad < 0 || sizeAt(g_, in, ad) == 1) return setNop(in, n);
        return set(in, ad, false, n);
    }
    return false;
}

bool Analysis::ruleGatherScatter(NodeId n)
{
    // gather(self, dim, index), scatter.value(self, dim, index, value), scatter.src(self, dim, index, src):
    // every tensor has the output's rank; the chunk dim must not be `dim`
    const auto b = bound(n);
    const int dim = normDim(b.at(1).i, rankOf(g_, n));
    const ChunkInfo* m = nullptr;
    const auto args = tensorArgs(n);
    std::vector<NodeId> all = args;
    all.push_back(n);
    for (NodeId a : all)
        if (info[static_cast<size_t>(a)].present && !info[static_cast<size_t>(a)].nop()) {
            m = &info[static_cast<size_t>(a)];
            break;
        }
    if (!m) return false;
    const ChunkInfo c = *m;
    if (c.needSum) fail(n, "gather / scatter of a partial sum");
    if (c.dim == dim) fail(n, "it indexes along the chunk dim " + std::to_string(dim));
    bool changed = false;
    for (NodeId a : all) changed |= copyMeta(a, c, n);
    return changed;
}

bool Analysis::ruleSqueezeUnsqueeze(NodeId n)
{
    const Node& x = g_.node(n);
    const NodeId in = x.args.at(0).node;
    const auto inSizes = staticSizes(g_, in, "squeeze rule"), outSizes = staticSizes(g_, n, "squeeze rule");
    // map dims by walking both shapes, skipping the 1-sized dims that differ
    const std::string base = opBase(x.target);
    std::vector<int> inToOut(inSizes.size(), -1);
    if (base == "unsqueeze") {
        const int d = normDim(x.args.at(1).i, static_cast<int>(outSizes.size()));
        for (int k = 0; k < static_cast<int>(inSizes.size()); ++k) inToOut[static_cast<size_t>(k)] = k < d ? k : k + 1;
    } else {
        std::vector<int> dims;
        if (x.args.size() > 1)
            for (int64_t d : intList(x.args[1])) dims.push_back(normDim(d, static_cast<int>(inSizes.size())));
        else
            for (int k = 0; k < static_cast<int>(inSizes.size()); ++k)
                if (inSizes[static_cast<size_t>(k)] == 1) dims.push_back(k);
        int j = 0;
        for (int k = 0; k < static_cast<int>(inSizes.size()); ++k) {
            const bool gone =
                inSizes[static_cast<size_t>(k)] == 1 && std::find(dims.begin(), dims.end(), k) != dims.end();
            inToOut[static_cast<size_t>(k)] = gone ? -1 : j++;
        }
    }
    const ChunkInfo mi = info[static_cast<size_t>(in)], mo = info[static_cast<size_t>(n)];
    if (mi.present && !mi.nop()) {
        if (mi.needSum) return set(n, -1, true, n);
        const int d = inToOut.at(static_cast<size_t>(mi.dim));
        if (d < 0) fail(n, "it squeezes the chunk dim");
        return set(n, d, false, n);
    }
    if (mo.present && !mo.nop()) {
        if (mo.needSum) return set(in, -1, true, n);
        for (size_t k = 0; k < inToOut.size(); ++k)
            if (inToOut[k] == mo.dim) return set(in, static_cast<int>(k), false, n);
        fail(n, "cannot map the chunk dim back through the squeeze");
    }
    if (mi.present && !mo.present) return setNop(n, n);
    if (mo.present && !mi.present) return setNop(in, n);
    return false;
}

bool Analysis::ruleLike(NodeId n)
{
    // full_like / zeros_like / ones_like / empty_like(x): the shape follows x; a partial sum of
    // ones is not ones
    const std::string base = opBase(g_.node(n).target);
    const NodeId in = g_.node(n).args.at(0).node;
    const ChunkInfo mi = info[static_cast<size_t>(in)], mo = info[static_cast<size_t>(n)];
    const ChunkInfo& m = (mi.present && !mi.nop()) ? mi : mo;
    if (!m.present || m.nop()) return false;
    if (m.needSum) {
        if (base != "zeros_like") fail(n, base + " of a partial sum is not the sum of the chunk values");
        return set(n, -1, true, n);
    }
    return orAll(set(n, m.dim, false, n), set(in, m.dim, false, n));
}

bool Analysis::ruleFactory(NodeId n)
{
    // full / zeros / ones / empty: nothing flows in; the meta it got from its users makes it
    // chunk-sized in the sub-graph. A partial sum of constants is not the constant.
    const ChunkInfo& m = info[static_cast<size_t>(n)];
    if (m.needSum && opBase(g_.node(n).target) != "zeros") fail(n, "a constant cannot be a partial sum of the chunks");
    return false;
}

bool Analysis::applyRule(NodeId n)
{
    const Node& x = g_.node(n);
    if (x.op != NodeOp::CallFunction) fail(n, "only call_function nodes have chunking rules");
    if (x.isGetitem()) return ruleGetitem(n);
    const std::string t = OpRegistry::normalizeTarget(x.target);
    const OpInfo* op = reg_.find(t);
    const std::string base = opBase(t);
    if (t == "aten.mm.default") return ruleMm(n);
    if (t == "aten.bmm.default") return ruleBmm(n);
    if (t == "aten.addmm.default") return ruleAddmm(n);
    if (t == "aten.t.default") {
        if (rankOf(g_, n) < 2) return rulePermuteLike(n, {0});
        return rulePermuteLike(n, {1, 0});
    }
    if (t == "aten.transpose.int") {
        const int r = rankOf(g_, n);
        std::vector<int64_t> perm(static_cast<size_t>(r));
        for (int k = 0; k < r; ++k) perm[static_cast<size_t>(k)] = k;
        const auto b = bound(n);
        std::swap(perm.at(static_cast<size_t>(normDim(b.at(1).i, r))),
                  perm.at(static_cast<size_t>(normDim(b.at(2).i, r))));
        return rulePermuteLike(n, perm);
    }
    if (t == "aten.permute.default") {
        const int r = rankOf(g_, n);
        std::vector<int64_t> perm;
        for (int64_t d : intList(bound(n).at(1))) perm.push_back(normDim(d, r));
        return rulePermuteLike(n, perm);
    }
    if (base == "view" || base == "_unsafe_view" || base == "_reshape_alias" || base == "reshape") return ruleView(n);
    if (t == "aten.sum.dim_IntList" || t == "aten.sum.default") return ruleReduce(n, true);
    if (t == "aten.amax.default") return ruleReduce(n, false);
    if (t == "aten._log_softmax.default" || t == "aten._softmax.default") return ruleSoftmax(n);
    if (t == "aten._log_softmax_backward_data.default" || t == "aten._softmax_backward_data.default")
        return ruleSoftmaxBackward(n);
    if (t == "aten.nll_loss_forward.default") return ruleNllForward(n);
    if (t == "aten.nll_loss_backward.default") return ruleNllBackward(n);
    if (t == "aten.expand.default") return ruleExpand(n);
    if (t == "aten.gather.default" || t == "aten.scatter.value" || t == "aten.scatter.src") return ruleGatherScatter(n);
    if (base == "squeeze" || base == "unsqueeze") return ruleSqueezeUnsqueeze(n);
    if (base == "full_like" || base == "zeros_like" || base == "ones_like" || base == "empty_like") return ruleLike(n);
    if (t == "aten.full.default" || t == "aten.zeros.default" || t == "aten.ones.default"
        || t == "aten.empty.memory_format")
        return ruleFactory(n);
    if (isIdentityOp(base)) return rulePointwise(n, false);
    if (op && op->has(kTraitPointwise) && !op->has(kTraitRandom) && !op->has(kTraitInplace)
        && g_.node(n).val.isTensor())
        return rulePointwise(n, false);
    fail(n, "no chunking rule for this op");
}

// ------------------------------------------------------------------ propagation

void Analysis::propagate(NodeId amplifier)
{
    // the reachability filters on the amplifier's element count
    const int64_t E = numelOf(g_, amplifier);
    const auto& order = g_.order();
    fwdOk_.assign(info.size(), 0);
    bwdOk_.assign(info.size(), 0);
    for (NodeId id : order) {
        const Node& x = g_.node(id);
        uint8_t ok = numelOf(g_, id) == E || isTangent(id);
        if (!isTangent(id)) {
            for (const Arg& a : x.args) a.forEachNode([&](NodeId p) { ok |= bwdOk_[static_cast<size_t>(p)]; });
            for (const auto& kv : x.kwargs)
                kv.second.forEachNode([&](NodeId p) { ok |= bwdOk_[static_cast<size_t>(p)]; });
        }
        bwdOk_[static_cast<size_t>(id)] = ok;
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const NodeId id = *it;
        uint8_t ok = numelOf(g_, id) == E;
        for (NodeId u : g_.node(id).users)
            if (!isTangent(u) && g_.node(u).op != NodeOp::Output) ok |= fwdOk_[static_cast<size_t>(u)];
        fwdOk_[static_cast<size_t>(id)] = ok;
    }

    std::deque<NodeId> work;
    std::vector<uint8_t> queued(info.size(), 0);
    auto push = [&](NodeId id) {
        if (queued[static_cast<size_t>(id)]) return;
        queued[static_cast<size_t>(id)] = 1;
        work.push_back(id);
    };
    set(amplifier, 0, false, amplifier);
    push(amplifier);
    size_t guard = 0;
    while (!work.empty()) {
        const NodeId n = work.front();
        work.pop_front();
        queued[static_cast<size_t>(n)] = 0;
        if (++guard > 64 * info.size() + 1024)
            throw PassError("auto_chunk: the chunk metadata does not settle (a rule keeps changing)");
        ++rulesRun;
        const bool first = !info[static_cast<size_t>(n)].visited;
        info[static_cast<size_t>(n)].visited = true;
        // a node whose meta came from a neighbour spreads it on its first visit even when its rule
        // has nothing to add
        const bool changed = applyRule(n);
        const ChunkInfo& mn = info[static_cast<size_t>(n)];
        if (!changed && !(first && mn.present && !mn.nop())) continue;
        const Node& x = g_.node(n);
        std::vector<NodeId> argNodes;
        for (const Arg& a : x.args)
            if (a.isNode()) argNodes.push_back(a.node);
        for (const auto& kv : x.kwargs)
            if (kv.second.isNode()) argNodes.push_back(kv.second.node);
        for (NodeId a : argNodes) {
            const Node& an = g_.node(a);
            if (isTangent(a)) {
                ChunkInfo& m = info[static_cast<size_t>(a)];
                m.present = true;
                m.scaleBy = a;
                continue;
            }
            if (an.op == NodeOp::Placeholder || an.op == NodeOp::GetAttr) continue;
            if (bwdOk_[static_cast<size_t>(a)]) push(a);
        }
        if (fwdOk_[static_cast<size_t>(n)])
            for (NodeId u : x.users)
                if (!isTangent(u) && g_.node(u).op != NodeOp::Output) push(u);
    }
}

void Analysis::propagateScale()
{
    for (NodeId n : g_.order()) {
        ChunkInfo& m = info[static_cast<size_t>(n)];
        if (!m.present || isTangent(n)) continue;
        const Node& x = g_.node(n);
        if (x.op != NodeOp::CallFunction) continue;
        const auto args = tensorArgs(n);
        bool anyMeta = args.empty();
        for (NodeId a : args) anyMeta |= info[static_cast<size_t>(a)].present;
        if (!anyMeta) continue;  // a region input: computed before the chunks, unscaled
        // which arguments carry a scale (tangent) / a divisor (nll mean), by position
        std::vector<NodeId> scaled, divided;
        std::vector<size_t> scaledPos, dividedPos;
        for (size_t k = 0; k < args.size(); ++k) {
            const ChunkInfo& ma = info[static_cast<size_t>(args[k])];
            if (ma.scaleBy != kNoNode) {
                scaled.push_back(ma.scaleBy);
                scaledPos.push_back(k);
            }
            if (ma.divideBy != kNoNode) {
                divided.push_back(ma.divideBy);
                dividedPos.push_back(k);
            }
        }
        if (scaled.empty() && divided.empty()) continue;
        const std::string t = OpRegistry::normalizeTarget(x.target);
        const std::string base = x.isGetitem() ? "getitem" : opBase(t);
        // Decides the factor of the output from the factors of the arguments; "" when linear.
        auto decide = [&](const std::vector<NodeId>& f, const std::vector<size_t>& pos, const char* what) -> NodeId {
            if (f.empty()) return kNoNode;
            static const std::set<std::string> kSingle = {"mul",
                                                          "mm",
                                                          "bmm",
                                                          "t",
                                                          "transpose",
                                                          "permute",
                                                          "view",
                                                          "_unsafe_view",
                                                          "_reshape_alias",
                                                          "reshape",
                                                          "expand",
                                                          "clone",
                                                          "detach",
                                                          "alias",
                                                          "_to_copy",
                                                          "convert_element_type",
                                                          "sum",
                                                          "neg",
                                                          "squeeze",
                                                          "unsqueeze",
                                                          "getitem",
                                                          "lift_fresh_copy"};
            // linear in their first argument (the incoming gradient)
            static const std::set<std::string> kFirstArg = {"div",
                                                            "nll_loss_backward",
                                                            "_log_softmax_backward_data",
                                                            "_softmax_backward_data",
                                                            "gather",
                                                            "gelu_backward",
                                                            "silu_backward",
                                                            "tanh_backward",
                                                            "sigmoid_backward",
                                                            "threshold_backward"};
            if (kSingle.count(base)) {
                if (f.size() > 1) fail(n, std::string("multiple ") + what + " factors meet here (" + base + ")");
                return f[0];
            }
            if (kFirstArg.count(base)) {
                if (f.size() > 1 || pos[0] != 0)
                    fail(n,
                         std::string("its result is not linear in the ") + what + " (it reaches argument "
                             + std::to_string(pos[0]) + ")");
                return f[0];
            }
            if (base == "add" || base == "sub") {
                if (f.size() != args.size() || std::any_of(f.begin(), f.end(), [&](NodeId s) { return s != f[0]; }))
                    fail(n, std::string("adds values with different ") + what + " factors");
                return f[0];
            }
            if (base == "where") {
                // where(c, t, f): t scaled and f a zero constant, or both scaled alike
                if (f.size() == 2 && f[0] == f[1] && pos[0] == 1) return f[0];
                if (f.size() == 1 && pos[0] == 1 && args.size() >= 3) {
                    const Node& other = g_.node(args[2]);
                    const std::string ob = opBase(other.target);
                    const bool zero = (ob == "zeros" || ob == "zeros_like" || ob == "new_zeros")
                        || ((ob == "full" || ob == "scalar_tensor") && other.args.size() >= 1
                            && ((other.args.back().kind == Arg::Kind::Float && other.args.back().f == 0.0)
                                || (other.args.back().kind == Arg::Kind::Int && other.args.back().i == 0)));
                    if (zero) return f[0];
                }
                fail(n, std::string("where() mixes a value with a ") + what + " factor and one without");
            }
            fail(n,
                 std::string("a value with a ") + what + " factor reaches " + base
                     + ", which is not known to be linear in it");
        };
        if (const NodeId s = decide(scaled, scaledPos, "tangent scale"); s != kNoNode) m.scaleBy = s;
        if (const NodeId d = decide(divided, dividedPos, "loss divisor"); d != kNoNode) m.divideBy = d;
    }
}

}  // namespace fxl::autochunk
