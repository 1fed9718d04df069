// Meta (shape) functions: the shared helpers and the registration entry point. The op
// groups live in op_meta_*.cpp; the rules follow PyTorch's meta kernels (structured
// kernels, torch/_meta_registrations.py, torch/_refs, torch/_prims_common).
#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "core/ir/graph.hpp"
#include "core/ops/op_meta.hpp"
#include "core/ops/op_meta_factories.hpp"
#include "core/ops/op_meta_indexing.hpp"
#include "core/ops/op_meta_misc.hpp"
#include "core/ops/op_meta_nn.hpp"
#include "core/ops/op_meta_pointwise.hpp"
#include "core/ops/op_meta_reductions.hpp"
#include "core/ops/op_meta_torch.hpp"
#include "core/ops/op_meta_views.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {

const Arg& MetaCall::arg(std::string_view name) const
{
    if (op) {
        int i = op->schema.argIndex(name);
        if (i >= 0 && static_cast<size_t>(i) < bound.size()) return bound[static_cast<size_t>(i)];
    }
    throw std::out_of_range("no argument '" + std::string(name) + "'");
}

const ValueMeta& MetaCall::tensorArg(std::string_view name) const
{
    static const ValueMeta kUnknown;
    const Arg& a = arg(name);
    if (a.isNode() && metaOf) return metaOf(a.node);
    return kUnknown;
}

void registerMetaFunctions(std::unordered_map<std::string, MetaFn>& table)
{
    meta::registerPointwise(table);
    meta::registerViews(table);
    meta::registerReductions(table);
    meta::registerNn(table);
    meta::registerFactories(table);
    meta::registerIndexing(table);
    meta::registerMisc(table);
    meta::registerTorchFunctions(table);
}

namespace meta {
namespace {

inline bool concrete2(const SymInt& a, const SymInt& b, int64_t& x, int64_t& y)
{
    if (!a.isConcrete() || !b.isConcrete()) return false;
    x = *a.maybeValue();
    y = *b.maybeValue();
    return true;
}

inline std::optional<int64_t> hint2(const std::optional<int64_t>& a, const std::optional<int64_t>& b,
                                    int64_t (*f)(int64_t, int64_t))
{
    if (!a || !b) return std::nullopt;
    return f(*a, *b);
}

SymInt make(const SymExpr& e, std::optional<int64_t> hint)
{
    if (auto v = e.constantValue()) return SymInt(*v);
    return SymInt(e, hint);
}

int64_t pyFloorDiv(int64_t a, int64_t b)
{
    if (b == 0) throw MetaError("division by zero in a size expression");
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
int64_t pyCeilDiv(int64_t a, int64_t b) { return -pyFloorDiv(-a, b); }

// A product split into an integer coefficient and its other factors.
struct Factors
{
    int64_t coeff = 1;
    std::vector<SymNodePtr> rest;
};
Factors factorsOf(const SymExpr& e)
{
    Factors f;
    if (auto v = e.constantValue()) {
        f.coeff = *v;
        return f;
    }
    const SymNodePtr& n = e.node();
    if (n && n->op == SymOp::Mul) {
        for (const auto& o : n->operands) {
            if (o->op == SymOp::Const)
                f.coeff *= o->value;
            else
                f.rest.push_back(o);
        }
    } else {
        f.rest.push_back(n);
    }
    return f;
}

}  // namespace

SymInt normalize(SymInt s)
{
    if (s.isConcrete()) return s;
    if (auto v = s.expr().constantValue()) return SymInt(*v);
    return s;
}

SymInt add(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x + y;
    if (b.isConcrete() && *b.maybeValue() == 0) return a;
    if (a.isConcrete() && *a.maybeValue() == 0) return b;
    return make(a.expr() + b.expr(), hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return p + q; }));
}

SymInt sub(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x - y;
    if (b.isConcrete() && *b.maybeValue() == 0) return a;
    return make(a.expr() - b.expr(), hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return p - q; }));
}

SymInt mul(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x * y;
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    if (a.isConcrete() && *a.maybeValue() == 1) return b;
    return make(a.expr() * b.expr(), hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return p * q; }));
}

SymInt floorDiv(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return pyFloorDiv(x, y);
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    auto h = (a.maybeValue() && b.maybeValue() && *b.maybeValue() != 0)
        ? std::optional<int64_t>(pyFloorDiv(*a.maybeValue(), *b.maybeValue()))
        : std::nullopt;
    return make(SymExpr::floorDiv(a.expr(), b.expr()), h);
}

