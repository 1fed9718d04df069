// Random-op kernels (see cpu_random.hpp for the (seed, offset) rules and philox.hpp for the
// stream and the bits -> float maps). Every element is a pure function of (seed, offset, k),
// so the split between threads never matters.
#include "runtime/cpu/cpu_random.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/math/philox.hpp"

namespace fxl::cpu {
namespace {

constexpr int64_t kGrain = 1 << 14;

RngState& generator(const KernelCall& call)
{
    if (!call.rng) throw KernelError("random operator called without an RNG state (KernelCall::rng)");
    return *call.rng;
}

bool isFloatOut(DType t) { return t == DType::F32 || t == DType::F64 || t == DType::BF16 || t == DType::F16; }

uint64_t drawsPerElement(DType t) { return t == DType::F64 ? 2 : 1; }

uint64_t drawsFor(int64_t numel, DType t) { return static_cast<uint64_t>(numel) * drawsPerElement(t); }

// Takes an op's draws from the run's generator; returns the op's offset.
uint64_t takeOffset(const KernelCall& call, uint64_t draws)
{
    RngState& g = generator(call);
    const uint64_t off = g.offset;
    g.offset += philoxRoundUp4(draws);
    return off;
}

math::Narrow narrowOf(DType t)
{
    return t == DType::BF16 ? math::Narrow::Bf16 : t == DType::F16 ? math::Narrow::F16 : math::Narrow::None;
}

// v rounded to storage type t, as a float (bf16/f16 round to nearest even).
float roundTo(float v, DType t) { return math::roundToStorage(v, narrowOf(t)); }

DType floatDType(const KernelCall& call, DType dflt, const char* op)
{
    const DType t = ew::optDType(call, "dtype").value_or(dflt);
    if (!isFloatOut(t))
        throw KernelError(std::string(op) + ": expected a floating point dtype (f32, f64, bf16, f16), got "
                          + std::string(dtypeTorchName(t)));
    return t;
}

double floatArg(const KernelCall& call, const char* name)
{
    try {
        return call.arg(name).toDouble();
    } catch (const std::invalid_argument&) {
        throw KernelError(std::string("argument '") + name + "' must be a number");
    }
}

// The exact integer value of a one-element tensor (seeds and offsets are i64 0-dim tensors).
int64_t tensorInt(const Tensor& t, const char* what)
{
    if (t.numel() != 1) throw KernelError(std::string(what) + " must be a one-element tensor, got " + describe(t));
    if (t.device() != DeviceKind::Cpu) throw KernelError(std::string(what) + " must be a CPU tensor");
    if (t.dtype() == DType::I64) {
        int64_t v;
        std::memcpy(&v, t.rawData(), 8);
        return v;
    }
    if (isFloatingPoint(t.dtype()) || !runtimeSupportsDType(t.dtype()))
        throw KernelError(std::string(what) + " must be an integer tensor, got " + describe(t));
    return static_cast<int64_t>(loadAsDouble(t.rawData(), t.dtype()));
}

// out (any dense strides) gets store(k, ptr) for every logical flat index k: written in
// logical order into a contiguous tensor, copied when out is not contiguous.
template<class F>
void fillLogical(const KernelCall& call, const Tensor& out, const F& store)
{
    const bool direct = out.isContiguous();
    const Tensor dst = direct ? out : call.newTensor(out.sizes(), out.dtype());
    char* base = static_cast<char*>(dst.rawData());
    const int64_t isz = dst.itemSize();
    ew::parallelFor(call, dst.numel(), kGrain, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) store(static_cast<uint64_t>(k), base + k * isz);
    });
    if (!direct) call.backend->copy(out, dst);
}

// PyTorch's uniform transform (DistributionTemplates.h uniform_kernel): from/to in the
// storage type, range = to - from in it, value = (scalar_t)(u * range + from) (nvcc contracts
// to an FMA), and value == to becomes from.
void fillUniform(const KernelCall& call, const Tensor& out, uint64_t seed, uint64_t off, double from, double to)
{
    const DType t = out.dtype();
    if (t == DType::F64) {
        const double range = to - from;
        fillLogical(call, out, [&](uint64_t k, char* p) {
            const double v = rng::uniformF64(philoxUniformAtF64(seed, off, k), range, from, to);
            std::memcpy(p, &v, 8);
        });
        return;
    }
    const float f = roundTo(static_cast<float>(from), t), tt = roundTo(static_cast<float>(to), t);
    const float range = roundTo(tt - f, t);
    const math::Narrow n = narrowOf(t);
    fillLogical(call, out, [&](uint64_t k, char* p) {
        storeFromFloat(p, t, rng::uniformF32(philoxUniformAtF32(seed, off, k), range, f, tt, n));
    });
}

