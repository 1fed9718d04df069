#include "runtime/base/dtype_codec.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/base/kernel.hpp"
#include "runtime/math/storage.hpp"

namespace fxl {

using fxl::math::bf16ToF32;
using fxl::math::f16ToF32;
using fxl::math::f32ToBf16;
using fxl::math::f32ToF16;

double loadAsDouble(const void* p, DType t)
{
    switch (t) {
    case DType::F32: {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::F64: {
        double v;
        std::memcpy(&v, p, 8);
        return v;
    }
    case DType::BF16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return bf16ToF32(v);
    }
    case DType::F16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return f16ToF32(v);
    }
    case DType::I64: {
        int64_t v;
        std::memcpy(&v, p, 8);
        return static_cast<double>(v);
    }
    case DType::I32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::I16: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    case DType::I8: {
        int8_t v;
        std::memcpy(&v, p, 1);
        return v;
    }
    case DType::U8: {
        uint8_t v;
        std::memcpy(&v, p, 1);
        return v;
    }
    case DType::Bool: {
        uint8_t v;
        std::memcpy(&v, p, 1);
        return v ? 1.0 : 0.0;
    }
    default: throw KernelError("unsupported dtype " + std::string(dtypeAbbr(t)));
    }
}

namespace {
template<class I>
I truncTo(double v)
{
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return static_cast<I>(v);
}
}  // namespace

void storeFromDouble(void* p, DType t, double v)
{
    switch (t) {
    case DType::F32: {
        float x = static_cast<float>(v);
        std::memcpy(p, &x, 4);
        return;
    }
    case DType::F64: std::memcpy(p, &v, 8); return;
    case DType::BF16: {
        uint16_t x = f32ToBf16(static_cast<float>(v));
        std::memcpy(p, &x, 2);
        return;
    }
    case DType::F16: {
        uint16_t x = f32ToF16(static_cast<float>(v));
        std::memcpy(p, &x, 2);
        return;
    }
    case DType::I64: {
        int64_t x = truncTo<int64_t>(v);
        std::memcpy(p, &x, 8);
        return;
    }
    case DType::I32: {
        int32_t x = truncTo<int32_t>(v);
        std::memcpy(p, &x, 4);
        return;
    }
    case DType::I16: {
        int16_t x = truncTo<int16_t>(v);
        std::memcpy(p, &x, 2);
        return;
    }
    case DType::I8: {
        int8_t x = truncTo<int8_t>(v);
        std::memcpy(p, &x, 1);
        return;
    }
    case DType::U8: {
        uint8_t x = truncTo<uint8_t>(v);
        std::memcpy(p, &x, 1);
        return;
    }
    case DType::Bool: {
        uint8_t x = (v != 0.0 || std::isnan(v)) ? 1 : 0;
        std::memcpy(p, &x, 1);
        return;
    }
    default: throw KernelError("unsupported dtype " + std::string(dtypeAbbr(t)));
    }
}

float loadAsFloat(const void* p, DType t)
{
    switch (t) {
    case DType::F32: {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::BF16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return bf16ToF32(v);
    }
    case DType::F16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return f16ToF32(v);
    }
    default: return static_cast<float>(loadAsDouble(p, t));
    }
}

void storeFromFloat(void* p, DType t, float v)
{
    switch (t) {
    case DType::F32: std::memcpy(p, &v, 4); return;
    case DType::BF16: {
        uint16_t x = f32ToBf16(v);
        std::memcpy(p, &x, 2);
        return;
    }
    case DType::F16: {
        uint16_t x = f32ToF16(v);
        std::memcpy(p, &x, 2);
        return;
    }
    default: storeFromDouble(p, t, v);
    }
}

}  // namespace fxl