SymInt ceilDiv(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return pyCeilDiv(x, y);
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    auto h = (a.maybeValue() && b.maybeValue() && *b.maybeValue() != 0)
        ? std::optional<int64_t>(pyCeilDiv(*a.maybeValue(), *b.maybeValue()))
        : std::nullopt;
    return make(SymExpr::ceilDiv(a.expr(), b.expr()), h);
}

SymInt exactDiv(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) {
        if (y == 0) throw MetaError("division by zero in a size expression");
        return x / y;
    }
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    if (a == b) return 1;
    // Cancel b's factors out of a's product; fall back to floor division when they
    // do not cancel (the caller checked divisibility by hint).
    Factors fa = factorsOf(a.expr()), fb = factorsOf(b.expr());
    bool ok = fb.coeff != 0 && fa.coeff % fb.coeff == 0;
    for (const auto& f : fb.rest) {
        if (!ok) break;
        SymExpr fe = SymExpr::fromNode(f);
        auto it = std::find_if(fa.rest.begin(), fa.rest.end(),
                               [&](const SymNodePtr& g) { return SymExpr::fromNode(g) == fe; });
        if (it == fa.rest.end())
            ok = false;
        else
            fa.rest.erase(it);
    }
    std::optional<int64_t> h;
    if (a.maybeValue() && b.maybeValue() && *b.maybeValue() != 0) h = *a.maybeValue() / *b.maybeValue();
    if (!ok) return floorDiv(a, b);
    SymExpr e = SymExpr::constant(fa.coeff / fb.coeff);
    for (const auto& f : fa.rest) e = e * SymExpr::fromNode(f);
    return make(e, h);
}

SymInt minS(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return std::min(x, y);
    if (a == b) return a;
    return make(SymExpr::min(a.expr(), b.expr()),
                hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return std::min(p, q); }));
}

SymInt maxS(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return std::max(x, y);
    if (a == b) return a;
    return make(SymExpr::max(a.expr(), b.expr()),
                hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return std::max(p, q); }));
}

int64_t hintOf(const SymInt& s, const char* what)
{
    if (auto v = s.maybeValue()) return *v;
    // No hint (symbols read from annotations): order decisions as if every symbol were a
    // large size, so symbolic dims are never taken for 0 or 1 (size-oblivious).
    std::map<std::string, int64_t> values;
    for (const auto& n : s.expr().symbols()) values[n] = 97;
    if (auto v = s.expr().evaluate(values)) return *v;
    throw MetaError(std::string("symbolic ") + what + " " + s.str() + " has no hint");
}

bool hasUnbacked(const SymInt& s)
{
    if (s.isConcrete()) return false;
    for (const auto& n : s.expr().symbols())
        if (n.size() > 1 && n[0] == 'u' && std::isdigit(static_cast<unsigned char>(n[1]))) return true;
    return false;
}

bool guardEq(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x == y;
    if (a == b) return true;
    auto ha = a.maybeValue(), hb = b.maybeValue();
    return ha && hb && *ha == *hb;
}

bool guardEq(const SymInt& a, int64_t b)
{
    if (a.isConcrete()) return *a.maybeValue() == b;
    auto h = a.maybeValue();
    return h && *h == b;
}

bool isOne(const SymInt& s)
{
    if (s.isConcrete()) return *s.maybeValue() == 1;
    if (hasUnbacked(s)) return false;
    auto h = s.maybeValue();
    return h && *h == 1;
}

bool hintLt(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x < y;
    return hintOf(a) < hintOf(b);
}

SymInt product(const Sizes& s, size_t from, size_t to)
{
    SymInt p = 1;
    to = std::min(to, s.size());
    for (size_t i = from; i < to; ++i) p = mul(p, s[i]);
    return p;
}

// ---------------------------------------------------------------- layout

Sizes contiguous(const Sizes& sizes)
{
    Sizes st(sizes.size());
    SymInt acc = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        st[i] = acc;
        const SymInt& s = sizes[i];
        // make_contiguous_strides_for multiplies by max(size, 1); symbolic sizes are
        // assumed >= 1 (size-oblivious) as PyTorch prints them.
        if (s.isConcrete())
            acc = mul(acc, std::max<int64_t>(*s.maybeValue(), 1));
        else
            acc = mul(acc, s);
    }
    return st;
}

