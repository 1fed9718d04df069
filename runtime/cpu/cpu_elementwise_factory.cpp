// Factories and fills: full, zeros, empty(_strided), arange, scalar_tensor, the *_like and
// new_* forms, fill / fill_ / zero_, and triu. Factories are contiguous; *_like and fill
// follow empty_like(preserve_format). "Empty" memory is zero-filled so that a graph reading
// it stays deterministic.
#include "runtime/cpu/cpu_elementwise_factory.hpp"
#include "runtime/math/arith.hpp"

#include <cmath>
#include <cstring>

#include "runtime/cpu/cpu_elementwise.hpp"

namespace fxl::cpu::ew {
namespace {

// full's dtype when none is given: inferred from the fill value as torch 1.13 does (a float
// gives the default dtype f32; an int or a bool gives i64).
DType inferredDType(const Value& v) { return v.kind == Value::Kind::Float ? DType::F32 : DType::I64; }

Tensor filled(KernelCall& call, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, DType t,
              const Value& value)
{
    Tensor out = allocStrided(call, sizes, strides, t);
    fillWith(call, out, value);
    return out;
}

const Value& zero()
{
    static const Value v = Value::ofInt(0);
    return v;
}
const Value& oneV()
{
    static const Value v = Value::ofInt(1);
    return v;
}

std::vector<int64_t> contiguousOrFormat(const KernelCall& call, const std::vector<int64_t>& sizes)
{
    const Value& mf = optArg(call, "memory_format");
    if (mf.isNone() || mf.s == "preserve_format" || mf.s == "torch.preserve_format")
        return Tensor::contiguousStrides(sizes);
    return namedFormatStrides(mf.s, sizes);
}

void fullKernel(KernelCall& call)
{
    const Value& v = call.arg("fill_value");
    const auto sizes = sizeArg(call, "size");
    const DType t = optDType(call, "dtype").value_or(inferredDType(v));
    call.result = Value::ofTensor(filled(call, sizes, Tensor::contiguousStrides(sizes), t, v));
}

void constantKernel(KernelCall& call, const Value& v)
{  // zeros / ones / empty.memory_format
    const auto sizes = sizeArg(call, "size");
    const DType t = optDType(call, "dtype").value_or(DType::F32);
    call.result = Value::ofTensor(filled(call, sizes, contiguousOrFormat(call, sizes), t, v));
}

void likeKernel(KernelCall& call, const Value& v)
{  // zeros_like / ones_like / empty_like / full_like
    const Tensor& self = call.tensor("self");
    const DType t = optDType(call, "dtype").value_or(self.dtype());
    call.result =
        Value::ofTensor(filled(call, self.sizes(), memoryFormatStrides(optArg(call, "memory_format"), self), t, v));
}

void newKernel(KernelCall& call, const Value& v)
{  // new_zeros / new_ones / new_empty / new_full
    const Tensor& self = call.tensor("self");
    const auto sizes = sizeArg(call, "size");
    const DType t = optDType(call, "dtype").value_or(self.dtype());
    call.result = Value::ofTensor(filled(call, sizes, Tensor::contiguousStrides(sizes), t, v));
}

Tensor emptyStrided(KernelCall& call, DType t)
{
    const auto sizes = sizeArg(call, "size");
    const auto strides = call.arg("stride").toIntList();
    if (strides.size() != sizes.size()) throw KernelError("empty_strided: size and stride differ in length");
    int64_t extent = 1;
    bool empty = false;
    for (size_t d = 0; d < sizes.size(); ++d) {
        if (strides[d] < 0) throw KernelError("empty_strided: negative stride");
        if (sizes[d] == 0) empty = true;
        extent += (sizes[d] - 1) * strides[d];
    }
    Tensor buf = call.newTensor({empty ? 0 : extent}, t);
    fillWith(call, buf, zero());
    return buf.asStrided(sizes, strides, 0);
}

// arange: n = ceil((end - start) / step) values start + step * i, computed in double for
// f32/f64 (PyTorch's CPU acc type), in f32 for bf16/f16 and in int64 for integers.
void arangeKernel(KernelCall& call)
{
    const Value& startV = call.argIndex("start") >= 0 ? call.arg("start") : zero();
    const Value& endV = call.arg("end");
    const Value& stepV = call.argIndex("step") >= 0 ? call.arg("step") : oneV();
    for (const Value* v : {&startV, &endV, &stepV})
        if (!isScalarValue(*v)) throw KernelError("arange: start, end and step must be numbers");
    const bool anyFloat =
        startV.kind == Value::Kind::Float || endV.kind == Value::Kind::Float || stepV.kind == Value::Kind::Float;
    const DType t = optDType(call, "dtype").value_or(anyFloat ? DType::F32 : DType::I64);
    const bool intAcc = isIntegral(t, true);
    double sizeD;
    if (intAcc) {
        const int64_t s = startV.kind == Value::Kind::Float ? static_cast<int64_t>(startV.f) : startV.toInt();
        const int64_t e = endV.kind == Value::Kind::Float ? static_cast<int64_t>(endV.f) : endV.toInt();
        const int64_t st = stepV.kind == Value::Kind::Float ? static_cast<int64_t>(stepV.f) : stepV.toInt();
        if (st == 0) throw KernelError("arange: step must be nonzero");
        sizeD = std::ceil(static_cast<double>(e - s) / static_cast<double>(st));
    } else {
        const double st = stepV.toDouble();
        if (st == 0) throw KernelError("arange: step must be nonzero");
        if (!std::isfinite(startV.toDouble()) || !std::isfinite(endV.toDouble()))
            throw KernelError("arange: unsupported range");
        sizeD = std::ceil((endV.toDouble() - startV.toDouble()) / st);
    }
    if (!(sizeD >= 0) || sizeD > 9.0e15)
        throw KernelError("arange: upper bound and larger bound inconsistent with step sign");
    const int64_t n = static_cast<int64_t>(sizeD);
    Tensor out = call.newTensor({n}, t);
    // on a device: the values computed here, then uploaded (one transfer)
    const bool onHost = out.device() == DeviceKind::Cpu;
    std::vector<unsigned char> staging(onHost ? 0 : static_cast<size_t>(out.nbytes()));
    dispatch<Set::All>(t, "arange", [&](auto tag) {
        using S = typename decltype(tag)::type;
        S* p = onHost ? out.data<S>() : reinterpret_cast<S*>(staging.data());
        if constexpr (kIsBool<S>) {
            throw KernelError("arange: bool is not supported");
        } else if constexpr (kIsInt<S>) {
            const int64_t s = startV.kind == Value::Kind::Float ? static_cast<int64_t>(startV.f) : startV.toInt();
            const int64_t st = stepV.kind == Value::Kind::Float ? static_cast<int64_t>(stepV.f) : stepV.toInt();
            parallelFor(call, n, kGrainCheap, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) p[i] = static_cast<S>(math::arith::arangeValue<int64_t>(s, st, i));
            });
        } else if constexpr (kIsReduced<S>) {
            const float s = static_cast<float>(startV.toDouble()), st = static_cast<float>(stepV.toDouble());
            parallelFor(call, n, kGrainCheap, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) p[i] = Num<S>::store(math::arith::arangeValue(s, st, i));
            });
        } else {
            const double s = startV.toDouble(), st = stepV.toDouble();
            parallelFor(call, n, kGrainCheap, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) p[i] = static_cast<S>(math::arith::arangeValue(s, st, i));
            });
        }
    });
    if (!onHost) call.backend->upload(out, staging.data(), out.nbytes());
    call.result = Value::ofTensor(out);
}