// normal_kernel: (scalar_t)(n * std + mean) in the compute type.
void fillNormal(const KernelCall& call, const Tensor& out, uint64_t seed, uint64_t off, double mean, double stdv)
{
    const DType t = out.dtype();
    if (t == DType::F64) {
        fillLogical(call, out, [&](uint64_t k, char* p) {
            const double v = rng::normalF64(philoxNormalAtF64(seed, off, k), stdv, mean);
            std::memcpy(p, &v, 8);
        });
        return;
    }
    const float m = static_cast<float>(mean), s = static_cast<float>(stdv);
    fillLogical(call, out, [&](uint64_t k, char* p) {
        storeFromFloat(p, t, rng::normalF32(philoxNormalAtF32(seed, off, k), s, m));
    });
}

// ---- factories and *_like
void randFactory(KernelCall& call, bool normal)
{
    const auto sizes = sizeArg(call, "size");
    const DType t = floatDType(call, DType::F32, normal ? "randn" : "rand");
    Tensor out = call.newTensor(sizes, t);
    const uint64_t off = takeOffset(call, drawsFor(out.numel(), t));
    const uint64_t seed = generator(call).seed;
    if (normal)
        fillNormal(call, out, seed, off, 0.0, 1.0);
    else
        fillUniform(call, out, seed, off, 0.0, 1.0);
    call.result = Value::ofTensor(out);
}

void randLike(KernelCall& call, bool normal)
{
    const Tensor& self = call.tensor("self");
    const DType t = floatDType(call, self.dtype(), normal ? "randn_like" : "rand_like");
    Tensor out = ew::allocStrided(call, self.sizes(), ew::memoryFormatStrides(optArg(call, "memory_format"), self), t);
    const uint64_t off = takeOffset(call, drawsFor(out.numel(), t));
    const uint64_t seed = generator(call).seed;
    if (normal)
        fillNormal(call, out, seed, off, 0.0, 1.0);
    else
        fillUniform(call, out, seed, off, 0.0, 1.0);
    call.result = Value::ofTensor(out);
}

// uniform / normal_functional: functional forms of uniform_ / normal_ (self's layout and dtype).
void uniformKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (!isFloatOut(self.dtype()))
        throw KernelError("uniform: expected a floating point tensor, got " + describe(self));
    const double from = floatArg(call, "from"), to = floatArg(call, "to");
    if (!(from <= to)) throw KernelError("uniform: expects from <= to");
    Tensor out = ew::allocStrided(call, self.sizes(), ew::preserveStrides(self), self.dtype());
    const uint64_t off = takeOffset(call, drawsFor(out.numel(), out.dtype()));
    fillUniform(call, out, generator(call).seed, off, from, to);
    call.result = Value::ofTensor(out);
}

void normalKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (!isFloatOut(self.dtype())) throw KernelError("normal: expected a floating point tensor, got " + describe(self));
    const double mean = floatArg(call, "mean"), stdv = floatArg(call, "std");
    if (!(stdv >= 0.0)) throw KernelError("normal expects std >= 0.0, but found std " + std::to_string(stdv));
    Tensor out = ew::allocStrided(call, self.sizes(), ew::preserveStrides(self), self.dtype());
    const uint64_t off = takeOffset(call, drawsFor(out.numel(), out.dtype()));
    fillNormal(call, out, generator(call).seed, off, mean, stdv);
    call.result = Value::ofTensor(out);
}

// The value rand_like would give element k of a tensor of dtype t at (seed, off): [0, 1).
inline double randValue(uint64_t seed, uint64_t off, uint64_t k, DType t)
{
    if (t == DType::F64) return rng::randF64(philoxUniformAtF64(seed, off, k));
    return static_cast<double>(rng::randF32(philoxUniformAtF32(seed, off, k), narrowOf(t)));
}

