// Meta functions of factories (full, zeros, arange, *_like with memory formats, new_*,
// random) and of copies / casts (clone, _to_copy, convert_element_type, copy, fill).
#include <cmath>

#include "core/ops/op_meta_factories.hpp"

namespace fxl::meta {
namespace {

std::optional<DType> dtypeKw(const MetaCall& c)
{
    if (!hasArg(c, "dtype")) return std::nullopt;
    return toOptDType(c.arg("dtype"));
}

std::string deviceKw(const MetaCall& c, const std::string& fallback)
{
    if (!hasArg(c, "device")) return fallback;
    return deviceOf(c.arg("device"), fallback);
}

std::string formatKw(const MetaCall& c)
{
    if (!hasArg(c, "memory_format")) return {};
    return memoryFormatOf(c.arg("memory_format"));
}

void checkSizes(const Sizes& s)
{
    for (const auto& x : s)
        if (x.isConcrete() && *x.maybeValue() < 0)
            throw MetaError("Trying to create tensor with negative dimension " + x.str());
}

// Factory with explicit sizes.
ValueMeta factory(const MetaCall& c, const char* sizeArg, DType dflt)
{
    Sizes size = symListArg(c, sizeArg);
    checkSizes(size);
    auto dt = dtypeKw(c);
    Sizes st = stridesFor(size, formatKw(c));
    return tensorValue(makeTensor(dt ? *dt : dflt, std::move(size), std::move(st), deviceKw(c, "cpu")));
}

// *_like: empty_like's stride rules (preserve_format by default).
ValueMeta likeFactory(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    auto dt = dtypeKw(c);
    Sizes st = stridesLike(self, formatKw(c));
    return tensorValue(makeTensor(dt ? *dt : self.dtype, self.sizes, std::move(st), deviceKw(c, self.device)));
}

// new_*: dtype and device default to self's; contiguous.
ValueMeta newFactory(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    Sizes size = symListArg(c, "size");
    checkSizes(size);
    auto dt = dtypeKw(c);
    Sizes st = contiguous(size);
    return tensorValue(makeTensor(dt ? *dt : self.dtype, std::move(size), std::move(st), deviceKw(c, self.device)));
}

DType scalarDtype(const Arg& a)
{
    switch (a.kind) {
    case Arg::Kind::Bool: return DType::Bool;
    case Arg::Kind::Int: return DType::I64;
    case Arg::Kind::Float: return defaultFloat();
    default: return defaultFloat();
    }
}

bool isFloatArg(const MetaCall& c, const Arg& a)
{
    if (a.kind == Arg::Kind::Float) return true;
    if (a.isNode()) return c.metaOf(a.node).kind == ValueMeta::Kind::SymFloat;
    return false;
}

ValueMeta arange(const MetaCall& c, const Arg* startA, const Arg& endA, const Arg* stepA)
{
    bool anyFloat = isFloatArg(c, endA) || (startA && isFloatArg(c, *startA)) || (stepA && isFloatArg(c, *stepA));
    auto dt = dtypeKw(c);
    DType out = dt ? *dt : (anyFloat ? defaultFloat() : DType::I64);
    SymInt len;
    if (anyFloat) {
        double s = startA ? toDouble(*startA, "start") : 0.0;
        double e = toDouble(endA, "end");
        double st = stepA ? toDouble(*stepA, "step") : 1.0;
        if (st == 0) throw MetaError("arange: step must be nonzero");
        double n = std::ceil((e - s) / st);
        len = static_cast<int64_t>(std::max(0.0, n));
    } else {
        SymInt s = startA ? toSymInt(c, *startA, "start") : SymInt(0);
        SymInt e = toSymInt(c, endA, "end");
        SymInt st = stepA ? toSymInt(c, *stepA, "step") : SymInt(1);
        if (st.isConcrete() && *st.maybeValue() == 0) throw MetaError("arange: step must be nonzero");
        len = ceilDiv(sub(e, s), st);
        if (len.isConcrete() && *len.maybeValue() < 0)
            throw MetaError("arange: upper bound and larger bound inconsistent with step sign");
    }
    return tensorValue(makeContiguous(out, {len}, deviceKw(c, "cpu")));
}

// zeros, ones, empty, full, arange, the prims random and seed ops
void registerNewTensors(MetaTable& t)
{
    for (const char* n : {"aten.zeros.default", "aten.ones.default", "aten.empty.memory_format", "aten.rand.default",
                          "aten.randn.default"})
        t[n] = [](const MetaCall& c) { return factory(c, "size", defaultFloat()); };
    t["aten.full.default"] = [](const MetaCall& c) { return factory(c, "size", scalarDtype(c.arg("fill_value"))); };
    t["aten.empty_strided.default"] = [](const MetaCall& c) {
        Sizes size = symListArg(c, "size"), stride = symListArg(c, "stride");
        checkSizes(size);
        if (size.size() != stride.size()) throw MetaError("empty_strided: size and stride differ in length");
        auto dt = dtypeKw(c);
        return tensorValue(
            makeTensor(dt ? *dt : defaultFloat(), std::move(size), std::move(stride), deviceKw(c, "cpu")));
    };
    t["aten.new_empty_strided.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        Sizes size = symListArg(c, "size"), stride = symListArg(c, "stride");
        checkSizes(size);
        if (size.size() != stride.size()) throw MetaError("new_empty_strided: size and stride differ in length");
        auto dt = dtypeKw(c);
        return tensorValue(
            makeTensor(dt ? *dt : self.dtype, std::move(size), std::move(stride), deviceKw(c, self.device)));
    };
    for (const char* n :
         {"aten.new_zeros.default", "aten.new_ones.default", "aten.new_empty.default", "aten.new_full.default"})
        t[n] = newFactory;
    for (const char* n :
         {"aten.zeros_like.default", "aten.ones_like.default", "aten.empty_like.default", "aten.full_like.default",
          "aten.rand_like.default", "aten.randn_like.default", "aten.randint_like.default"})
        t[n] = likeFactory;
    t["aten.scalar_tensor.default"] = [](const MetaCall& c) {
        auto dt = dtypeKw(c);
        return tensorValue(makeContiguous(dt ? *dt : defaultFloat(), {}, deviceKw(c, "cpu")));
    };
    t["aten.arange.default"] = [](const MetaCall& c) { return arange(c, nullptr, c.arg("end"), nullptr); };
    t["aten.arange.start"] = [](const MetaCall& c) { return arange(c, &c.arg("start"), c.arg("end"), nullptr); };
    t["aten.arange.start_step"] = [](const MetaCall& c) {
        return arange(c, &c.arg("start"), c.arg("end"), &c.arg("step"));
    };
    t["aten.randperm.default"] = [](const MetaCall& c) {
        auto dt = toOptDType(c.arg("dtype"));
        return tensorValue(makeContiguous(dt ? *dt : DType::I64, {symArg(c, "n")}, deviceOf(c.arg("device"), "cpu")));
    };
    t["prims.iota.default"] = [](const MetaCall& c) {
        auto dt = toOptDType(c.arg("dtype"));
        return tensorValue(
            makeContiguous(dt ? *dt : DType::I64, {symArg(c, "length")}, deviceOf(c.arg("device"), "cpu")));
    };
    t["prims.inductor_seeds.default"] = [](const MetaCall& c) {
        return tensorValue(makeContiguous(DType::I64, {intArg(c, "count")}, deviceOf(c.arg("device"), "cpu")));
    };
    t["prims.inductor_lookup_seed.default"] = [](const MetaCall& c) {
        const TensorMeta& seeds = tensorOf(c, "seeds");
        return tensorValue(makeContiguous(seeds.dtype, {}, seeds.device));
    };
    t["prims.inductor_random.default"] = [](const MetaCall& c) {
        const TensorMeta& seed = tensorOf(c, "seed");
        DType dt = defaultFloat();
        if (hasArg(c, "align_dtype"))
            if (auto a = toOptDType(c.arg("align_dtype"))) dt = *a;
        return tensorValue(makeContiguous(dt, symListArg(c, "size"), seed.device));
    };
    t["prims.inductor_randint.default"] = [](const MetaCall& c) {
        const TensorMeta& seed = tensorOf(c, "seed");
        return tensorValue(makeContiguous(DType::I64, symListArg(c, "size"), seed.device));
    };
}

// clone, _to_copy, fill, copy, convert_element_type, to
void registerCopiesAndCasts(MetaTable& t)
{
    t["aten.clone.default"] = likeFactory;
    t["aten.lift_fresh_copy.default"] = likeFactory;
    t["aten._to_copy.default"] = likeFactory;
    t["aten.fill.Scalar"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        return tensorValue(makeTensor(self.dtype, self.sizes, stridesLike(self, ""), self.device));
    };
    t["aten.fill.Tensor"] = t["aten.fill.Scalar"];
    t["aten.copy.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        const TensorMeta& src = tensorOf(c, "src");
        Sizes b = broadcastShapes({&self.sizes, &src.sizes});
        if (b.size() != self.sizes.size()) throw MetaError("copy: src cannot be broadcast to self");
        return tensorValue(makeTensor(self.dtype, self.sizes, stridesLike(self, ""), self.device));
    };
    t["prims.convert_element_type.default"] = [](const MetaCall& c) {
        const TensorMeta& a = tensorOf(c, "a");
        auto dt = toOptDType(c.arg("dtype"));
        if (!dt) throw MetaError("convert_element_type: missing dtype");
        // dtype conversion preserves dense strides
        Sizes st = (a.strides.size() == a.sizes.size() && isNonOverlappingAndDense(a))
            ? a.strides
            : primsElementwiseStrides(a.sizes, {&a});
        return tensorValue(makeTensor(*dt, a.sizes, std::move(st), a.device));
    };
    t["prims.device_put.default"] = [](const MetaCall& c) {
        const TensorMeta& a = tensorOf(c, "a");
        return tensorValue(makeTensor(a.dtype, a.sizes, stridesLike(a, ""), deviceOf(c.arg("device"), a.device)));
    };
    auto toImpl = [](const MetaCall& c) {
        const ValueMeta& v = c.tensorArg("self");
        if (!v.isTensor()) throw MetaError("argument 'self' has no tensor meta");
        const TensorMeta& self = v.tensor;
        auto dt = dtypeKw(c);
        std::string dev = deviceKw(c, self.device);
        bool copy = hasArg(c, "copy") && toBool(c.arg("copy"), "copy");
        std::string fmt = formatKw(c);
        if (!copy && (!dt || *dt == self.dtype) && dev == self.device && (fmt.empty() || fmt == "preserve_format"))
            return v;
        return tensorValue(makeTensor(dt ? *dt : self.dtype, self.sizes, stridesLike(self, fmt), dev));
    };
    t["aten.to.dtype"] = toImpl;
    t["aten.to.dtype_layout"] = toImpl;
    t["aten.to.device"] = toImpl;
    // resize_: self unchanged when the sizes are its own; else the new sizes, contiguous (or
    // in the memory format asked for)
    t["aten.resize_.default"] = [](const MetaCall& c) {
        const ValueMeta& v = c.tensorArg("self");
        if (!v.isTensor()) throw MetaError("argument 'self' has no tensor meta");
        Sizes size = symListArg(c, "size");
        for (const SymInt& s : size)
            if (s.isConcrete() && s.valueOrHint() < 0) throw MetaError("resize_: negative size " + s.str());
        if (size == v.tensor.sizes) return v;
        Sizes st = stridesFor(size, memoryFormatOf(c.arg("memory_format")));
        return tensorValue(makeTensor(v.tensor.dtype, std::move(size), std::move(st), v.tensor.device));
    };
}

}  // namespace

void registerFactories(MetaTable& t)
{
    registerNewTensors(t);
    registerCopiesAndCasts(t);
}

}  // namespace fxl::meta