void scalarTensorKernel(KernelCall& call)
{
    const Value& s = call.arg("s");
    const DType t = optDType(call, "dtype").value_or(DType::F32);  // torch 1.13: default dtype for any number
    call.result = Value::ofTensor(filled(call, {}, {}, t, s));
}

// _local_scalar_dense(self) (Tensor.item()): the one element of self as a number: an int for
// integer dtypes, a bool for bool, a float otherwise.
void localScalarDenseKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.numel() != 1)
        throw KernelError("_local_scalar_dense: expected a tensor of one element, got " + std::to_string(self.numel()));
    const std::vector<unsigned char> bytes = hostBytes(self);
    const auto* p = bytes.data();
    const DType t = self.dtype();
    if (t == DType::Bool) {
        call.result = Value::ofBool(*p != 0);
    } else if (t == DType::I64) {
        int64_t v = 0;
        std::memcpy(&v, p, sizeof v);
        call.result = Value::ofInt(v);
    } else if (isIntegral(t, false)) {
        call.result = Value::ofInt(static_cast<int64_t>(loadAsDouble(p, t)));
    } else {
        call.result = Value::ofFloat(loadAsDouble(p, t));
    }
}

void fillKernel(KernelCall& call)
{  // fill.Scalar: empty_like(self).fill_(value)
    const Tensor& self = call.tensor("self");
    call.result = Value::ofTensor(filled(call, self.sizes(), preserveStrides(self), self.dtype(), call.arg("value")));
}

void fillInplaceKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    fillWith(call, self, call.arg("value"));
    call.result = Value::ofTensor(self);
}

void zeroInplaceKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    fillWith(call, self, zero());
    call.result = Value::ofTensor(self);
}

