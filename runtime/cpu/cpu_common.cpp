#include "runtime/cpu/cpu_common.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/backend.hpp"

namespace fxl::cpu {

float f16ToF32(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t u;
    if (exp == 0) {
        if (man == 0) {
            u = sign;
        } else {  // subnormal: normalise
            int e = -1;
            do {
                ++e;
                man <<= 1;
            } while ((man & 0x400u) == 0);
            man &= 0x3ffu;
            u = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | man << 13;
        }
    } else if (exp == 0x1f) {
        u = sign | 0x7f800000u | man << 13 | (man ? 0x400000u : 0u);
    } else {
        u = sign | (exp + 127 - 15) << 23 | man << 13;
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t f32ToF16(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // quiet NaN
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
    if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero, RNE
        if (abs < 0x33000000u) return sign;  // < 2^-25: rounds to 0 (ties at 2^-25 go to even = 0)
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e;  // 14 + (113 - e) ... bits to drop to land on 2^-24 units
        const uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
        return static_cast<uint16_t>(sign | r);
    }
    uint32_t v = abs - (112u << 23);  // rebias 127 -> 15
    const uint32_t lsb = (v >> 13) & 1u;
    v += 0xfffu + lsb;
    return static_cast<uint16_t>(sign | (v >> 13));
}

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

std::vector<int64_t> broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b)
{
    const size_t n = std::max(a.size(), b.size());
    std::vector<int64_t> out(n);
    for (size_t k = 0; k < n; ++k) {
        const int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
        const int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
        if (x != y && x != 1 && y != 1)
            throw KernelError("shapes do not broadcast: size " + std::to_string(x) + " vs " + std::to_string(y)
                              + " at dimension " + std::to_string(k));
        out[k] = x == 1 ? y : x;
    }
    return out;
}

Tensor expandTo(const Tensor& t, const std::vector<int64_t>& sizes)
{
    if (t.sizes().size() > sizes.size()) throw KernelError("expand: target has fewer dimensions");
    const size_t lead = sizes.size() - t.sizes().size();
    std::vector<int64_t> st(sizes.size(), 0);
    for (size_t k = 0; k < t.sizes().size(); ++k) {
        const int64_t s = t.sizes()[k];
        if (s == sizes[lead + k])
            st[lead + k] = t.strides()[k];
        else if (s == 1)
            st[lead + k] = 0;
        else
            throw KernelError("expand: size " + std::to_string(s) + " cannot become "
                              + std::to_string(sizes[lead + k]));
    }
    return t.asStrided(sizes, st, t.offset());
}

Tensor contiguous(const Tensor& t, Backend& b)
{
    if (t.isContiguous()) return t;
    Tensor out = b.empty(t.sizes(), t.dtype());
    b.copy(out, t);
    return out;
}

const Value& optArg(const KernelCall& call, const char* name)
{
    static const Value kNone;
    const int k = call.argIndex(name);
    if (k < 0 || static_cast<size_t>(k) >= call.args.size()) return kNone;
    return call.args[static_cast<size_t>(k)];
}

std::vector<int64_t> sizeArg(const KernelCall& call, const char* name)
{
    std::vector<int64_t> s;
    try {
        s = call.arg(name).toIntList();
    } catch (const std::invalid_argument&) {
        throw KernelError(std::string("argument '") + name + "' must be a list of integers");
    }
    for (int64_t v : s)
        if (v < 0) throw KernelError("negative size " + std::to_string(v));
    return s;
}

}  // namespace fxl::cpu
