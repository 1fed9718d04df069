#include "core/formats/sidecar_scan.hpp"

#include <cstdint>
#include <limits>
#include <unordered_set>

namespace fxl {
namespace {

// Gives up by returning false at the first thing the full reader should judge. Each function
// reads one JSON value at p_ and leaves p_ just past it.
class Scanner
{
public:
    explicit Scanner(std::string_view text)
        : p_(text.data())
        , end_(text.data() + text.size())
    {
        names_.reserve(text.size() / 256);  // a node takes 250-300 bytes as the tracers write them
    }

    bool document(SidecarMeta& out)
    {
        ws();
        bool sawNodes = false;
        const bool ok = object(
            [&](std::string_view key) {
                if (key != "nodes") return skipValue(0);
                if (sawNodes) return false;
                sawNodes = true;
                return array([&] { return node(out); });
            },
            false);  // no "nodes"
        ws();
        return ok && sawNodes && p_ == end_;
    }

private:
    const char* p_;
    const char* end_;
    std::unordered_set<std::string_view> names_;

    void ws()
    {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }
    bool eat(char c)
    {
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }
    bool literal(std::string_view word)
    {
        if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
        p_ += word.size();
        return true;
    }
    bool at(char c) const { return p_ != end_ && *p_ == c; }

    // An object whose keys are plain strings: `member(key)` reads each value (p_ at it). An
    // empty object is refused when `allowEmpty` is false.
    template<typename F>
    bool object(F&& member, bool allowEmpty = true)
    {
        if (!eat('{')) return false;
        ws();
        if (eat('}')) return allowEmpty;
        for (;;) {
            std::string_view key;
            if (!plainString(key)) return false;
            ws();
            if (!eat(':')) return false;
            ws();
            if (!member(key)) return false;
            ws();
            if (eat('}')) return true;
            if (!eat(',')) return false;
            ws();
        }
    }
    // An array: `element()` reads each element (p_ at it).
    template<typename F>
    bool array(F&& element)
    {
        if (!eat('[')) return false;
        ws();
        if (eat(']')) return true;
        for (;;) {
            if (!element()) return false;
            ws();
            if (eat(']')) return true;
            if (!eat(',')) return false;
            ws();
        }
    }

