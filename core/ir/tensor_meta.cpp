#include "core/ir/tensor_meta.hpp"

#include <charconv>
#include <unordered_map>

#include "core/ir/diagnostics.hpp"
#include "core/util/strings.hpp"

namespace fxl {

// ---------------------------------------------------------------------------------------
// TensorMeta / ValueMeta

// -1 when a size is symbolic without a hint: callers must not mistake "unknown" for 0.
int64_t TensorMeta::numelHint() const
{
    int64_t n = 1;
    for (const auto& s : sizes) {
        auto v = s.maybeValue();
        if (!v || *v < 0) return -1;
        if (__builtin_mul_overflow(n, *v, &n)) return -1;
    }
    return n;
}

int64_t TensorMeta::bytesHint() const
{
    int64_t n = numelHint();
    if (n < 0) return -1;
    int64_t bytes;
    if (__builtin_mul_overflow(n, int64_t(dtypeItemSize(dtype)), &bytes)) return -1;
    return bytes;
}

bool TensorMeta::operator==(const TensorMeta& o) const
{
    return dtype == o.dtype && sizes == o.sizes && strides == o.strides && storageOffset == o.storageOffset
        && device == o.device;
}

// torch._prims_common.make_contiguous_strides_for: multiplier *= max(size, 1); symbolic sizes
// are assumed >= 1 (backed sizes are >= 2), as PyTorch's guards simplify them.
std::vector<SymInt> contiguousStrides(const std::vector<SymInt>& sizes)
{
    std::vector<SymInt> strides(sizes.size());
    SymInt multiplier = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = multiplier;
        const SymInt& s = sizes[i];
        if (s.isConcrete())
            multiplier = multiplier * SymInt(std::max<int64_t>(*s.maybeValue(), 1));
        else
            multiplier = multiplier * s;
    }
    return strides;
}

ValueMeta ValueMeta::ofTensor(TensorMeta t)
{
    ValueMeta m;
    m.kind = Kind::Tensor;
    m.tensor = std::move(t);
    return m;
}

ValueMeta ValueMeta::ofTuple(std::vector<ValueMeta> e)
{
    ValueMeta m;
    m.kind = Kind::Tuple;
    m.elems = std::move(e);
    return m;
}

bool ValueMeta::operator==(const ValueMeta& o) const
{
    if (kind != o.kind) return false;
    switch (kind) {
    case Kind::Unknown:
    case Kind::None: return true;
    case Kind::Tensor:
        return tensor == o.tensor && wrapperPrefix == o.wrapperPrefix && wrapperSuffix == o.wrapperSuffix;
    case Kind::Tuple: return elems == o.elems;
    case Kind::SymInt:
    case Kind::SymFloat:
    case Kind::SymBool: return sym == o.sym;
    case Kind::Opaque: return opaqueText == o.opaqueText;
    }
    return false;
}

