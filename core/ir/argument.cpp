#include "core/ir/argument.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace fxl {

Arg Arg::ofNode(NodeId n)
{
    Arg a;
    a.kind = Kind::Node;
    a.node = n;
    return a;
}
Arg Arg::ofInt(int64_t v)
{
    Arg a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
}
Arg Arg::ofFloat(double v)
{
    Arg a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
}
Arg Arg::ofBool(bool v)
{
    Arg a;
    a.kind = Kind::Bool;
    a.b = v;
    return a;
}
Arg Arg::ofStr(std::string v)
{
    Arg a;
    a.kind = Kind::Str;
    a.s = std::move(v);
    return a;
}
Arg Arg::ofList(std::vector<Arg> v)
{
    Arg a;
    a.kind = Kind::List;
    a.items = std::move(v);
    return a;
}
Arg Arg::ofTuple(std::vector<Arg> v)
{
    Arg a;
    a.kind = Kind::Tuple;
    a.items = std::move(v);
    return a;
}
Arg Arg::ofDType(DType t)
{
    Arg a;
    a.kind = Kind::DType;
    a.dtype = t;
    return a;
}
Arg Arg::ofDevice(std::string d)
{
    Arg a;
    a.kind = Kind::Device;
    a.s = std::move(d);
    return a;
}
Arg Arg::ofLayout(std::string l)
{
    Arg a;
    a.kind = Kind::Layout;
    a.s = std::move(l);
    return a;
}
Arg Arg::ofMemoryFormat(std::string m)
{
    Arg a;
    a.kind = Kind::MemoryFormat;
    a.s = std::move(m);
    return a;
}
Arg Arg::ofOp(std::string t)
{
    Arg a;
    a.kind = Kind::Op;
    a.s = std::move(t);
    return a;
}
Arg Arg::ofRaw(std::string t)
{
    Arg a;
    a.kind = Kind::Raw;
    a.s = std::move(t);
    return a;
}

bool Arg::operator==(const Arg& o) const
{
    if (kind != o.kind) return false;
    switch (kind) {
    case Kind::None:
    case Kind::Ellipsis: return true;
    case Kind::Node: return node == o.node;
    case Kind::Int: return i == o.i;
    case Kind::Float: return std::memcmp(&f, &o.f, sizeof f) == 0;
    case Kind::Bool: return b == o.b;
    case Kind::DType: return dtype == o.dtype;
    case Kind::Str:
    case Kind::Device:
    case Kind::Layout:
    case Kind::MemoryFormat:
    case Kind::Op:
    case Kind::Raw: return s == o.s;
    case Kind::List:
    case Kind::Tuple:
    case Kind::Slice: return items == o.items;
    case Kind::Dict: return dict == o.dict;
    }
    return false;
}

std::string pythonFloatRepr(double v)
{
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (v == 0.0) return std::signbit(v) ? "-0.0" : "0.0";
    // Python's repr: the shortest digits that round-trip, shown in fixed notation when the
    // decimal exponent is in [-4, 16), otherwise as d.ddde+XX.
    // to_chars gives the shortest round-trip digits and, unlike printf/strtod, ignores the locale.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, res.ptr);
    bool neg = s[0] == '-';
    if (neg) s.erase(0, 1);
    auto epos = s.find('e');
    int exp10 = std::atoi(s.c_str() + epos + 1);
    std::string digits;
    for (size_t k = 0; k < epos; ++k)
        if (s[k] != '.') digits += s[k];
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    std::string out = neg ? "-" : "";
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 >= 0) {
            std::string ip = digits.substr(0, std::min<size_t>(digits.size(), exp10 + 1));
            while (ip.size() < static_cast<size_t>(exp10 + 1)) ip += '0';
            std::string fp = digits.size() > static_cast<size_t>(exp10 + 1) ? digits.substr(exp10 + 1) : "0";
            out += ip + "." + fp;
        } else {
            out += "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
        }
    } else {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        char eb[16];
        std::snprintf(eb, sizeof eb, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
        out += eb;
    }
    return out;
}

std::string pythonStrRepr(const std::string& s)
{
    bool hasSingle = s.find('\'') != std::string::npos;
    bool hasDouble = s.find('"') != std::string::npos;
    char q = (hasSingle && !hasDouble) ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char c : s) {
        if (c == '\\')
            out += "\\\\";
        else if (c == static_cast<unsigned char>(q)) {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            out += b;
        } else
            out += static_cast<char>(c);
    }
    out += q;
    return out;
}

bool isLayoutName(std::string_view s)
{
    static constexpr std::string_view kNames[] = {"strided",    "sparse_coo", "sparse_csr", "sparse_csc",
                                                  "sparse_bsr", "sparse_bsc", "_mkldnn",    "jagged"};
    return std::find(std::begin(kNames), std::end(kNames), s) != std::end(kNames);
}

bool isMemoryFormatName(std::string_view s)
{
    static constexpr std::string_view kNames[] = {"contiguous_format", "preserve_format", "channels_last",
                                                  "channels_last_3d"};
    return std::find(std::begin(kNames), std::end(kNames), s) != std::end(kNames);
}

}  // namespace fxl