// bernoulli: 1 where u < p with u the rand value in self's compute type (f64 for f64,
// else f32): p = 0 never, p = 1 always.
void bernoulliP(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const double p = floatArg(call, "p");
    if (!(p >= 0.0 && p <= 1.0))
        throw KernelError("bernoulli_ expects p to be in [0, 1], but got p=" + std::to_string(p));
    const DType t = self.dtype();
    Tensor out = ew::allocStrided(call, self.sizes(), ew::preserveStrides(self), t);
    const DType ut = t == DType::F64 ? DType::F64 : DType::F32;
    const uint64_t off = takeOffset(call, drawsFor(out.numel(), ut));
    const uint64_t seed = generator(call).seed;
    const double pc = ut == DType::F64 ? p : static_cast<double>(static_cast<float>(p));
    fillLogical(call, out, [&](uint64_t k, char* q) {
        storeFromDouble(q, t, rng::bernoulli(randValue(seed, off, k, ut), pc) ? 1.0 : 0.0);
    });
    call.result = Value::ofTensor(out);
}

// bernoulli(self): self holds the probabilities.
void bernoulliTensor(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const DType t = self.dtype();
    if (!isFloatOut(t))
        throw KernelError("bernoulli: expected a floating point tensor of probabilities, got " + describe(self));
    const Tensor pc = contiguous(self, *call.backend);
    Tensor out = ew::allocStrided(call, self.sizes(), ew::preserveStrides(self), t);
    const DType ut = t == DType::F64 ? DType::F64 : DType::F32;
    const uint64_t off = takeOffset(call, drawsFor(out.numel(), ut));
    const uint64_t seed = generator(call).seed;
    const char* pb = static_cast<const char*>(pc.rawData());
    const int64_t isz = pc.itemSize();
    fillLogical(call, out, [&](uint64_t k, char* q) {
        const double p = loadAsDouble(pb + static_cast<int64_t>(k) * isz, t);
        if (!(p >= 0.0 && p <= 1.0))
            throw KernelError("bernoulli: probabilities must be in [0, 1], got " + std::to_string(p));
        storeFromDouble(q, t, rng::bernoulli(randValue(seed, off, k, ut), p) ? 1.0 : 0.0);
    });
    call.result = Value::ofTensor(out);
}

// ---- dropout
struct DropoutOut
{
    Tensor out, mask;
};

DropoutOut dropout(KernelCall& call, const Tensor& x, double p, bool train)
{
    const DType t = x.dtype();
    if (!isFloatOut(t)) throw KernelError("dropout: expected a floating point input, got " + describe(x));
    if (!(p >= 0.0 && p <= 1.0))
        throw KernelError("dropout probability has to be between 0 and 1, but got " + std::to_string(p));
    const Tensor xc = contiguous(x, *call.backend);
    const char* xb = static_cast<const char*>(xc.rawData());
    const int64_t isz = xc.itemSize();
    DropoutOut r;
    if (!train) {  // (x.clone(), ones_like(x, bool))
        r.out = ew::allocStrided(call, x.sizes(), ew::preserveStrides(x), t);
        call.backend->copy(r.out, x);
        r.mask = ew::allocStrided(call, x.sizes(), ew::preserveStrides(x), DType::Bool);
        fillLogical(call, r.mask, [&](uint64_t, char* q) { *q = 1; });
        return r;
    }
    r.mask = call.newTensor(x.sizes(), DType::Bool);  // LEGACY_CONTIGUOUS, as eager
    r.out = ew::allocStrided(call, x.sizes(), ew::iteratorStrides(x.sizes(), {&x, &r.mask}, 0), t);
    const uint64_t off = takeOffset(call, drawsFor(x.numel(), t));
    const uint64_t seed = generator(call).seed;
    const double p1m = 1.0 - p;
    const double scale = p1m == 0.0 ? 0.0 : 1.0 / p1m;
    const bool keepAll = p == 0.0;
    const double pt = t == DType::F64 ? p : static_cast<double>(roundTo(static_cast<float>(p), t));
    char* mb = static_cast<char*>(r.mask.rawData());
    // mask first (contiguous, logical order), then the output from it
    ew::parallelFor(call, x.numel(), kGrain, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k)
            mb[k] = rng::dropoutKeeps(randValue(seed, off, static_cast<uint64_t>(k), t), pt, keepAll) ? 1 : 0;
    });
    if (t == DType::F64) {
        fillLogical(call, r.out, [&](uint64_t k, char* q) {
            double v;
            std::memcpy(&v, xb + static_cast<int64_t>(k) * 8, 8);
            v = rng::dropoutF64(v, mb[k] != 0, scale);
            std::memcpy(q, &v, 8);
        });
    } else {
        const float sf = static_cast<float>(scale);
        const math::Narrow n = narrowOf(t);
        fillLogical(call, r.out, [&](uint64_t k, char* q) {
            storeFromFloat(q, t,
                           rng::dropoutF32(loadAsFloat(xb + static_cast<int64_t>(k) * isz, t), mb[k] != 0, sf, n));
        });
    }
    return r;
}