    // A string of printable ASCII without escapes (what the fields kept are, in every file
    // fxlens and the tracers write).
    bool plainString(std::string_view& out)
    {
        if (!eat('"')) return false;
        const char* from = p_;
        while (p_ != end_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                out = std::string_view(from, static_cast<size_t>(p_ - from));
                ++p_;
                return true;
            }
            if (c < 0x20 || c >= 0x80 || c == '\\') return false;
            ++p_;
        }
        return false;
    }
    // null (`isNull` true), or a plainString.
    bool nullOrPlainString(std::string_view& out, bool& isNull)
    {
        isNull = at('n');
        return isNull ? literal("null") : plainString(out);
    }
    // A string skipped: simple escapes allowed; \u escapes and non-ASCII bytes (whose validity
    // the full reader checks) give up.
    bool skipString()
    {
        if (!eat('"')) return false;
        while (p_ != end_) {
            const auto c = static_cast<unsigned char>(*p_++);
            if (c == '"') return true;
            if (c < 0x20 || c >= 0x80) return false;
            if (c == '\\') {
                if (p_ == end_) return false;
                const char e = *p_++;
                if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't')
                    return false;
            }
        }
        return false;
    }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    // A number by JSON's grammar; `integral` says it had no fraction. An exponent, or more
    // than 19 digits before the point, gives up: the full reader refuses a number that
    // overflows a double, and tells that apart.
    bool number(bool& integral)
    {
        integral = true;
        eat('-');
        if (eat('0')) {
            if (p_ != end_ && digit(*p_)) return false;
        } else {
            const char* from = p_;
            if (p_ == end_ || !digit(*p_)) return false;
            while (p_ != end_ && digit(*p_)) ++p_;
            if (p_ - from > 19) return false;
        }
        if (eat('.')) {
            integral = false;
            if (p_ == end_ || !digit(*p_)) return false;
            while (p_ != end_ && digit(*p_)) ++p_;
        }
        return p_ == end_ || (*p_ != 'e' && *p_ != 'E');
    }
    // An integer as the full reader takes it (unsigned up to INT64_MAX, negative down to
    // INT64_MIN where allowed); anything else gives up.
    bool integer(int64_t& v, bool allowNegative)
    {
        const char* from = p_;
        bool integral = false;
        if (!number(integral) || !integral) return false;
        const bool negative = *from == '-';
        if (negative && !allowNegative) {
            // "-0" is the integer 0 for the full reader too
            if (p_ - from != 2 || from[1] != '0') return false;
        }
        uint64_t mag = 0;
        for (const char* q = from + (negative ? 1 : 0); q != p_; ++q) {
            const auto d = static_cast<uint64_t>(*q - '0');
            if (mag > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
            mag = mag * 10 + d;
        }
        constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        if (!negative) {
            if (mag > kMax) return false;
            v = static_cast<int64_t>(mag);
        } else {
            if (mag > kMax + 1) return false;
            v = mag == kMax + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(mag);
        }
        return true;
    }
    bool skipValue(int depth)
    {
        if (depth > 256 || p_ == end_) return false;
        switch (*p_) {
        case '"': return skipString();
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        case '{':
            // keys may hold escapes here: skipped like any string
            if (!eat('{')) return false;
            ws();
            if (eat('}')) return true;
            for (;;) {
                if (!skipString()) return false;
                ws();
                if (!eat(':')) return false;
                ws();
                if (!skipValue(depth + 1)) return false;
                ws();
                if (eat('}')) return true;
                if (!eat(',')) return false;
                ws();
            }
        case '[': return array([&] { return skipValue(depth + 1); });
        default: {
            bool integral = false;
            return number(integral);
        }
        }
    }
    bool ints(std::vector<SymInt>& out, bool allowNegative)
    {
        out.clear();
        return array([&] {
            int64_t v = 0;
            if (!integer(v, allowNegative)) return false;
            out.emplace_back(v);
            return true;
        });
    }
    // tensor_meta: null, {dtype, shape, stride}, or a list of these (tuple outputs).
    bool valueMeta(ValueMeta& out, int depth)
    {
        if (depth > 32) return false;
        out = ValueMeta{};
        if (at('n')) return literal("null");
        if (at('[')) {
            out.kind = ValueMeta::Kind::Tuple;
            return array([&] { return valueMeta(out.elems.emplace_back(), depth + 1); });
        }
        TensorMeta t;
        t.device = "cpu";  // as the full reader: the corpus tracer ran on CPU
        bool sawDtype = false, sawShape = false, sawStride = false, strideList = false;
        const bool ok = object(
            [&](std::string_view key) {
                if (key == "dtype") {
                    std::string_view name;
                    if (sawDtype || !plainString(name)) return false;
                    sawDtype = true;
                    if (name.starts_with("torch.")) name.remove_prefix(6);
                    const std::optional<DType> dtype = dtypeFromTorchName(name);
                    if (!dtype) return false;
                    t.dtype = *dtype;
                    return true;
                }
                if (key == "shape") {
                    if (sawShape || !ints(t.sizes, false)) return false;
                    sawShape = true;
                    return true;
                }
                if (key == "stride") {
                    if (sawStride) return false;
                    sawStride = true;
                    if (at('n')) return literal("null");
                    strideList = true;
                    return ints(t.strides, true);
                }
                return skipValue(depth + 1);
            },
            false);  // no dtype
        if (!ok || !sawDtype || !sawShape) return false;
        if (strideList && t.strides.size() != t.sizes.size()) return false;
        out.kind = ValueMeta::Kind::Tensor;
        out.tensor = std::move(t);
        return true;
    }
    bool node(SidecarMeta& out)
    {
        enum : unsigned
        {
            kName = 1,
            kOp = 2,
            kTarget = 4,
            kMeta = 8,
            kModule = 16,
            kPhase = 32
        };
        unsigned seen = 0;
        auto first = [&seen](unsigned bit) {
            if (seen & bit) return false;
            seen |= bit;
            return true;
        };
        SidecarNodeMeta m;
        std::string_view name, op;
        const bool ok = object(
            [&](std::string_view key) {
                if (key == "name") {
                    if (!first(kName) || !plainString(name)) return false;
                } else if (key == "op") {
                    if (!first(kOp) || !plainString(op)) return false;
                } else if (key == "target") {
                    if (!first(kTarget)) return false;
                    if (at('"')) {
                        std::string_view target;
                        if (!plainString(target)) return false;
                        m.target = target;
                    } else if (!skipValue(1)) {  // a target that is no string is not kept
                        return false;
                    }
                } else if (key == "tensor_meta") {
                    if (!first(kMeta)) return false;
                    if (at('n')) {  // null: no value, as an absent tensor_meta
                        if (!literal("null")) return false;
                    } else {
                        if (!valueMeta(m.val, 0)) return false;
                        m.hasVal = true;
                    }
                } else if (key == "module_path") {
                    if (!first(kModule)) return false;
                    std::string_view path;
                    bool isNull = false;
                    if (!nullOrPlainString(path, isNull)) return false;
                    if (!isNull) m.modulePath = std::string(path);
                } else if (key == "phase") {
                    if (!first(kPhase)) return false;
                    std::string_view phase;
                    bool isNull = false;
                    if (!nullOrPlainString(phase, isNull)) return false;
                    if (!isNull) {
                        m.phase = phase.empty() ? std::optional<Phase>(Phase::Unknown) : phaseFromName(phase);
                        if (!m.phase) return false;  // the full reader warns about it
                    }
                } else if (!skipValue(1)) {
                    return false;
                }
                return true;
            },
            false);  // no name
        if (!ok) return false;
        if (!(seen & kName) || !(seen & kOp)) return false;
        if (!names_.insert(name).second) {  // listed twice: the first counts
            out.duplicateNames.emplace_back(name);
            return true;
        }
        if (!nodeOpFromName(op)) return false;  // the full reader marks the node in error
        m.name = name;
        m.op = op;
        out.nodes.push_back(std::move(m));
        return true;
    }
};

}  // namespace

std::optional<SidecarMeta> scanSidecarMeta(std::string_view text, const std::string& path)
{
    SidecarMeta out;
    out.path = path;
    out.nodes.reserve(text.size() / 256);
    Scanner s(text);
    if (!s.document(out)) return std::nullopt;
    return out;
}

}  // namespace fxl
