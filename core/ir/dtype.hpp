// Tensor element types with PyTorch's names, FX abbreviations and safetensors codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxl {

enum class DType : uint8_t
{
    Undefined,
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    F8E4M3FN,
    F8E5M2,
    F8E4M3FNUZ,
    F8E5M2FNUZ,
    F8E8M0FNU,
    C32,
    C64,
    C128,
    Bits16,
    Bits1x8,
    F4E2M1FNx2,
};

// "f32", "bf16", "b8", ... as FX annotations print them (torch/utils/_dtype_abbrs.py).
std::string_view dtypeAbbr(DType t);
std::optional<DType> dtypeFromAbbr(std::string_view abbr);

// "float32", "bfloat16", "bool" ... (the part after "torch.")
std::string_view dtypeTorchName(DType t);
// accepts "float32", "float", "half", "long", "int", "double", "bool", ...
std::optional<DType> dtypeFromTorchName(std::string_view name);

// "F32", "BF16", "BOOL", "F8_E4M3", ... as in the safetensors header
std::string_view dtypeSafetensorsName(DType t);
std::optional<DType> dtypeFromSafetensorsName(std::string_view name);

// bytes per element (F4E2M1FNx2 packs two values per byte: 1)
int dtypeItemSize(DType t);

bool isFloatingPoint(DType t);  // f16/bf16/f32/f64/f8*
bool isComplex(DType t);
bool isIntegral(DType t, bool includeBool);

// PyTorch type promotion between two tensor dtypes of the same category rules
// (torch.promote_types).
DType promoteTypes(DType a, DType b);

}  // namespace fxl