std::optional<int64_t> valueBytes(const ValueMeta& m)
{
    switch (m.kind) {
    case ValueMeta::Kind::Tensor: {
        const int64_t bytes = m.tensor.bytesHint();
        if (bytes < 0) return std::nullopt;
        return bytes;
    }
    case ValueMeta::Kind::Tuple: {
        int64_t sum = 0;
        for (const ValueMeta& e : m.elems) {
            const std::optional<int64_t> b = valueBytes(e);
            if (!b || __builtin_add_overflow(sum, *b, &sum)) return std::nullopt;
        }
        return sum;
    }
    case ValueMeta::Kind::None:
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymFloat:
    case ValueMeta::Kind::SymBool: return 0;
    case ValueMeta::Kind::Unknown:
    case ValueMeta::Kind::Opaque: return std::nullopt;
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Annotation parser

namespace {

[[noreturn]] void fail(size_t pos, const std::string& msg) { throw InputError("<annotation>", 1, int(pos) + 1, msg); }

// Checks ( ) [ ] nesting over the whole text; throws at the offending bracket.
void checkBrackets(std::string_view t, size_t base)
{
    std::vector<std::pair<char, size_t>> stack;
    for (size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        if (c == '(' || c == '[') {
            stack.emplace_back(c, i);
        } else if (c == ')' || c == ']') {
            char want = c == ')' ? '(' : '[';
            if (stack.empty() || stack.back().first != want) fail(base + i, std::string("unbalanced '") + c + "'");
            stack.pop_back();
        }
    }
    if (!stack.empty()) fail(base + stack.back().second, std::string("unclosed '") + stack.back().first + "'");
}

// Position of the bracket closing the one at `open` (text must be balanced from there).
size_t matchingClose(std::string_view t, size_t open)
{
    int depth = 0;
    for (size_t i = open; i < t.size(); ++i) {
        char c = t[i];
        if (c == '(' || c == '[')
            ++depth;
        else if ((c == ')' || c == ']') && --depth == 0)
            return i;
    }
    return std::string_view::npos;
}

// Re-throws an expression error with the column shifted to the annotation text.
[[noreturn]] void rethrowShifted(const InputError& e, size_t offset)
{
    Diagnostic d = e.diagnostic();
    d.file = "<annotation>";
    d.column += int(offset);
    throw InputError(std::move(d));
}

// Symbolic graphs repeat the same few size expressions on every node: a small per-thread
// cache makes them cheap and lets equal sizes share one immutable tree.
SymExpr parseExprAt(std::string_view text, size_t offset)
{
    thread_local std::unordered_map<std::string, SymExpr> cache;
    if (auto it = cache.find(std::string(text)); it != cache.end()) return it->second;
    try {
        SymExpr e = SymExpr::parse(text);
        if (cache.size() >= 4096) cache.clear();
        cache.emplace(std::string(text), e);
        return e;
    } catch (const InputError& e) {
        rethrowShifted(e, offset);
    }
}

// Parses "[a, b, ...]" starting at t[pos] == '['; returns the position after ']'.
// Plain integers take a fast path that allocates nothing beyond the vector.
size_t parseDims(std::string_view t, size_t pos, size_t base, std::vector<SymInt>& out)
{
    size_t open = pos++;
    // reserve exactly: count depth-0 commas up to the closing bracket
    size_t count = 1;
    int depth = 0;
    size_t i = pos;
    for (; i < t.size(); ++i) {
        char c = t[i];
        if (c == '(' || c == '[')
            ++depth;
        else if (c == ')') {
            if (--depth < 0) fail(base + i, "unbalanced ')'");
        } else if (c == ']') {
            if (depth == 0) break;
            --depth;
        } else if (c == ',' && depth == 0)
            ++count;
    }
    if (i >= t.size()) fail(base + open, "unclosed '['");
    if (i == pos) return pos + 1;  // "[]"
    out.reserve(count);
    for (;;) {
        while (pos < t.size() && t[pos] == ' ') ++pos;
        size_t start = pos;
        // fast path: optional '-', digits, then ',' or ']'
        size_t j = pos;
        if (j < t.size() && t[j] == '-') ++j;
        size_t digits = j;
        while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
        if (j > digits && j < t.size() && (t[j] == ',' || t[j] == ']')) {
            int64_t v = 0;
            auto res = std::from_chars(t.data() + start, t.data() + j, v);
            if (res.ec != std::errc()) fail(base + start, "size out of range");
            out.emplace_back(v);
            pos = j;
        } else {
            // symbolic element: runs to the next ',' or ']' at depth 0
            int d = 0;
            j = pos;
            for (; j < t.size(); ++j) {
                char c = t[j];
                if (c == '(' || c == '[')
                    ++d;
                else if (c == ')') {
                    if (--d < 0) fail(base + j, "unbalanced ')'");
                } else if (c == ']') {
                    if (d == 0) break;
                    --d;
                } else if (c == ',' && d == 0)
                    break;
            }
            if (j >= t.size()) fail(base + open, "unclosed '['");
            size_t end = j;
            while (end > start && t[end - 1] == ' ') --end;
            if (end == start) fail(base + start, "expected a size or stride");
            out.emplace_back(parseExprAt(t.substr(start, end - start), base + start));
            pos = j;
        }
        if (t[pos] == ']') return pos + 1;
        ++pos;  // ','
    }
}

bool isDevice(std::string_view d)
{
    size_t i = 0;
    if (d.empty() || !((d[0] >= 'a' && d[0] <= 'z') || (d[0] >= 'A' && d[0] <= 'Z') || d[0] == '_')) return false;
    while (i < d.size() && isIdentChar(d[i])) ++i;
    if (i == d.size()) return true;
    if (d[i] != ':' || i + 1 == d.size()) return false;
    for (++i; i < d.size(); ++i)
        if (d[i] < '0' || d[i] > '9') return false;
    return true;
}

ValueMeta::Kind symKind(const SymExpr& e)
{
    SymOp op = e.node() ? e.node()->op : SymOp::Const;
    if ((op >= SymOp::Eq && op <= SymOp::Ge) || op == SymOp::And || op == SymOp::Or || op == SymOp::Not)
        return ValueMeta::Kind::SymBool;
    if (op == SymOp::Symbol && (e.node()->name == "True" || e.node()->name == "False"))  // sympy's true / false
        return ValueMeta::Kind::SymBool;
    // float literals or true division make a SymFloat
    std::vector<const SymNode*> stack;
    if (e.node()) stack.push_back(e.node().get());
    while (!stack.empty()) {
        const SymNode* n = stack.back();
        stack.pop_back();
        if (n->op == SymOp::FloatConst || (n->op == SymOp::Call && n->name == "/")) return ValueMeta::Kind::SymFloat;
        for (const auto& o : n->operands)
            if (o) stack.push_back(o.get());
    }
    return ValueMeta::Kind::SymInt;
}

ValueMeta opaque(std::string_view t)
{
    ValueMeta m;
    m.kind = ValueMeta::Kind::Opaque;
    m.opaqueText = std::string(t);
    return m;
}

ValueMeta parseAt(std::string_view t, size_t base, int depth)
{
    if (t.empty()) fail(base, "expected a type annotation");
    if (depth > 64) fail(base, "annotation nested too deeply");
    size_t i = 0;
    while (i < t.size() && isIdentChar(t[i])) ++i;
    std::string_view ident = t.substr(0, i);

    if (i < t.size() && t[i] == '[') {
        if (ident.empty()) fail(base, "expected a dtype abbreviation before '['");
        auto dt = dtypeFromAbbr(ident);
        if (!dt) fail(base, "unknown dtype abbreviation '" + std::string(ident) + "'");
        ValueMeta m;
        m.kind = ValueMeta::Kind::Tensor;
        m.tensor.dtype = *dt;
        size_t pos = parseDims(t, i, base, m.tensor.sizes);
        if (pos < t.size() && t[pos] == '[') {
            size_t strideAt = pos;
            pos = parseDims(t, pos, base, m.tensor.strides);
            if (m.tensor.strides.size() != m.tensor.sizes.size())
                fail(base + strideAt,
                     "expected " + std::to_string(m.tensor.sizes.size()) + " strides, got "
                         + std::to_string(m.tensor.strides.size()));
        }
        if (pos < t.size()) {
            std::string_view dev = t.substr(pos);
            if (!isDevice(dev)) fail(base + pos, "expected a device such as 'cpu' or 'cuda:0' after the shape");
            m.tensor.device = std::string(dev);
        }
        return m;
    }

    if (i < t.size() && t[i] == '(' && !ident.empty()) {
        checkBrackets(t, base);
        size_t close = matchingClose(t, i);
        if (ident == "Sym") {
            if (close != t.size() - 1) fail(base + close + 1, "expected end of annotation after 'Sym(...)'");
            ValueMeta m;
            m.sym = parseExprAt(t.substr(i + 1, close - i - 1), base + i + 1);
            m.kind = symKind(m.sym);
            return m;
        }
        if (close != t.size() - 1) return opaque(t);
        // tensor subclass: ClassName(inner[, extra...]); inner is the first top-level argument
        size_t innerEnd = i + 1;
        int d = 0;
        for (; innerEnd < close; ++innerEnd) {
            char c = t[innerEnd];
            if (c == '(' || c == '[')
                ++d;
            else if (c == ')' || c == ']')
                --d;
            else if (c == ',' && d == 0)
                break;
        }
        std::string_view inner = t.substr(i + 1, innerEnd - i - 1);
        size_t k = 0;
        while (k < inner.size() && isIdentChar(inner[k])) ++k;
        if (k == 0 || k == inner.size() || (inner[k] != '[' && inner[k] != '(')) return opaque(t);
        ValueMeta m = parseAt(inner, base + i + 1, depth + 1);
        if (m.kind != ValueMeta::Kind::Tensor) return opaque(t);
        m.wrapperPrefix = std::string(t.substr(0, i + 1)) + m.wrapperPrefix;
        m.wrapperSuffix += std::string(t.substr(innerEnd));
        return m;
    }

    // Anything else that is well bracketed (old-style type names, unknown wrappers) is kept verbatim.
    checkBrackets(t, base);
    return opaque(t);
}

void appendInt(std::string& out, int64_t v)
{
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
}

void appendDims(std::string& out, const std::vector<SymInt>& dims)
{
    out += '[';
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) out += ", ";
        if (dims[i].isConcrete())
            appendInt(out, *dims[i].maybeValue());
        else
            out += dims[i].str();
    }
    out += ']';
}

}  // namespace

ValueMeta parseAnnotation(std::string_view text) { return parseAt(text, 0, 0); }

std::string formatAnnotation(const ValueMeta& m)
{
    switch (m.kind) {
    case ValueMeta::Kind::Tensor: {
        const TensorMeta& t = m.tensor;
        std::string out = m.wrapperPrefix;
        out.reserve(out.size() + 16 + 8 * (t.sizes.size() + t.strides.size()) + t.device.size()
                    + m.wrapperSuffix.size());
        out += dtypeAbbr(t.dtype);
        appendDims(out, t.sizes);
        // 0-d: "f32[]" without strides/device (2.4 style) but "f32[][]cuda:0" in tlparse form
        if (!t.strides.empty() || (t.sizes.empty() && !t.device.empty())) appendDims(out, t.strides);
        out += t.device;
        out += m.wrapperSuffix;
        return out;
    }
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymFloat:
    case ValueMeta::Kind::SymBool: return "Sym(" + m.sym.str() + ")";
    case ValueMeta::Kind::Opaque: return m.opaqueText;
    case ValueMeta::Kind::Unknown:
    case ValueMeta::Kind::None:
    case ValueMeta::Kind::Tuple: return {};  // FX prints no annotation for these
    }
    return {};
}

}  // namespace fxl