void nativeDropout(KernelCall& call)
{
    const Tensor& x = call.tensor("input");
    const Value& train = optArg(call, "train");
    const bool training = train.isNone() || train.b;  // eager: None counts as training
    DropoutOut r = dropout(call, x, floatArg(call, "p"), training);
    call.result = Value::ofList({Value::ofTensor(r.out), Value::ofTensor(r.mask)});
}

void functionalDropout(KernelCall& call)
{  // torch.nn.functional.dropout
    const Tensor& x = call.tensor("input");
    const Value& training = optArg(call, "training");
    const bool train = training.isNone() ? true : training.b;
    DropoutOut r = dropout(call, x, floatArg(call, "p"), train);
    call.result = Value::ofTensor(r.out);
}

// ---- functional RNG: rngprims.philox_rand(size, seed, offset, stride, device, dtype) -> (values, new offset)
void philoxRand(KernelCall& call)
{
    const auto sizes = sizeArg(call, "size");
    const uint64_t seed = static_cast<uint64_t>(tensorInt(call.tensor("seed"), "philox_rand seed"));
    const int64_t offset = tensorInt(call.tensor("offset"), "philox_rand offset");
    if (offset < 0) throw KernelError("philox_rand: negative offset " + std::to_string(offset));
    const DType t = floatDType(call, DType::F32, "philox_rand");
    Tensor out = call.newTensor(sizes, t);
    fillUniform(call, out, seed, static_cast<uint64_t>(offset), 0.0, 1.0);
    Tensor next = call.newTensor({}, DType::I64);
    const int64_t nv = offset + static_cast<int64_t>(philoxRoundUp4(drawsFor(out.numel(), t)));
    std::memcpy(next.rawData(), &nv, 8);
    call.result = Value::ofList({Value::ofTensor(out), Value::ofTensor(next)});
}

// ---- Inductor's seeds and Triton RNG
void inductorSeeds(KernelCall& call)
{
    const int64_t count = call.arg("count").toInt();
    if (count < 0) throw KernelError("inductor_seeds: negative count");
    Tensor out = call.newTensor({count}, DType::I64);
    const uint64_t off = takeOffset(call, 2 * static_cast<uint64_t>(count));
    const uint64_t seed = generator(call).seed;
    auto* p = out.data<int64_t>();
    for (int64_t i = 0; i < count; ++i) {  // randint(2**63 - 1) in spirit: 63-bit seeds
        const uint64_t d = off + 2 * static_cast<uint64_t>(i);
        const uint64_t v =
            static_cast<uint64_t>(philoxDraw(seed, 0, d)) | (static_cast<uint64_t>(philoxDraw(seed, 0, d + 1)) << 32);
        p[i] = static_cast<int64_t>(v % 0x7fffffffffffffffull);
    }
    call.result = Value::ofTensor(out);
}

void inductorLookupSeed(KernelCall& call)
{
    const Tensor& seeds = call.tensor("seeds");
    const int64_t index = call.arg("index").toInt();
    if (seeds.dtype() != DType::I64 || seeds.dim() != 1)
        throw KernelError("inductor_lookup_seed: expected an i64 vector, got " + describe(seeds));
    if (index < 0 || index >= seeds.size(0))
        throw KernelError("inductor_lookup_seed: index " + std::to_string(index) + " out of range for "
                          + describe(seeds));
    Tensor out = call.newTensor({}, DType::I64);
    const int64_t v = seeds.data<int64_t>()[index * seeds.stride(0)];
    std::memcpy(out.rawData(), &v, 8);
    call.result = Value::ofTensor(out);
}

void inductorRandom(KernelCall& call)
{
    const auto sizes = sizeArg(call, "size");
    const uint64_t seed = static_cast<uint64_t>(tensorInt(call.tensor("seed"), "inductor_random seed"));
    const std::string& mode = call.arg("mode").s;
    if (mode != "rand" && mode != "randn")
        throw KernelError("inductor_random: mode must be 'rand' or 'randn', got '" + mode + "'");
    Tensor out = call.newTensor(sizes, DType::F32);
    const bool normal = mode == "randn";
    float* p = out.data<float>();
    ew::parallelFor(call, out.numel(), kGrain, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k)
            p[k] = normal ? tritonRandn(seed, static_cast<uint64_t>(k)) : tritonRand(seed, static_cast<uint64_t>(k));
    });
    call.result = Value::ofTensor(out);
}

