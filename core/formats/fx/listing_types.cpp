#include "core/formats/fx/listing_types.hpp"

#include <charconv>
#include <limits>

#include "core/formats/fx/py_lexer.hpp"

namespace fxl {

namespace {

TypeCategory baseCategory(std::string_view t)
{
    if (t == "str") return TypeCategory::Str;
    if (t == "Device") return TypeCategory::Device;
    if (t == "ScalarType") return TypeCategory::DType;
    if (t == "Layout") return TypeCategory::Layout;
    if (t == "MemoryFormat") return TypeCategory::MemoryFormat;
    if (t == "OpOverload") return TypeCategory::OpOverload;
    if (t == "Any" || t.empty()) return TypeCategory::Unknown;
    static const char* const typed[] = {"int",     "SymInt",   "float",   "bool",      "Scalar",
                                        "Tensor",  "SymFloat", "SymBool", "Generator", "GraphModule",
                                        "Storage", "Stream",   "Dimname", "complex"};
    for (const char* k : typed)
        if (t == k) return TypeCategory::Typed;
    return TypeCategory::Unknown;
}

}  // namespace

SchemaType schemaType(std::string_view type)
{
    SchemaType result;
    result.text = std::string(type);
    std::string_view t = type;
    if (!t.empty() && t.back() == '?') {
        result.optional = true;
        t.remove_suffix(1);
    }
    if (!t.empty() && t.back() == ']') {
        size_t open = t.rfind('[');
        if (open != std::string_view::npos) {
            result.list = true;
            std::string_view element = t.substr(0, open);
            if (!element.empty() && element.back() == '?') {
                result.elementOptional = true;
                element.remove_suffix(1);
            }
            result.element = baseCategory(element);
            result.category = TypeCategory::Typed;
            return result;
        }
    }
    result.category = baseCategory(t);
    return result;
}

SchemaType elementType(const SchemaType& t)
{
    SchemaType e;
    e.category = t.element;
    e.optional = t.elementOptional;
    e.text = t.text;
    return e;
}

bool looksLikeDevice(std::string_view s)
{
    static const char* const types[] = {"cpu", "cuda", "meta", "mps",    "xpu",           "npu", "hpu",   "xla",
                                        "ipu", "mtia", "lazy", "vulkan", "privateuseone", "hip", "mkldnn"};
    size_t colon = s.find(':');
    std::string_view type = s.substr(0, colon);
    bool known = false;
    for (const char* t : types) known = known || type == t;
    if (!known) return false;
    if (colon == std::string_view::npos) return true;
    std::string_view index = s.substr(colon + 1);
    if (index.empty()) return false;
    for (char c : index)
        if (c < '0' || c > '9') return false;
    return true;
}

bool looksLikeOpOverload(std::string_view s)
{
    int dots = 0;
    for (char c : s) {
        if (c == '.')
            ++dots;
        else if (!isPythonIdentifierChar(c))
            return false;
    }
    return dots == 2 && s.front() != '.' && s.back() != '.' && s.find("..") == std::string_view::npos;
}

std::optional<int64_t> parseIntText(std::string_view s)
{
    if (!isIntSpelling(s)) return std::nullopt;
    const bool negative = s[0] == '-';
    std::string_view digits = negative ? s.substr(1) : s;
    uint64_t u = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), u, 10);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return std::nullopt;
    if (!negative && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(u);
    if (negative && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1)
        return static_cast<int64_t>(0 - u);
    return std::nullopt;
}

bool isIntSpelling(std::string_view s)
{
    const bool negative = !s.empty() && s[0] == '-';
    std::string_view digits = negative ? s.substr(1) : s;
    if (digits.empty()) return false;
    for (char c : digits)
        if (c < '0' || c > '9') return false;
    return true;
}

std::optional<double> parseFloatText(std::string_view s)
{
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s.empty()) return std::nullopt;
    bool sawDigit = false, sawDotOrExp = false;
    for (char c : s) {
        if (c >= '0' && c <= '9')
            sawDigit = true;
        else if (c == '.' || c == 'e' || c == 'E')
            sawDotOrExp = true;
        else if (c != '-' && c != '+')
            return std::nullopt;
    }
    if (!sawDigit || !sawDotOrExp) return std::nullopt;
    double d = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), d);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return d;
}

}  // namespace fxl
