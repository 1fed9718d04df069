#include "core/formats/json_graph_spelling.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace fxl {

namespace {

constexpr uint64_t kCanonicalNanBits = 0x7ff8000000000000ULL;

}  // namespace

std::string signatureName(SignatureStyle s)
{
    switch (s) {
    case SignatureStyle::Flat: return "flat";
    case SignatureStyle::Expanded: return "expanded";
    case SignatureStyle::Pytree: return "pytree";
    case SignatureStyle::Boxed: return "boxed";
    case SignatureStyle::Plain: return "plain";
    }
    return "flat";
}

std::optional<SignatureStyle> signatureFromName(std::string_view s)
{
    for (SignatureStyle st : {SignatureStyle::Flat, SignatureStyle::Expanded, SignatureStyle::Pytree,
                              SignatureStyle::Boxed, SignatureStyle::Plain})
        if (signatureName(st) == s) return st;
    return std::nullopt;
}

std::string valueKindName(ValueMeta::Kind k)
{
    switch (k) {
    case ValueMeta::Kind::Unknown: return "unknown";
    case ValueMeta::Kind::None: return "none";
    case ValueMeta::Kind::Tensor: return "tensor";
    case ValueMeta::Kind::Tuple: return "tuple";
    case ValueMeta::Kind::SymInt: return "sym_int";
    case ValueMeta::Kind::SymFloat: return "sym_float";
    case ValueMeta::Kind::SymBool: return "sym_bool";
    case ValueMeta::Kind::Opaque: return "opaque";
    }
    return "unknown";
}

std::optional<ValueMeta::Kind> valueKindFromName(std::string_view s)
{
    for (auto k :
         {ValueMeta::Kind::Unknown, ValueMeta::Kind::None, ValueMeta::Kind::Tensor, ValueMeta::Kind::Tuple,
          ValueMeta::Kind::SymInt, ValueMeta::Kind::SymFloat, ValueMeta::Kind::SymBool, ValueMeta::Kind::Opaque})
        if (valueKindName(k) == s) return k;
    return std::nullopt;
}

std::string floatText(double v)
{
    if (std::isnan(v)) {
        uint64_t bits = std::bit_cast<uint64_t>(v);
        if (bits == kCanonicalNanBits) return "nan";
        char buf[40];
        std::snprintf(buf, sizeof buf, "nan:0x%016llx", static_cast<unsigned long long>(bits));
        return buf;
    }
    return pythonFloatRepr(v);
}

std::optional<double> floatFromText(std::string_view s)
{
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::bit_cast<double>(kCanonicalNanBits);
    if (s.starts_with("nan:0x")) {
        std::string_view hex = s.substr(6);
        if (hex.size() != 16) return std::nullopt;
        uint64_t bits = 0;
        auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
        if (ec != std::errc() || p != hex.data() + hex.size()) return std::nullopt;
        double d = std::bit_cast<double>(bits);
        if (!std::isnan(d)) return std::nullopt;
        return d;
    }
    if (s.empty()) return std::nullopt;
    // decimal only: from_chars would also take "infinity" / "nan(...)" spellings
    for (char c : s)
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) return std::nullopt;
    if (s[0] == '+') return std::nullopt;
    double d = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d, std::chars_format::general);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return d;
}

std::string compactJson(const nlohmann::json& v)
{
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fxl