namespace {
bool hintIsZero(const SymInt& s)
{
    if (s.isConcrete()) return *s.maybeValue() == 0;
    if (hasUnbacked(s)) return false;
    auto h = s.maybeValue();
    return h && *h == 0;
}
bool anyZero(const Sizes& s)
{
    for (const auto& x : s)
        if (hintIsZero(x)) return true;
    return false;
}
bool denseInOrder(const TensorMeta& t, std::initializer_list<int> order)
{
    SymInt expected = 1;
    for (int d : order) {
        const SymInt& sz = t.sizes[static_cast<size_t>(d)];
        if (!isOne(sz)) {
            if (!guardEq(t.strides[static_cast<size_t>(d)], expected)) return false;
            expected = mul(expected, sz);
        }
    }
    return true;
}
}  // namespace

bool isContiguous(const TensorMeta& t)
{
    if (t.strides.size() != t.sizes.size()) return false;
    if (anyZero(t.sizes)) return true;
    SymInt expected = 1;
    for (size_t i = t.sizes.size(); i-- > 0;) {
        if (isOne(t.sizes[i])) continue;
        if (!guardEq(t.strides[i], expected)) return false;
        expected = mul(expected, t.sizes[i]);
    }
    return true;
}

bool isChannelsLastContiguous(const TensorMeta& t)
{
    if (t.strides.size() != t.sizes.size()) return false;
    if (t.sizes.size() == 4) return denseInOrder(t, {1, 3, 2, 0});
    if (t.sizes.size() == 5) return denseInOrder(t, {1, 4, 3, 2, 0});
    return false;
}

bool isNonOverlappingAndDense(const TensorMeta& t)
{
    size_t n = t.sizes.size();
    if (t.strides.size() != n) return false;
    if (n == 1) return hintOf(t.sizes[0]) < 2 || guardEq(t.strides[0], 1);
    std::vector<size_t> dims;
    dims.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (hintOf(t.sizes[i]) >= 2) dims.push_back(i);
    std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) {
        return hintOf(t.strides[a], "stride") < hintOf(t.strides[b], "stride");
    });
    SymInt require = 1;
    for (size_t d : dims) {
        if (!guardEq(t.strides[d], require)) return false;
        require = mul(require, t.sizes[d]);
    }
    return true;
}

bool isChannelsLastStrides(const TensorMeta& t)
{
    size_t n = t.sizes.size();
    if (t.strides.size() != n || (n != 4 && n != 5)) return false;
    std::vector<int> order = n == 4 ? std::vector<int>{1, 3, 2, 0} : std::vector<int>{1, 4, 3, 2, 0};
    int64_t minv = 0;
    if (hintOf(t.strides[1], "stride") == 0) return false;
    for (int d : order) {
        int64_t sz = hintOf(t.sizes[static_cast<size_t>(d)]);
        int64_t st = hintOf(t.strides[static_cast<size_t>(d)], "stride");
        if (sz == 0) return false;
        if (st < minv) return false;
        if (d == 0 && minv == hintOf(t.strides[1], "stride")) return false;
        minv = st;
        if (sz > 1) minv *= sz;
    }
    return true;
}

Sizes channelsLastStrides(const Sizes& sizes)
{
    size_t n = sizes.size();
    Sizes st(n);
    std::vector<int> order = n == 4 ? std::vector<int>{1, 3, 2, 0} : std::vector<int>{1, 4, 3, 2, 0};
    SymInt acc = 1;
    for (int d : order) {
        st[static_cast<size_t>(d)] = acc;
        const SymInt& s = sizes[static_cast<size_t>(d)];
        acc = mul(acc, s.isConcrete() ? SymInt(std::max<int64_t>(*s.maybeValue(), 1)) : s);
    }
    return st;
}

