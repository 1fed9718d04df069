// Meta functions of reductions (dim lists, keepdim, dtype= kwargs) and scans.
// Reduction results are allocated contiguous (resize_reduction / create_reduction_result).
#include "core/ops/op_meta_reductions.hpp"

namespace fxl::meta {
namespace {

// Dims to reduce: None or [] reduce every dim.
std::vector<bool> reducedDims(const MetaCall& c, const TensorMeta& self, const char* argName)
{
    size_t n = self.sizes.size();
    std::vector<bool> red(n, false);
    const Arg* a = nullptr;
    if (argName && hasArg(c, argName)) a = &c.arg(argName);
    std::vector<int64_t> dims;
    if (a) dims = toInts(c, *a, argName);
    if (dims.empty()) {
        std::fill(red.begin(), red.end(), true);
        return red;
    }
    for (int64_t d : dims) {
        int64_t w = wrapDim(d, static_cast<int64_t>(n));
        if (n == 0) continue;
        if (red[static_cast<size_t>(w)])
            throw MetaError("dim " + std::to_string(w) + " appears multiple times in the list of dims");
        red[static_cast<size_t>(w)] = true;
    }
    return red;
}

Sizes reducedShape(const TensorMeta& self, const std::vector<bool>& red, bool keepdim)
{
    Sizes out;
    for (size_t i = 0; i < self.sizes.size(); ++i) {
        if (!red[i])
            out.push_back(self.sizes[i]);
        else if (keepdim)
            out.push_back(1);
    }
    return out;
}

bool keepdimOf(const MetaCall& c) { return hasArg(c, "keepdim") && toBool(c.arg("keepdim"), "keepdim"); }

std::optional<DType> dtypeKwarg(const MetaCall& c)
{
    if (!hasArg(c, "dtype")) return std::nullopt;
    return toOptDType(c.arg("dtype"));
}

enum class RedDtype
{
    Same,
    SumLike,
    Bool,
    Long,
    RealOfComplex
};

DType outDtype(DType in, RedDtype r, std::optional<DType> kw)
{
    if (kw) return *kw;
    switch (r) {
    case RedDtype::Same: return in;
    case RedDtype::SumLike: return isIntegral(in, true) ? DType::I64 : in;
    case RedDtype::Bool: return in == DType::U8 ? DType::U8 : DType::Bool;
    case RedDtype::Long: return DType::I64;
    case RedDtype::RealOfComplex: return applyPromotion(in, Promotion::ComplexToFloat);
    }
    return in;
}

ValueMeta reduce(const MetaCall& c, const char* dimArg, RedDtype r)
{
    const TensorMeta& self = tensorOf(c, "self");
    auto red = reducedDims(c, self, dimArg);
    Sizes shape = reducedShape(self, red, keepdimOf(c));
    return tensorValue(makeContiguous(outDtype(self.dtype, r, dtypeKwarg(c)), std::move(shape), self.device));
}

// Reductions over a single optional int dim returning (values, indices).
ValueMeta reduceWithIndices(const MetaCall& c)
{
    const TensorMeta& self = tensorOf(c, "self");
    auto red = reducedDims(c, self, "dim");
    Sizes shape = reducedShape(self, red, keepdimOf(c));
    return ValueMeta::ofTuple({tensorValue(makeContiguous(self.dtype, shape, self.device)),
                               tensorValue(makeContiguous(DType::I64, shape, self.device))});
}

}  // namespace

void registerReductions(MetaTable& t)
{
    t["aten.sum.default"] = [](const MetaCall& c) { return reduce(c, nullptr, RedDtype::SumLike); };
    t["aten.sum.dim_IntList"] = [](const MetaCall& c) { return reduce(c, "dim", RedDtype::SumLike); };
    t["aten.prod.default"] = [](const MetaCall& c) { return reduce(c, nullptr, RedDtype::SumLike); };
    t["aten.prod.dim_int"] = [](const MetaCall& c) { return reduce(c, "dim", RedDtype::SumLike); };
    t["aten.mean.default"] = [](const MetaCall& c) { return reduce(c, nullptr, RedDtype::Same); };
    t["aten.mean.dim"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        auto kw = dtypeKwarg(c);
        DType dt = kw ? *kw : self.dtype;
        if (!isFloatingPoint(dt) && !isComplex(dt))
            throw MetaError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                            "complex dtype. Got: "
                            + std::string(dtypeTorchName(dt)));
        return reduce(c, "dim", RedDtype::Same);
    };
    for (const char* n : {"aten.amax.default", "aten.amin.default"})
        t[n] = [](const MetaCall& c) { return reduce(c, "dim", RedDtype::Same); };
    for (const char* n : {"aten.max.default", "aten.min.default"})
        t[n] = [](const MetaCall& c) { return reduce(c, nullptr, RedDtype::Same); };
    for (const char* n : {"aten.argmax.default", "aten.argmin.default"})
        t[n] = [](const MetaCall& c) { return reduce(c, "dim", RedDtype::Long); };
    for (const char* n : {"aten.any.default", "aten.all.default"})
        t[n] = [](const MetaCall& c) { return reduce(c, nullptr, RedDtype::Bool); };
    for (const char* n : {"aten.any.dim", "aten.all.dim", "aten.any.dims", "aten.all.dims"})
        t[n] = [](const MetaCall& c) { return reduce(c, "dim", RedDtype::Bool); };
    for (const char* n : {"aten.max.dim", "aten.min.dim"}) t[n] = reduceWithIndices;
    t["aten.logsumexp.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        auto red = reducedDims(c, self, "dim");
        Sizes shape = reducedShape(self, red, keepdimOf(c));
        return tensorValue(
            makeContiguous(applyPromotion(self.dtype, Promotion::IntToFloat), std::move(shape), self.device));
    };
    for (const char* n : {"aten.var.correction", "aten.var.dim", "aten.std.correction"})
        t[n] = [](const MetaCall& c) { return reduce(c, "dim", RedDtype::RealOfComplex); };
    t["aten.var_mean.correction"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        auto red = reducedDims(c, self, "dim");
        Sizes shape = reducedShape(self, red, keepdimOf(c));
        return ValueMeta::ofTuple(
            {tensorValue(
                 makeContiguous(outDtype(self.dtype, RedDtype::RealOfComplex, std::nullopt), shape, self.device)),
             tensorValue(makeContiguous(self.dtype, shape, self.device))});
    };
    for (const char* n : {"aten.cumsum.default", "aten.cumprod.default"})
        t[n] = [](const MetaCall& c) {
            const TensorMeta& self = tensorOf(c, "self");
            wrapDim(intArg(c, "dim"), static_cast<int64_t>(self.sizes.size()));
            DType dt = outDtype(self.dtype, RedDtype::SumLike, dtypeKwarg(c));
            return tensorValue(makeContiguous(dt, self.sizes, self.device));
        };
}

}  // namespace fxl::meta