// triu(self, diagonal): keeps element (.., i, j) when j - i >= diagonal, else 0; contiguous.
void triuKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dim() < 2) throw KernelError("triu: input tensor must have at least 2 dimensions");
    const int64_t diagonal = optArg(call, "diagonal").isNone() ? 0 : optArg(call, "diagonal").toInt();
    Tensor out = call.newTensor(self.sizes(), self.dtype());
    const int64_t rows = self.size(-2), cols = self.size(-1);
    // on a device: self's values brought here, the result computed here and uploaded
    const bool onHost = out.device() == DeviceKind::Cpu;
    std::vector<unsigned char> selfHost = onHost ? std::vector<unsigned char>{} : hostBytes(self);
    std::vector<unsigned char> outHost(onHost ? 0 : static_cast<size_t>(out.nbytes()));
    const std::vector<int64_t> srcStrides = onHost ? self.strides() : Tensor::contiguousStrides(self.sizes());
    const char* srcBase = onHost ? static_cast<const char*>(self.rawData()) : reinterpret_cast<char*>(selfHost.data());
    char* dstBase = onHost ? static_cast<char*>(out.rawData()) : reinterpret_cast<char*>(outHost.data());
    // a (.., i, j) index tensor pair would be wasteful: walk with a flat position instead
    dispatchBits(self.dtype(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        auto body = [&](int64_t b, int64_t e) {  // over matrices * rows
            const size_t nd = self.sizes().size();
            std::vector<int64_t> idx(nd, 0);
            for (int64_t r = b; r < e; ++r) {
                int64_t rem = r;
                for (size_t d = nd - 1; d-- > 0;) {
                    idx[d] = rem % self.sizes()[d];
                    rem /= self.sizes()[d];
                }
                idx[nd - 1] = 0;
                int64_t off = 0;
                for (size_t d = 0; d < nd; ++d) off += idx[d] * srcStrides[d];
                const U* src = reinterpret_cast<const U*>(srcBase) + off;
                U* dst = reinterpret_cast<U*>(dstBase) + r * cols;
                const int64_t i = idx[nd - 2];
                const int64_t cs = srcStrides[nd - 1];
                for (int64_t j = 0; j < cols; ++j) dst[j] = (j - i >= diagonal) ? src[j * cs] : U(0);
            }
        };
        int64_t nrows = rows;
        for (size_t d = 0; d + 2 < self.sizes().size(); ++d) nrows *= self.sizes()[d];
        if (cols > 0) parallelFor(call, nrows, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(cols, 1)), body);
    });
    if (!onHost) call.backend->upload(out, outHost.data(), out.nbytes());
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerFactories(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.full.default", d, fullKernel);
    reg.add("aten.zeros.default", d, [](KernelCall& c) { constantKernel(c, zero()); });
    reg.add("aten.ones.default", d, [](KernelCall& c) { constantKernel(c, oneV()); });
    reg.add("aten.empty.memory_format", d, [](KernelCall& c) { constantKernel(c, zero()); });
    reg.add("aten.empty_strided.default", d, [](KernelCall& c) {
        c.result = Value::ofTensor(emptyStrided(c, optDType(c, "dtype").value_or(DType::F32)));
    });
    reg.add("aten.new_empty_strided.default", d, [](KernelCall& c) {
        c.result = Value::ofTensor(emptyStrided(c, optDType(c, "dtype").value_or(c.tensor("self").dtype())));
    });
    reg.add("aten.zeros_like.default", d, [](KernelCall& c) { likeKernel(c, zero()); });
    reg.add("aten.ones_like.default", d, [](KernelCall& c) { likeKernel(c, oneV()); });
    reg.add("aten.empty_like.default", d, [](KernelCall& c) { likeKernel(c, zero()); });
    reg.add("aten.full_like.default", d, [](KernelCall& c) { likeKernel(c, c.arg("fill_value")); });
    reg.add("aten.new_zeros.default", d, [](KernelCall& c) { newKernel(c, zero()); });
    reg.add("aten.new_ones.default", d, [](KernelCall& c) { newKernel(c, oneV()); });
    reg.add("aten.new_empty.default", d, [](KernelCall& c) { newKernel(c, zero()); });
    reg.add("aten.new_full.default", d, [](KernelCall& c) { newKernel(c, c.arg("fill_value")); });
    reg.add("aten.arange.default", d, arangeKernel);
    reg.add("aten.arange.start", d, arangeKernel);
    reg.add("aten.arange.start_step", d, arangeKernel);
    reg.add("aten.scalar_tensor.default", d, scalarTensorKernel);
    reg.add("aten._local_scalar_dense.default", d, localScalarDenseKernel);
    reg.add("aten.fill.Scalar", d, fillKernel);
    reg.add("aten.fill_.Scalar", d, fillInplaceKernel);
    reg.add("aten.zero_.default", d, zeroInplaceKernel);
    reg.add("aten.triu.default", d, triuKernel);
}

}  // namespace fxl::cpu::ew