namespace {
// TensorIterator's dimension order (reorder_dimensions): perm[0] is the fastest dim.
// `strideSets` hold each operand's strides already broadcast (0 for broadcast dims).
std::vector<size_t> iteratorPerm(const Sizes& shape, const std::vector<std::vector<int64_t>>& strideSets,
                                 bool zeroIsAmbiguousOnly)
{
    size_t n = shape.size();
    std::vector<size_t> perm(n);
    for (size_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
    if (n <= 1) {
        if (n == 1) perm[0] = 0;
        return perm;
    }
    std::vector<int64_t> sh(n);
    for (size_t i = 0; i < n; ++i) sh[i] = hintOf(shape[i]);
    auto shouldSwap = [&](size_t d0, size_t d1) -> int {
        for (const auto& st : strideSets) {
            int64_t s0 = st[d0], s1 = st[d1];
            if (s0 == 0 || s1 == 0) {
                if (zeroIsAmbiguousOnly) return 0;
                continue;
            }
            if (s0 < s1) return -1;
            if (s0 > s1) return 1;
            if (sh[d0] > sh[d1]) return 1;
        }
        return 0;
    };
    for (size_t i = 1; i < n; ++i) {
        size_t dim1 = i;
        for (size_t dim0 = i; dim0-- > 0;) {
            int cmp = shouldSwap(perm[dim0], perm[dim1]);
            if (cmp > 0) {
                std::swap(perm[dim0], perm[dim1]);
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    return perm;
}

std::vector<int64_t> broadcastStrides(const Sizes& shape, const TensorMeta& t)
{
    size_t n = shape.size(), m = t.sizes.size();
    std::vector<int64_t> st(n, 0);
    for (size_t i = 0; i < m && i < n; ++i) {
        size_t od = n - 1 - i, id = m - 1 - i;
        if (isOne(t.sizes[id]) && !isOne(shape[od])) continue;  // broadcast
        st[od] = t.strides.size() == m ? hintOf(t.strides[id], "stride") : 0;
    }
    return st;
}

// Dense strides laid out in `perm` order (fastest first).
Sizes stridesFromPerm(const Sizes& shape, const std::vector<size_t>& perm, bool skipSizeLeqOne)
{
    Sizes st(shape.size());
    SymInt acc = 1;
    for (size_t d : perm) {
        st[d] = acc;
        const SymInt& s = shape[d];
        if (skipSizeLeqOne) {
            if (!s.isConcrete() || *s.maybeValue() > 1) acc = mul(acc, s);
        } else {
            acc = mul(acc, s);
        }
    }
    return st;
}
}  // namespace

Sizes stridesFor(const Sizes& sizes, std::string_view memoryFormat)
{
    if ((memoryFormat == "channels_last" && sizes.size() == 4)
        || (memoryFormat == "channels_last_3d" && sizes.size() == 5))
        return channelsLastStrides(sizes);
    return contiguous(sizes);
}

Sizes stridesLike(const TensorMeta& t, std::string_view memoryFormat)
{
    if (!memoryFormat.empty() && memoryFormat != "preserve_format") return stridesFor(t.sizes, memoryFormat);
    if (t.strides.size() != t.sizes.size()) return contiguous(t.sizes);
    if (isNonOverlappingAndDense(t)) return t.strides;
    // infer_dense_strides: keep the input's layout permutation
    std::vector<std::vector<int64_t>> ss(1);
    for (const auto& s : t.strides) ss[0].push_back(hintOf(s, "stride"));
    auto perm = iteratorPerm(t.sizes, ss, true);
    return stridesFromPerm(t.sizes, perm, true);
}

int64_t wrapDim(int64_t dim, int64_t ndim, bool allowScalar)
{
    int64_t n = ndim;
    if (n <= 0) {
        if (!allowScalar)
            throw MetaError("dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
        n = 1;
    }
    if (dim < -n || dim >= n)
        throw MetaError("dimension out of range (expected to be in range of [" + std::to_string(-n) + ", "
                        + std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
    return dim < 0 ? dim + n : dim;
}

// ---------------------------------------------------------------- arguments

const TensorMeta& tensorOfArg(const MetaCall& c, const Arg& a, std::string_view what)
{
    if (!a.isNode()) throw MetaError("argument '" + std::string(what) + "' is not a tensor");
    const ValueMeta& v = c.metaOf(a.node);
    if (!v.isTensor()) throw MetaError("argument '" + std::string(what) + "' has no tensor meta");
    return v.tensor;
}

const TensorMeta& tensorOf(const MetaCall& c, std::string_view name) { return tensorOfArg(c, c.arg(name), name); }

const TensorMeta* optTensorOf(const MetaCall& c, std::string_view name)
{
    const Arg& a = c.arg(name);
    if (a.isNone()) return nullptr;
    return &tensorOfArg(c, a, name);
}

std::vector<const TensorMeta*> tensorListOf(const MetaCall& c, std::string_view name, bool allowNone)
{
    const Arg& a = c.arg(name);
    std::vector<const TensorMeta*> out;
    if (a.isNode()) {  // a single tensor where a list is expected
        out.push_back(&tensorOfArg(c, a, name));
        return out;
    }
    if (!a.isSequence()) throw MetaError("argument '" + std::string(name) + "' is not a list of tensors");
    out.reserve(a.items.size());
    for (const auto& it : a.items) {
        if (it.isNone() && allowNone)
            out.push_back(nullptr);
        else
            out.push_back(&tensorOfArg(c, it, name));
    }
    return out;
}

std::optional<int64_t> toOptInt(const MetaCall& c, const Arg& a, std::string_view what)
{
    if (a.isNone()) return std::nullopt;
    return toInt(c, a, what);
}

int64_t toInt(const MetaCall& c, const Arg& a, std::string_view what)
{
    switch (a.kind) {
    case Arg::Kind::Int: return a.i;
    case Arg::Kind::Bool: return a.b ? 1 : 0;
    case Arg::Kind::Float:
        if (a.f == static_cast<double>(static_cast<int64_t>(a.f))) return static_cast<int64_t>(a.f);
        break;
    case Arg::Kind::Node: {
        SymInt s = toSymInt(c, a, what);
        return hintOf(s, "int argument");
    }
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is not an int");
}

SymInt toSymInt(const MetaCall& c, const Arg& a, std::string_view what)
{
    switch (a.kind) {
    case Arg::Kind::Int: return a.i;
    case Arg::Kind::Bool: return a.b ? 1 : 0;
    case Arg::Kind::Node: {
        const ValueMeta& v = c.metaOf(a.node);
        if (v.kind == ValueMeta::Kind::SymInt) return normalize(SymInt(v.sym, v.symHint));
        // a 0-dim integer tensor used as a size (rare): unknown value
        throw MetaError("argument '" + std::string(what) + "' is not a symbolic int");
    }
    case Arg::Kind::Raw:
    case Arg::Kind::Str: try { return normalize(parseSymInt(a.s));
        } catch (const std::exception&) {
            break;
        }
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is not an int");
}

Sizes toSymInts(const MetaCall& c, const Arg& a, std::string_view what)
{
    Sizes out;
    if (a.isSequence()) {
        out.reserve(a.items.size());
        for (const auto& it : a.items) out.push_back(toSymInt(c, it, what));
        return out;
    }
    if (a.isNone()) return out;
    out.push_back(toSymInt(c, a, what));  // int[1] given as a single int
    return out;
}

std::vector<int64_t> toInts(const MetaCall& c, const Arg& a, std::string_view what)
{
    std::vector<int64_t> out;
    if (a.isSequence()) {
        out.reserve(a.items.size());
        for (const auto& it : a.items) out.push_back(toInt(c, it, what));
        return out;
    }
    if (a.isNone()) return out;
    out.push_back(toInt(c, a, what));
    return out;
}

double toDouble(const Arg& a, std::string_view what)
{
    switch (a.kind) {
    case Arg::Kind::Int: return static_cast<double>(a.i);
    case Arg::Kind::Float: return a.f;
    case Arg::Kind::Bool: return a.b ? 1.0 : 0.0;
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is not a number");
}

bool toBool(const Arg& a, std::string_view what)
{
    if (a.kind == Arg::Kind::Bool) return a.b;
    if (a.kind == Arg::Kind::Int) return a.i != 0;
    throw MetaError("argument '" + std::string(what) + "' is not a bool");
}

std::optional<DType> toOptDType(const Arg& a)
{
    if (a.kind == Arg::Kind::DType) return a.dtype;
    if (a.kind == Arg::Kind::Str || a.kind == Arg::Kind::Raw) {
        std::string_view s = a.s;
        if (s.rfind("torch.", 0) == 0) s.remove_prefix(6);
        if (auto t = dtypeFromTorchName(s)) return t;
    }
    return std::nullopt;
}

std::string deviceOf(const Arg& a, const std::string& fallback)
{
    if (a.kind == Arg::Kind::Device || a.kind == Arg::Kind::Str) return a.s;
    return fallback;
}

std::string memoryFormatOf(const Arg& a)
{
    if (a.kind == Arg::Kind::MemoryFormat || a.kind == Arg::Kind::Str) {
        std::string s = a.s;
        if (s.rfind("torch.", 0) == 0) s.erase(0, 6);
        return s;
    }
    return {};
}

bool hasArg(const MetaCall& c, std::string_view name)
{
    if (!c.op) return false;
    int i = c.op->schema.argIndex(name);
    return i >= 0 && static_cast<size_t>(i) < c.bound.size() && !c.bound[static_cast<size_t>(i)].isNone();
}

int64_t intArg(const MetaCall& c, std::string_view name) { return toInt(c, c.arg(name), name); }
SymInt symArg(const MetaCall& c, std::string_view name) { return toSymInt(c, c.arg(name), name); }
Sizes symListArg(const MetaCall& c, std::string_view name) { return toSymInts(c, c.arg(name), name); }
std::vector<int64_t> intListArg(const MetaCall& c, std::string_view name) { return toInts(c, c.arg(name), name); }

// ---------------------------------------------------------------- promotion

Operand operandOf(const MetaCall& c, const Arg& a, std::string_view what)
{
    Operand o;
    switch (a.kind) {
    case Arg::Kind::Node: {
        const ValueMeta& v = c.metaOf(a.node);
        if (v.isTensor())
            o.tensor = &v.tensor;
        else if (v.kind == ValueMeta::Kind::SymInt)
            o.scalarType = DType::I64;
        else if (v.kind == ValueMeta::Kind::SymFloat)
            o.scalarType = DType::F64;
        else if (v.kind == ValueMeta::Kind::SymBool)
            o.scalarType = DType::Bool;
        else
            throw MetaError("argument '" + std::string(what) + "' has no meta");
        return o;
    }
    case Arg::Kind::Int: o.scalarType = DType::I64; return o;
    case Arg::Kind::Float: o.scalarType = DType::F64; return o;
    case Arg::Kind::Bool: o.scalarType = DType::Bool; return o;
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is neither a tensor nor a number");
}

DType defaultFloat() { return DType::F32; }

namespace {
DType toComplex(DType t)
{
    switch (t) {
    case DType::F16: return DType::C32;
    case DType::F64: return DType::C128;
    default: return DType::C64;
    }
}
DType combineCategories(DType higher, DType lower)
{
    if (isComplex(higher)) return higher;
    if (isComplex(lower)) {
        if (isFloatingPoint(higher)) return toComplex(higher);
        return lower;
    }
    if (isFloatingPoint(higher)) return higher;
    if (higher == DType::Bool || isFloatingPoint(lower)) return promoteTypes(higher, lower);
    if (higher != DType::Undefined) return higher;
    return lower;
}
}  // namespace

DType resultType(const std::vector<Operand>& ops)
{
    DType dimR = DType::Undefined, zeroR = DType::Undefined, wrappedR = DType::Undefined;
    for (const auto& o : ops) {
        if (o.tensor) {
            if (!o.tensor->sizes.empty())
                dimR = promoteTypes(dimR, o.tensor->dtype);
            else
                zeroR = promoteTypes(zeroR, o.tensor->dtype);
        } else {
            DType cur = o.scalarType;
            if (isComplex(cur))
                cur = DType::C64;
            else if (isFloatingPoint(cur))
                cur = defaultFloat();
            wrappedR = promoteTypes(wrappedR, cur);
        }
    }
    return combineCategories(dimR, combineCategories(zeroR, wrappedR));
}

DType applyPromotion(DType t, Promotion p)
{
    switch (p) {
    case Promotion::Default:
    case Promotion::NoOpMath: return t;
    case Promotion::IntToFloat: return isIntegral(t, true) ? defaultFloat() : t;
    case Promotion::AlwaysBool: return DType::Bool;
    case Promotion::ComplexToFloat:
        if (t == DType::C32) return DType::F16;
        if (t == DType::C64) return DType::F32;
        if (t == DType::C128) return DType::F64;
        return t;
    case Promotion::BoolToLong: return isIntegral(t, true) ? DType::I64 : t;
    }
    return t;
}

// ---------------------------------------------------------------- broadcasting / strides

Sizes broadcastShapes(const std::vector<const Sizes*>& shapes)
{
    size_t n = 0;
    for (const auto* s : shapes) n = std::max(n, s->size());
    Sizes out(n, SymInt(1));
    for (const auto* s : shapes) {
        size_t m = s->size();
        for (size_t i = 0; i < m; ++i) {
            SymInt& o = out[n - m + i];
            const SymInt& v = (*s)[i];
            if (isOne(v)) continue;
            if (isOne(o)) {
                o = v;
                continue;
            }
            // without hints two symbols cannot be told apart: the traced program was valid
            auto ho = o.maybeValue(), hv = v.maybeValue();
            if (!guardEq(o, v) && ho && hv)
                throw MetaError("shapes cannot be broadcast: size " + o.str() + " vs " + v.str() + " at dim "
                                + std::to_string(n - m + i));
            // keep the concrete / structurally simpler one (the tracer asserts equality)
            if (!o.isConcrete() && v.isConcrete()) o = v;
        }
    }
    return out;
}

Sizes iteratorStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputs, bool scalarOperand)
{
    size_t n = shape.size();
    if (n == 0) return {};
    // fast setup: all operands of the same shape and all contiguous / channels-last /
    // non-overlapping-and-dense with equal strides
    bool sameShape = !inputs.empty() && !scalarOperand;
    for (const auto* t : inputs) {
        if (t->sizes.size() != n || t->strides.size() != n) {
            sameShape = false;
            break;
        }
        for (size_t i = 0; i < n && sameShape; ++i)
            if (!guardEq(t->sizes[i], shape[i])) sameShape = false;
    }
    if (sameShape) {
        bool contig = true, cl = true, dense = true;
        for (const auto* t : inputs) {
            contig = contig && isContiguous(*t);
            cl = cl && isChannelsLastContiguous(*t);
            dense = dense && isNonOverlappingAndDense(*t);
        }
        if (contig) return contiguous(shape);
        if (cl) return channelsLastStrides(shape);
        if (dense) {
            bool same = true;
            for (const auto* t : inputs)
                for (size_t i = 0; i < n && same; ++i)
                    if (!guardEq(t->strides[i], inputs.back()->strides[i])) same = false;
            if (same) return inputs.back()->strides;
        }
    }
    std::vector<std::vector<int64_t>> ss;
    ss.reserve(inputs.size());
    for (const auto* t : inputs) ss.push_back(broadcastStrides(shape, *t));
    auto perm = iteratorPerm(shape, ss, false);
    bool inverted = true;
    for (size_t j = 0; j < n; ++j)
        if (perm[j] != n - 1 - j) {
            inverted = false;
            break;
        }
    if (inverted) return contiguous(shape);
    return stridesFromPerm(shape, perm, false);
}

Sizes primsElementwiseStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputsIn)
{
    size_t n = shape.size();
    if (n == 0) return {};
    if (n == 1) return {SymInt(1)};
    std::vector<const TensorMeta*> inputs;
    for (const auto* t : inputsIn)
        if (!(t->sizes.empty() && t->device == "cpu")) inputs.push_back(t);
    if (inputs.empty()) return contiguous(shape);
    bool contig = true, cl = true;
    for (const auto* t : inputs) {
        contig = contig && isContiguous(*t);
        cl = cl && isChannelsLastContiguous(*t);
    }
    if (contig && !cl) return contiguous(shape);
    if (cl && !contig) return channelsLastStrides(shape);
    std::vector<std::vector<int64_t>> ss;
    for (const auto* t : inputs) ss.push_back(broadcastStrides(shape, *t));
    auto perm = iteratorPerm(shape, ss, false);
    // make_contiguous_strides_for over the permuted shape (max(size, 1))
    Sizes st(n);
    SymInt acc = 1;
    for (size_t d : perm) {
        st[d] = acc;
        const SymInt& s = shape[d];
        acc = mul(acc, s.isConcrete() ? SymInt(std::max<int64_t>(*s.maybeValue(), 1)) : s);
    }
    return st;
}

std::string deviceOfInputs(const std::vector<const TensorMeta*>& inputs)
{
    // a 0-dim cpu tensor may mix with tensors on another device
    std::string dev;
    for (const auto* t : inputs) {
        if (!t) continue;
        if (dev.empty() || (dev == "cpu" && t->device != "cpu" && !t->device.empty())) dev = t->device;
    }
    return dev;
}

TensorMeta makeTensor(DType dt, Sizes sizes, Sizes strides, std::string device)
{
    TensorMeta t;
    t.dtype = dt;
    t.sizes = std::move(sizes);
    t.strides = std::move(strides);
    t.device = std::move(device);
    return t;
}

TensorMeta makeContiguous(DType dt, Sizes sizes, std::string device)
{
    Sizes st = contiguous(sizes);
    return makeTensor(dt, std::move(sizes), std::move(st), std::move(device));
}

}  // namespace meta
}  // namespace fxl
