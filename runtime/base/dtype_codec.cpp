#include "runtime/base/dtype_codec.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/base/kernel.hpp"
#include "runtime/base/pointwise_fn.hpp"
#include "runtime/math/storage.hpp"

namespace fxl {

using fxl::math::bf16ToF32;
using fxl::math::f16ToF32;
using fxl::math::f32ToBf16;
using fxl::math::f32ToF16;

namespace {
// the ten dtypes the elementwise family stores (runtime/base/pointwise_fn.hpp's withStorage)
void needStorage(DType t)
{
    if (!pw::withStorage(t, [](auto) {})) throw KernelError("unsupported dtype " + std::string(dtypeAbbr(t)));
}
}  // namespace

// One rule for every device: pointwise_fn.hpp's loadDouble / storeDouble, which the CUDA
// kernels run too.
double loadAsDouble(const void* p, DType t)
{
    needStorage(t);
    return pw::loadDouble(static_cast<const char*>(p), t);
}

void storeFromDouble(void* p, DType t, double v)
{
    needStorage(t);
    pw::storeDouble(static_cast<char*>(p), t, v);
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