void inductorRandint(KernelCall& call)
{
    const int64_t low = call.arg("low").toInt(), high = call.arg("high").toInt();
    if (!(low < high)) throw KernelError("inductor_randint: expected low < high");
    const auto sizes = sizeArg(call, "size");
    const uint64_t seed = static_cast<uint64_t>(tensorInt(call.tensor("seed"), "inductor_randint seed"));
    Tensor out = call.newTensor(sizes, DType::I64);
    int64_t* p = out.data<int64_t>();
    ew::parallelFor(call, out.numel(), kGrain, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) p[k] = tritonRandint64(seed, static_cast<uint64_t>(k), low, high);
    });
    call.result = Value::ofTensor(out);
}

// randperm(n, dtype=long): Fisher-Yates over [0, n): step i (from n-1 down to 1) swaps
// position i with j = floor(draw * (i + 1) / 2^32), draw n-1-i of the op's Philox stream. The
// permutation depends only on (seed, offset, n); it is not PyTorch's (CPU PyTorch uses mt19937).
void randpermKernel(KernelCall& call)
{
    const int64_t n = call.arg("n").toInt();
    if (n < 0) throw KernelError("randperm: n must be non-negative, got " + std::to_string(n));
    const DType t = ew::optDType(call, "dtype").value_or(DType::I64);
    // the largest value n - 1 must be exact in the dtype
    const double limit = t == DType::U8 ? 255.0
        : t == DType::I8                ? 127.0
        : t == DType::I16               ? 32767.0
        : t == DType::I32               ? 2147483647.0
        : t == DType::F16               ? 2048.0
        : t == DType::BF16              ? 256.0
        : t == DType::F32               ? 16777216.0
        : t == DType::F64               ? 9007199254740992.0
                                        : 9.2e18;
    if (t == DType::Bool || !runtimeSupportsDType(t) || static_cast<double>(n - 1) > limit)
        throw KernelError("randperm: n is too large for the result dtype " + std::string(dtypeTorchName(t)));
    std::vector<int64_t> perm(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) perm[static_cast<size_t>(k)] = k;
    const uint64_t off = takeOffset(call, static_cast<uint64_t>(n));
    const uint64_t seed = generator(call).seed;
    for (int64_t i = n - 1; i > 0; --i) {
        const uint64_t r = philoxDraw(seed, 0, off + static_cast<uint64_t>(n - 1 - i));
        const int64_t j = rng::randpermSwap(static_cast<uint32_t>(r), i);
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
    }
    Tensor out = call.newTensor({n}, t);
    char* p = static_cast<char*>(out.rawData());
    for (int64_t k = 0; k < n; ++k)
        storeFromDouble(p + k * out.itemSize(), t, static_cast<double>(perm[static_cast<size_t>(k)]));
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerRandomKernels(KernelRegistry& reg)
{
    const auto cpu = DeviceKind::Cpu;
    reg.add("aten.rand.default", cpu, [](KernelCall& c) { randFactory(c, false); });
    reg.add("aten.randn.default", cpu, [](KernelCall& c) { randFactory(c, true); });
    reg.add("aten.rand_like.default", cpu, [](KernelCall& c) { randLike(c, false); });
    reg.add("aten.randn_like.default", cpu, [](KernelCall& c) { randLike(c, true); });
    reg.add("aten.uniform.default", cpu, uniformKernel);
    reg.add("aten.normal_functional.default", cpu, normalKernel);
    reg.add("aten.bernoulli.p", cpu, bernoulliP);
    reg.add("aten.bernoulli.default", cpu, bernoulliTensor);
    reg.add("aten.native_dropout.default", cpu, nativeDropout);
    reg.add("torch.nn.functional.dropout", cpu, functionalDropout);
    reg.add("rngprims.philox_rand.default", cpu, philoxRand);
    reg.add("prims.inductor_seeds.default", cpu, inductorSeeds);
    reg.add("prims.inductor_lookup_seed.default", cpu, inductorLookupSeed);
    reg.add("prims.inductor_random.default", cpu, inductorRandom);
    reg.add("prims.inductor_randint.default", cpu, inductorRandint);
    reg.add("aten.randperm.default", cpu, randpermKernel);
}

}  // namespace fxl::cpu
