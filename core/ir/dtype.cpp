#include "core/ir/dtype.hpp"

#include <array>

namespace fxl {
namespace {

struct DTypeInfo
{
    DType type;
    std::string_view abbr;
    std::string_view torchName;
    std::string_view stName;  // safetensors
    int itemSize;
};

constexpr std::array<DTypeInfo, 25> kInfo{{
    {DType::Undefined, "?", "undefined", "", 0},
    {DType::Bool, "b8", "bool", "BOOL", 1},
    {DType::U8, "u8", "uint8", "U8", 1},
    {DType::I8, "i8", "int8", "I8", 1},
    {DType::I16, "i16", "int16", "I16", 2},
    {DType::I32, "i32", "int32", "I32", 4},
    {DType::I64, "i64", "int64", "I64", 8},
    {DType::U16, "u16", "uint16", "U16", 2},
    {DType::U32, "u32", "uint32", "U32", 4},
    {DType::U64, "u64", "uint64", "U64", 8},
    {DType::F16, "f16", "float16", "F16", 2},
    {DType::BF16, "bf16", "bfloat16", "BF16", 2},
    {DType::F32, "f32", "float32", "F32", 4},
    {DType::F64, "f64", "float64", "F64", 8},
    {DType::F8E4M3FN, "f8e4m3fn", "float8_e4m3fn", "F8_E4M3", 1},
    {DType::F8E5M2, "f8e5m2", "float8_e5m2", "F8_E5M2", 1},
    {DType::F8E4M3FNUZ, "f8e4m3fnuz", "float8_e4m3fnuz", "F8_E4M3FNUZ", 1},
    {DType::F8E5M2FNUZ, "f8e5m2fnuz", "float8_e5m2fnuz", "F8_E5M2FNUZ", 1},
    {DType::F8E8M0FNU, "f8e8m0fnu", "float8_e8m0fnu", "F8_E8M0", 1},
    {DType::C32, "c32", "complex32", "C32", 4},
    {DType::C64, "c64", "complex64", "C64", 8},
    {DType::C128, "c128", "complex128", "C128", 16},
    {DType::Bits16, "b16", "bits16", "", 2},
    {DType::Bits1x8, "b1x8", "bits1x8", "", 1},
    {DType::F4E2M1FNx2, "f4e2m1fnx2", "float4_e2m1fn_x2", "F4", 1},
}};

const DTypeInfo& info(DType t) { return kInfo[static_cast<size_t>(t)]; }

}  // namespace

std::string_view dtypeAbbr(DType t) { return info(t).abbr; }
std::string_view dtypeTorchName(DType t) { return info(t).torchName; }
std::string_view dtypeSafetensorsName(DType t) { return info(t).stName; }
int dtypeItemSize(DType t) { return info(t).itemSize; }

std::optional<DType> dtypeFromAbbr(std::string_view abbr)
{
    for (const auto& i : kInfo)
        if (i.type != DType::Undefined && i.abbr == abbr) return i.type;
    return std::nullopt;
}

std::optional<DType> dtypeFromTorchName(std::string_view name)
{
    for (const auto& i : kInfo)
        if (i.type != DType::Undefined && i.torchName == name) return i.type;
    static constexpr std::pair<std::string_view, DType> kAliases[] = {
        {"float", DType::F32}, {"double", DType::F64},      {"half", DType::F16},   {"long", DType::I64},
        {"int", DType::I32},   {"short", DType::I16},       {"cfloat", DType::C64}, {"cdouble", DType::C128},
        {"chalf", DType::C32}, {"uint1x8", DType::Bits1x8},
    };
    for (const auto& [n, t] : kAliases)
        if (n == name) return t;
    return std::nullopt;
}

std::optional<DType> dtypeFromSafetensorsName(std::string_view name)
{
    for (const auto& i : kInfo)
        if (!i.stName.empty() && i.stName == name) return i.type;
    return std::nullopt;
}

bool isFloatingPoint(DType t)
{
    switch (t) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
    case DType::F8E4M3FN:
    case DType::F8E5M2:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2FNUZ:
    case DType::F8E8M0FNU:
    case DType::F4E2M1FNx2: return true;
    default: return false;
    }
}

bool isComplex(DType t) { return t == DType::C32 || t == DType::C64 || t == DType::C128; }

bool isIntegral(DType t, bool includeBool)
{
    switch (t) {
    case DType::U8:
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::I64:
    case DType::U16:
    case DType::U32:
    case DType::U64: return true;
    case DType::Bool: return includeBool;
    default: return false;
    }
}

DType promoteTypes(DType a, DType b)
{
    if (a == b) return a;
    if (a == DType::Undefined) return b;
    if (b == DType::Undefined) return a;
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    auto rankOf = [](DType t) -> int {
        switch (t) {
        case DType::U8: return 1;
        case DType::I8: return 2;
        case DType::I16: return 3;
        case DType::I32: return 4;
        case DType::I64: return 5;
        case DType::F16: return 10;
        case DType::BF16: return 10;
        case DType::F32: return 12;
        case DType::F64: return 13;
        case DType::C32: return 20;
        case DType::C64: return 21;
        case DType::C128: return 22;
        default: return 0;
        }
    };
    // integer mixes
    if (isIntegral(a, false) && isIntegral(b, false)) {
        if ((a == DType::U8 && b == DType::I8) || (a == DType::I8 && b == DType::U8)) return DType::I16;
        return rankOf(a) >= rankOf(b) ? a : b;
    }
    if (isIntegral(a, false)) return b;
    if (isIntegral(b, false)) return a;
    // f16 with bf16 promotes to f32
    if ((a == DType::F16 && b == DType::BF16) || (a == DType::BF16 && b == DType::F16)) return DType::F32;
    if (isComplex(a) || isComplex(b)) {
        int r = std::max(rankOf(a), rankOf(b));
        if (r >= 13 && (a == DType::F64 || b == DType::F64 || a == DType::C128 || b == DType::C128)) return DType::C128;
        if (a == DType::F32 || b == DType::F32 || a == DType::C64 || b == DType::C64) return DType::C64;
        return isComplex(a) ? a : b;
    }
    return rankOf(a) >= rankOf(b) ? a : b;
}

}  // namespace fxl
