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
        float x = math::canonical(static_cast<float>(v));
        std::memcpy(p, &x, 4);
        return;
    }
    case DType::F64: {
        const double x = math::canonical(v);
        std::memcpy(p, &x, 8);
        return;
    }
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
    case DType::F32: {
        const float x = math::canonical(v);
        std::memcpy(p, &x, 4);
        return;
    }
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

namespace {
// Calls fn(index, bits) for every NaN element other than the canonical one; stops early when
// fn returns false.
template<class U, class Fn>
void otherNans(const void* p, int64_t n, U absMask, U infBits, U canon, Fn&& fn)
{
    const auto* q = static_cast<const unsigned char*>(p);
    for (int64_t k = 0; k < n; ++k) {
        U u;
        std::memcpy(&u, q + k * static_cast<int64_t>(sizeof(U)), sizeof(U));
        if ((u & absMask) > infBits && u != canon && !fn(k)) return;
    }
}

template<class Fn>
void otherNansOf(const void* p, DType t, int64_t n, Fn&& fn)
{
    switch (t) {
    case DType::F32: otherNans<uint32_t>(p, n, 0x7fffffffu, 0x7f800000u, math::kCanonicalNanBits, fn); return;
    case DType::F64:
        otherNans<uint64_t>(p, n, 0x7fffffffffffffffull, 0x7ff0000000000000ull, math::kCanonicalNanBits64, fn);
        return;
    case DType::BF16: otherNans<uint16_t>(p, n, 0x7fffu, 0x7f80u, math::kCanonicalNanBf16, fn); return;
    case DType::F16: otherNans<uint16_t>(p, n, 0x7fffu, 0x7c00u, math::kCanonicalNanF16, fn); return;
    default: return;
    }
}
}  // namespace

int64_t canonicalizeNans(void* p, DType t, int64_t n)
{
    int64_t changed = 0;
    const int isz = dtypeItemSize(t);
    otherNansOf(p, t, n, [&](int64_t k) {
        storeFromDouble(static_cast<unsigned char*>(p) + k * isz, t, std::numeric_limits<double>::quiet_NaN());
        ++changed;
        return true;
    });
    return changed;
}

bool hasOtherNans(const void* p, DType t, int64_t n)
{
    bool any = false;
    otherNansOf(p, t, n, [&](int64_t) {
        any = true;
        return false;
    });
    return any;
}

}  // namespace fxl
